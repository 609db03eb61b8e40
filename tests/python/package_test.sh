#!/usr/bin/env bash
# tests/python/package_test.sh SOURCE_DIR STEPTP — the Python package as a user gets it: a fresh
# venv, `pip install SOURCE_DIR` (scikit-build-core + nanobind; the build folder
# build/py-<wheel tag> is kept, so a warm rebuild is incremental), `python -c "import steptp"`,
# then the package's pytest tests (tests/python/package), which compare steptp.reward with the
# STEPTP executable's eval-single. Environment: STEPTP_PYTHON (default python3 on PATH).
# Prints each stage's seconds and 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:?usage: package_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=$(realpath "${2:?usage: package_test.sh SOURCE_DIR STEPTP}")
PYTHON=${STEPTP_PYTHON:-python3}
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"

stage() {  # stage NAME COMMAND... — runs it, reports ok/fail with its seconds
  local name=$1 start=$SECONDS
  shift
  if "$@" >"$TMP/log" 2>&1; then
    ok "$name ($((SECONDS - start)) s)${SHOW_LAST_LINE:+: $(tail -n 1 "$TMP/log")}"
  else
    fail "$name ($((SECONDS - start)) s)"
    return 1
  fi
}

VENV=$TMP/venv
stage "fresh venv" "$PYTHON" -m venv "$VENV" || { finish; exit 1; }
PY=$VENV/bin/python
stage "pip install -r package.txt" "$PY" -m pip install -q --disable-pip-version-check \
  -r "$SRC/python/requirements/package.txt" || { finish; exit 1; }
# -C build-dir keeps one build folder per wheel tag in the source tree's build/ (pyproject.toml).
stage "pip install ." env CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
  "$PY" -m pip install -q --disable-pip-version-check "$SRC" || { finish; exit 1; }
# Outside the source tree, so `import steptp` finds the installed package, not python/steptp.
stage "python -c 'import steptp'" env -C "$TMP" "$PY" -c \
  'import steptp, steptp._core; print(steptp.__version__, steptp._core.operations())' ||
  { finish; exit 1; }
SHOW_LAST_LINE=1 stage "pytest tests/python/package" env -C "$TMP" STEPTP_EXE="$STEPTP" "$PY" -m pytest -q \
  -p no:cacheprovider "$SRC/tests/python/package" || true
finish
