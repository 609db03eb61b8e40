#!/usr/bin/env bash
# tests/golden/codegen/check_lowering.sh STEPTP PROGRAM TARGET EXPECTED — golden test of one
# emitter: `steptp lower --target TARGET PROGRAM` must equal the EXPECTED file byte for byte.
# With STEPTP_UPDATE_GOLDEN=1 the output is written to EXPECTED instead (for an emitter change
# made on purpose; review the diff before committing it). docs/codegen.md, "Golden output".
set -euo pipefail
steptp=$1 program=$2 target=$3 expected=$4
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$steptp" lower --target "$target" "$program" -o "$actual"
if [[ ${STEPTP_UPDATE_GOLDEN:-0} == 1 ]]; then
  cp "$actual" "$expected"
  echo "updated $expected"
  exit 0
fi
if ! cmp -s "$actual" "$expected"; then
  echo "$(basename "$program") --target $target differs from $expected:"
  diff -u "$expected" "$actual" | head -40 || true
  echo "(an intended emitter change: rerun with STEPTP_UPDATE_GOLDEN=1 and review the diff)"
  exit 1
fi
