#!/usr/bin/env bash
# scripts/gpu_check.sh — the short (< 10 min) checks for a machine with an NVIDIA GPU: shows
# nvidia-smi, trains the tiny random Qwen3-architecture model for a few steps on the GPU with
# python/train_sft.py (bf16 where supported) and prints its metrics, then runs the CUDA and TVM-CUDA
# lowerings of a few programs and compares them with the reference interpreter.
# Exits non-zero when any check fails.
#
# The GPU machine may reach no package index: it needs a Python with torch, transformers, trl and
# datasets already (a .venv made by scripts/setup-venv.sh model-loop, or STEPTP_TRAIN_PYTHON).
# Environment: TOKENIZER (a tokenizer dir or tokenizer.json; default ../shared/data/qwen3 or
# shared/data/qwen3), TRAIN_DATA (default tests/data/chat_sample.jsonl), GPU_TRAIN_STEPS (20),
# BUILD (build), OUT (results folder; default out/gpu-check).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
RESULTS=${OUT:-out/gpu-check}
TRAIN_DATA=${TRAIN_DATA:-tests/data/chat_sample.jsonl}
GPU_TRAIN_STEPS=${GPU_TRAIN_STEPS:-20}
mkdir -p "$RESULTS"
failures=0

section() { echo; echo "== $*"; }
failed() {
  echo "gpu_check: FAIL: $*" >&2
  failures=$((failures + 1))
}

gpu_info() {
  section "nvidia-smi"
  if ! command -v nvidia-smi >/dev/null; then
    failed "nvidia-smi not found: this is no GPU machine"
    return
  fi
  timeout 30 nvidia-smi || failed "nvidia-smi exited non-zero"
}

find_tokenizer() {
  local t
  for t in "${TOKENIZER:-}" ../shared/data/qwen3 shared/data/qwen3; do
    if [[ -n $t && -e $t ]]; then
      echo "$t"
      return 0
    fi
  done
  return 1
}

# A Python that can train: the project venv first, then the system one.
find_train_python() {
  local py
  for py in "${STEPTP_TRAIN_PYTHON:-}" .venv/bin/python python3; do
    if [[ -z $py ]] || ! command -v "$py" >/dev/null; then continue; fi
    if "$py" -c 'import torch, transformers, trl, datasets' 2>/dev/null; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

train_check() {
  section "SFT on the GPU ($GPU_TRAIN_STEPS steps, tiny Qwen3)"
  local py tokenizer precision
  if ! py=$(find_train_python); then
    failed "no Python with torch, transformers, trl and datasets (run scripts/setup-venv.sh model-loop where PyPI is reachable, or set STEPTP_TRAIN_PYTHON)"
    return
  fi
  if ! tokenizer=$(find_tokenizer); then
    failed "no tokenizer: set TOKENIZER to a tokenizer dir or tokenizer.json"
    return
  fi
  if ! timeout 60 "$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
    failed "torch ($py) sees no CUDA device"
    return
  fi
  precision=--fp16
  if timeout 60 "$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_bf16_supported() else 1)'; then
    precision=--bf16
  fi
  echo "python: $py, tokenizer: $tokenizer, precision: ${precision#--}"
  if ! timeout 420 "$py" python/train_sft.py --tiny-qwen3 --tokenizer "$tokenizer" \
    --data "$TRAIN_DATA" "$precision" --max-steps "$GPU_TRAIN_STEPS" --max-length 1024 \
    --batch-size 8 --lr 2e-3 --seed 0 --no-save --out "$RESULTS/train"; then
    failed "train_sft.py on the GPU exited non-zero"
    return
  fi
  cat "$RESULTS/train/metrics.json"
  "$py" -c 'import json, sys; m = json.load(open(sys.argv[1]));
sys.exit(0 if m["device"] == "cuda" and m["last_loss"] < m["first_loss"] else 1)' \
    "$RESULTS/train/metrics.json" || failed "GPU training did not run on cuda or did not lower the loss"
}

# GPU lowering checks ----------------------------------------------------------------------------
# For a few programs (examples/softmax.leir and 3 catalog workloads at small shapes, drawn with
# random.Random(36) from the sorted names): `lower --target cuda` compiled by nvcc and run on the
# GPU, and `lower --target tir` built by TVM for "cuda", must give the reference interpreter's
# outputs on the harness's deterministic inputs (`steptp run --harness-inputs --dump`).
# Skipped (not failed) where steptp has not been built; TVM-CUDA is skipped where the installed
# TVM has no CUDA runtime (the PyPI wheel is CPU-only).
gpu_lowering_checks() {
  section "GPU lowering checks (CUDA via nvcc, TIR via TVM's cuda target)"
  local steptp=$BUILD/steptp nvcc tvm_py=${STEPTP_TVM_PYTHON:-.venv/bin/python} programs=() p name rc
  if [[ ! -x $steptp ]]; then
    echo "skip: $steptp does not exist (build the project first)"
    return
  fi
  nvcc=${STEPTP_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [[ -x $nvcc ]] || { failed "nvcc not found (set STEPTP_NVCC)"; return; }
  [[ -x $tvm_py ]] || tvm_py=python3
  mkdir -p "$RESULTS/lowering"
  cp examples/softmax.leir "$RESULTS/lowering/example_softmax.leir"
  programs+=(example_softmax)
  for name in $(python3 -c 'import glob, os, random
names = sorted(os.path.basename(g)[:-len(".small.json")] for g in glob.glob("workloads/graphs/*.small.json"))
print(" ".join(random.Random(36).sample(names, 3)))'); do
    if timeout 60 "$steptp" import "workloads/graphs/$name.small.json" -o "$RESULTS/lowering/$name.leir"; then
      programs+=("$name")
    else
      failed "steptp import workloads/graphs/$name.small.json"
    fi
  done
  for p in "${programs[@]}"; do
    local dir=$RESULTS/lowering/$p
    mkdir -p "$dir"
    if ! timeout 120 "$steptp" run "$dir.leir" --harness-inputs --dump "$dir/interpreter.dump" >/dev/null; then
      failed "$p: steptp run --harness-inputs"
      continue
    fi
    # CUDA: nvcc, one run, the harness dumps its outputs.
    if ! timeout 60 "$steptp" lower "$dir.leir" --target cuda -o "$dir/program.cu"; then
      failed "$p: steptp lower --target cuda"
    elif ! timeout 180 "$nvcc" -O2 -o "$dir/program_cuda" "$dir/program.cu" >"$dir/nvcc.log" 2>&1; then
      failed "$p: nvcc could not compile $dir/program.cu ($(grep -m1 error "$dir/nvcc.log"))"
    elif ! timeout 120 "$dir/program_cuda" 1 "$dir/cuda.dump" >"$dir/cuda.log" 2>&1; then
      failed "$p: the CUDA program exited non-zero ($(tail -n 1 "$dir/cuda.log"))"
    elif python3 python/gpu_lowering_check.py compare "$dir/interpreter.dump" "$dir/cuda.dump"; then
      echo "ok: $p: CUDA matches the interpreter"
    else
      failed "$p: CUDA outputs differ from the interpreter's"
    fi
    # TVM-CUDA.
    if ! timeout 60 "$steptp" lower "$dir.leir" --target tir -o "$dir/module.py"; then
      failed "$p: steptp lower --target tir"
      continue
    fi
    rc=0
    timeout 300 "$tvm_py" python/gpu_lowering_check.py tvm-cuda "$dir.leir" "$dir/module.py" "$dir/tvm_cuda.dump" || rc=$?
    if ((rc == 3)); then
      echo "skip: $p: TVM-CUDA (see above)"
    elif ((rc != 0)); then
      failed "$p: TVM could not build or run the TIR for cuda"
    elif python3 python/gpu_lowering_check.py compare "$dir/interpreter.dump" "$dir/tvm_cuda.dump"; then
      echo "ok: $p: TVM-CUDA matches the interpreter"
    else
      failed "$p: TVM-CUDA outputs differ from the interpreter's"
    fi
  done
}

gpu_info
train_check
gpu_lowering_checks

section "summary"
if ((failures > 0)); then
  echo "gpu_check: $failures check(s) failed"
  exit 1
fi
echo "gpu_check: all checks passed"
