#!/usr/bin/env bash
# scripts/setup-venv.sh [GROUP...] — creates the project-local virtual environment (.venv) and
# installs the pinned Python requirements of each named group (python/requirements/GROUP.txt,
# and GROUP-nodeps.txt with --no-deps). Default group: model-loop.
#
# Idempotent and cached: a group whose requirement files have not changed since it was installed
# is skipped (a stamp in .venv/steptp-stamps, which also keys the llama.cpp build flags), and
# llama-cpp-python is compiled once per version and flags into ~/.cache/steptp/wheels. Prints the
# seconds each group took.
# Environment: STEPTP_VENV (default: <repo>/.venv), STEPTP_PYTHON (default: python3 on PATH).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${STEPTP_VENV:-$ROOT/.venv}
PYTHON=${STEPTP_PYTHON:-python3}
GROUPS_WANTED=("$@")
if ((${#GROUPS_WANTED[@]} == 0)); then GROUPS_WANTED=(model-loop); fi

# One installer at a time per venv: tests that run in parallel all call this script.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9

if [[ ! -x $VENV/bin/python ]]; then
  echo "setup-venv: creating $VENV with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip==24.3.1
fi
mkdir -p "$VENV/steptp-stamps"

# llama.cpp: a portable x86-64 build (AVX2/FMA/F16C where the CPU has them), without its tests,
# examples or servers (the Python server is used). Not GGML_NATIVE: on an AMX/AVX-512 machine the
# native build crashes in ggml's AMX matmul on the first multi-token prompt.
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  simd="-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
else
  simd="-DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF"
fi
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF $simd -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
WHEELS=${XDG_CACHE_HOME:-$HOME/.cache}/steptp/wheels

# llama-cpp-python ships only a source archive, and pip's wheel cache keys a built wheel by that
# archive alone, not by CMAKE_ARGS: a wheel once built with other flags would come back. So the
# wheel is built here, once per version and flags, into its own cache folder, and installed from
# there. Prints the wheel's path.
llama_wheel() {
  local version=$1 key dir tmp
  key=$(printf '%s\n%s' "$version" "$CMAKE_ARGS" | sha256sum | cut -c1-16)
  dir=$WHEELS/llama-cpp-python-$version-$key
  if ! compgen -G "$dir/*.whl" >/dev/null; then
    echo "setup-venv: building llama-cpp-python $version (CMAKE_ARGS: $CMAKE_ARGS); several minutes" >&2
    tmp=$dir.partial.$$
    rm -rf "$tmp" && mkdir -p "$tmp"
    "$VENV/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --no-cache-dir \
      --no-binary llama-cpp-python -w "$tmp" "llama-cpp-python==$version" >&2
    rm -rf "$dir" && mv "$tmp" "$dir"
  fi
  compgen -G "$dir/*.whl" | head -n 1
}

for group in "${GROUPS_WANTED[@]}"; do
  req=$ROOT/python/requirements/$group.txt
  nodeps=$ROOT/python/requirements/$group-nodeps.txt
  if [[ ! -f $req ]]; then
    echo "setup-venv: no requirement group '$group' (python/requirements/$group.txt)" >&2
    exit 2
  fi
  files=("$req")
  [[ -f $nodeps ]] && files+=("$nodeps")
  digest=$( (cat "${files[@]}" && echo "$CMAKE_ARGS") | sha256sum | cut -c1-16)
  stamp=$VENV/steptp-stamps/$group
  if [[ -f $stamp && $(cat "$stamp") == "$digest" ]]; then continue; fi
  start=$(date +%s)
  echo "setup-venv: installing group '$group' (pinned in ${files[*]#$ROOT/})"
  llama_version=$(sed -nE 's/^llama-cpp-python(\[[^]]*\])?==([^ ;#]+).*/\2/p' "$req" | head -n 1)
  if [[ -n $llama_version ]]; then
    wheel=$(llama_wheel "$llama_version")
    # --force-reinstall: replaces a same-version build made with other flags; -r below adds the deps.
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
  fi
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  if [[ -f $nodeps ]]; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$nodeps"
  fi
  echo "$digest" >"$stamp"
  echo "setup-venv: group '$group' installed in $(($(date +%s) - start)) s"
done
