#!/usr/bin/env bash
# tests/frontend/kernelbench_idioms_test.sh — problem-file idioms seen in real KernelBench files
# (tests/frontend/idioms/, written here): chained and tuple size assignments, tuple-valued
# sizes, inputs asked for on 'cuda', distribution-sampled inputs, torch 2's
# scaled_dot_product_attention, .values/.indices, narrow. Each file imports at its default
# shapes (traced on META) and, at small --shapes, matches torch's float64 output.
# Usage: kernelbench_idioms_test.sh STEPTP CHECKER SOURCE_DIR
set -u
STEPTP=$1 CHECKER=$2 SRC=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
D="$SRC/tests/frontend/idioms"

check() {  # FILE SMALL_SHAPES
  local f=$D/$1 shapes=$2
  if ! timeout 60 "$STEPTP" import "$f" -o "$TMP/default.leir" >"$TMP/out" 2>&1; then
    echo "FAIL: $1 does not import at its default shapes:"; sed 's/^/    /' "$TMP/out"
    failures=$((failures + 1)); return
  fi
  rm -f "$TMP/g.json" "$TMP/r.json"
  if ! timeout 60 /usr/bin/python3 "$SRC/python/steptp_trace.py" "$f" --shapes "$shapes" \
      --reference-out "$TMP/r.json" -o "$TMP/g.json" >"$TMP/out" 2>&1; then
    echo "FAIL: $1 does not trace at $shapes:"; sed 's/^/    /' "$TMP/out"
    failures=$((failures + 1)); return
  fi
  if ! timeout 60 "$CHECKER" "$TMP/g.json" "$TMP/r.json" >"$TMP/out" 2>&1; then
    echo "FAIL: $1 at $shapes does not match torch:"; sed 's/^/    /' "$TMP/out"
    failures=$((failures + 1)); return
  fi
  echo "ok: $1 (default shapes import; $shapes matches torch)"
}

check chained_sizes_conv.py "batch=2,rows=6,cols=7,cin=2,cout=3"
check max_values_narrow.py "batch=3,row_shape=(9,)"
check max_indices.py "batch=2,rows=5,cols=7"
check attention_sdpa.py "b=1,h=2,n=5,d=4"
check sampled_targets_loss.py "batch=3,features=5"

# A size override the file does not bind is still an error naming the known sizes.
timeout 60 "$STEPTP" import "$D/chained_sizes_conv.py" --shapes depth=3 >"$TMP/out" 2>&1
rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "unknown shape variable 'depth'.*cols" "$TMP/out"; then
  echo "FAIL: unknown size override: exit $rc"; sed 's/^/    /' "$TMP/out"
  failures=$((failures + 1))
else
  echo "ok: unknown size override names the known ones"
fi

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
