#!/usr/bin/env bash
# scripts/setup-venv.sh [GROUP...] — creates the project-local virtual environment (.venv) and
# installs the pinned Python requirements of each named group (python/requirements/GROUP.txt,
# and GROUP-nodeps.txt with --no-deps). Default group: model-loop.
#
# Idempotent and cached: a group whose requirement files have not changed since it was installed
# is skipped (a stamp in .venv/steptp-stamps), and pip's own wheel cache keeps built wheels
# (llama-cpp-python compiles from source once). Prints the seconds each group took.
# Environment: STEPTP_VENV (default: <repo>/.venv), STEPTP_PYTHON (default: python3 on PATH).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${STEPTP_VENV:-$ROOT/.venv}
PYTHON=${STEPTP_PYTHON:-python3}
GROUPS_WANTED=("$@")
if ((${#GROUPS_WANTED[@]} == 0)); then GROUPS_WANTED=(model-loop); fi

if [[ ! -x $VENV/bin/python ]]; then
  echo "setup-venv: creating $VENV with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip==24.3.1
fi
mkdir -p "$VENV/steptp-stamps"

# llama.cpp builds for this CPU, without its tests, examples or servers (the Python server is used).
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

for group in "${GROUPS_WANTED[@]}"; do
  req=$ROOT/python/requirements/$group.txt
  nodeps=$ROOT/python/requirements/$group-nodeps.txt
  if [[ ! -f $req ]]; then
    echo "setup-venv: no requirement group '$group' (python/requirements/$group.txt)" >&2
    exit 2
  fi
  files=("$req")
  [[ -f $nodeps ]] && files+=("$nodeps")
  digest=$(cat "${files[@]}" | sha256sum | cut -c1-16)
  stamp=$VENV/steptp-stamps/$group
  if [[ -f $stamp && $(cat "$stamp") == "$digest" ]]; then continue; fi
  start=$(date +%s)
  echo "setup-venv: installing group '$group' (pinned in ${files[*]#$ROOT/})"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  if [[ -f $nodeps ]]; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$nodeps"
  fi
  echo "$digest" >"$stamp"
  echo "setup-venv: group '$group' installed in $(($(date +%s) - start)) s"
done
