#!/usr/bin/env bash
# tests/cli/import_test.sh — `steptp import` and `steptp workloads`: a graph JSON and a problem
# file import to a checkable program; bad inputs (unsupported op, untraceable module, missing
# get_inputs, unknown shape variable, inconsistent shapes, a module that hangs) are one line on
# stderr and exit 2.
set -u
source "$(dirname "$0")/lib.sh"

G="$SRC/workloads/graphs"
expect_exit 0 "import a traced graph" -- "$STEPTP" import "$G/ReLU.small.json" -o "$TMP/relu.leir"
expect_exit 0 "the imported program checks" -- "$STEPTP" check "$TMP/relu.leir"

# An op no lowering knows.
sed 's/"target":"relu"/"target":"frobnicate"/' "$G/ReLU.small.json" > "$TMP/bad_op.json"
expect_exit 2 "unsupported op" -- "$STEPTP" import "$TMP/bad_op.json"
expect_output "unsupported_op" "unsupported op names its category"
expect_output "frobnicate" "unsupported op names the op"
expect_exit 2 "--shapes with a graph JSON" -- "$STEPTP" import "$G/ReLU.small.json" --shapes a=1
expect_exit 2 "missing file" -- "$STEPTP" import "$TMP/nope.json"
# A node whose recorded shape its op cannot produce (relu of a [2,6] input claiming [2,7]).
sed 's/"shape":\[2,6\],"dtype":"f64"}\],"output"/"shape":[2,7],"dtype":"f64"}],"output"/' \
  "$G/ReLU.small.json" > "$TMP/inconsistent.json"
grep -q '"shape":\[2,7\]' "$TMP/inconsistent.json" || { echo "FAIL: the inconsistent graph was not made"; failures=$((failures + 1)); }
expect_exit 2 "a graph with inconsistent shapes" -- "$STEPTP" import "$TMP/inconsistent.json"
expect_output "inconsistent_shapes" "inconsistent shapes are named"

if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  expect_exit 0 "import a problem file at small shapes" -- \
    "$STEPTP" import "$SRC/workloads/level1/ReLU.py" --shapes batch_size=2,dim=8 -o "$TMP/r.leir"
  expect_exit 0 "the traced program checks" -- "$STEPTP" check "$TMP/r.leir"
  expect_exit 2 "unknown shape variable" -- \
    "$STEPTP" import "$SRC/workloads/level1/ReLU.py" --shapes no_such_dim=3
  expect_output "unknown shape variable 'no_such_dim'" "unknown shape variable is named"
  cat > "$TMP/no_inputs.py" <<'PY'
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1
PY
  expect_exit 2 "missing get_inputs" -- "$STEPTP" import "$TMP/no_inputs.py"
  expect_output "get_inputs" "missing get_inputs is named"
  cat > "$TMP/untraceable.py" <<'PY'
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x
def get_inputs():
    return [torch.randn(2, 3)]
def get_init_inputs():
    return []
PY
  expect_exit 2 "untraceable module" -- "$STEPTP" import "$TMP/untraceable.py"
  [[ $(wc -l < "$TMP/out") -eq 1 ]] || { echo "FAIL: untraceable: not one line"; failures=$((failures + 1)); }
  # A module that hangs while it is imported: the tracer is stopped after --timeout seconds.
  printf 'import time\ntime.sleep(600)\n' > "$TMP/hangs.py"
  start=$SECONDS
  expect_exit 2 "a problem file that hangs" -- "$STEPTP" import "$TMP/hangs.py" --timeout 3
  expect_output "timed out after 3 s" "the timeout is named"
  (( SECONDS - start < 30 )) || { echo "FAIL: the hanging import took $((SECONDS - start)) s"; failures=$((failures + 1)); }
  expect_exit 2 "--timeout 0" -- "$STEPTP" import "$TMP/hangs.py" --timeout 0
else
  echo "skip: /usr/bin/python3 has no torch"
fi

expect_exit 0 "list workloads" -- "$STEPTP" workloads
expect_output "253 workloads" "the catalog has 253 workloads"
expect_exit 0 "list level 1 as JSON" -- "$STEPTP" workloads --level 1 --json
expect_output '"level": 1' "level 1 entries"
expect_exit 2 "bad level" -- "$STEPTP" workloads --level 9

finish
