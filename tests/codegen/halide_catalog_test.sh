#!/usr/bin/env bash
# tests/codegen/halide_catalog_test.sh SOURCE_DIR STEPTP — steptp's Halide lowering meets the real
# Halide (halide 21 from PyPI, in the project's .venv):
#  1. Halide builds, runs and matches the interpreter on >= 95% of the initial programs of 24
#     catalog workloads (small shapes) drawn with random.Random(36) from the sorted names, with its
#     default schedule; programs the emitter cannot express are counted with their typed reason;
#  2. the same for 6 of them (random.Random(7)) under the Mullapudi2016 autoscheduler the peer
#     benchmark uses;
#  3. the check is not blind: softmax's pipeline against a program that multiplies by the sum it
#     should divide by is a mismatch (exit 1);
#  4. an int64 store is refused by `lower --target halide` with exit 2 and its reason, and a Python
#     without Halide gets exit 2 naming the fix.
set -euo pipefail
SRC=$(cd "${1:?usage: halide_catalog_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=${2:?}
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"
bash "$SRC/scripts/setup-venv.sh" halide
PY=$SRC/.venv/bin/python
CHECK=$SRC/tests/codegen/halide_catalog_check.py

if timeout 1500 "$PY" "$CHECK" "$SRC" "$STEPTP" --sample 24 --seed 36 >"$TMP/log" 2>&1; then
  ok "catalog sample, default schedule: $(grep '^passed' "$TMP/log")"
else
  fail "catalog sample, default schedule: Halide matches the interpreter on >= 95%"
fi
if timeout 900 "$PY" "$CHECK" "$SRC" "$STEPTP" --sample 6 --seed 7 --autoschedule \
  >"$TMP/log" 2>&1; then
  ok "catalog sample, Mullapudi2016: $(grep '^passed' "$TMP/log")"
else
  fail "catalog sample, Mullapudi2016: Halide matches the interpreter on >= 95%"
fi

EX=$SRC/examples
"$STEPTP" lower "$EX/softmax.leir" --target halide -o "$TMP/softmax.py"
sed 's|)/E^|)*E^|' "$EX/softmax.leir" >"$TMP/changed.leir"
code=0
"$PY" "$SRC/python/halide_pipeline.py" check "$STEPTP" "$TMP/changed.leir" "$TMP/softmax.py" \
  >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 1 ]] && grep -q '"ok": false' "$TMP/log"; then
  ok "a pipeline checked against a changed program: mismatch (exit 1)"
else fail "a pipeline checked against a changed program: exit $code, expected 1"; fi
code=0
"$PY" "$SRC/python/halide_pipeline.py" check "$STEPTP" "$EX/softmax.leir" \
  "$TMP/softmax.py" >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 0 ]]; then ok "the same pipeline against its own program: exit 0"
else fail "the same pipeline against its own program: exit $code"; fi

"$STEPTP" import "$SRC/workloads/graphs/Argmax_over_a_dimension.small.json" -o "$TMP/argmax.leir"
code=0
"$STEPTP" lower "$TMP/argmax.leir" --target halide -o "$TMP/argmax.py" >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 2 ]] && grep -q "unsupported: a store to C (int64)" "$TMP/log"; then
  ok "lower --target halide refuses an int64 store: exit 2 with its reason"
else fail "lower --target halide on an int64 store: exit $code, expected 2"; fi
code=0
/usr/bin/python3 "$SRC/python/halide_pipeline.py" check "$STEPTP" "$EX/softmax.leir" \
  "$TMP/softmax.py" >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 2 ]] && grep -q "halide_unavailable" "$TMP/log" &&
  grep -q "setup-venv.sh halide" "$TMP/log"; then
  ok "a Python without Halide: exit 2, names the cause and the fix"
else fail "a Python without Halide: exit $code, expected 2 with halide_unavailable"; fi

finish
