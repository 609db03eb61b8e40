#!/usr/bin/env bash
# tests/codegen/tvm_catalog_test.sh SOURCE_DIR TVM_CATALOG_CHECK STEPTP — steptp's TIR meets the
# real TVM (apache-tvm 0.27 from PyPI, in the project's .venv):
#  1. `verify --engine tvm` gives the interpreter's and the compiled engine's verdict on every
#     pair of the strategy golden corpus: each positive case's input and expected output
#     (equivalent) and the expected output with one operator changed (+ to -, * to +, or max to
#     min; whatever the interpreter says of it);
#  2. TVM parses, builds and matches the interpreter on >= 95% of the initial programs of 24
#     catalog workloads (small shapes) drawn with std::mt19937_64(36) from the sorted names;
#  3. the CLI: exit 0 / 1 on an equivalent / a changed program, exit 2 naming the cause when the
#     Python has no TVM;
#  4. `optimize` and `build-dataset --verify-engine tvm`.
set -euo pipefail
SRC=$(cd "${1:?usage: tvm_catalog_test.sh SOURCE_DIR TVM_CATALOG_CHECK STEPTP}" && pwd)
CHECK=${2:?}
STEPTP=${3:?}
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"
bash "$SRC/scripts/setup-venv.sh" tvm

python3 - "$SRC/tests/golden/strategy" "$TMP/pairs.jsonl" <<'PY'
import json, pathlib, re, sys
root, out = pathlib.Path(sys.argv[1]), open(sys.argv[2], "w")
def mutate(body):
    for a, b in (("+", "-"), ("*", "+"), ("max(", "min(")):
        if a in body:
            return body.replace(a, b, 1)
    return None
n = 0
for case in sorted(root.glob("*/*.leir")):
    text = case.read_text()
    if "# expect-infeasible" in text or "# ---- expect" not in text:
        continue
    program = text.split("# ---- input", 1)[1].split("# ---- expect", 1)[0]
    expect = "".join(l.strip() for l in text.split("# ---- expect", 1)[1].splitlines()
                     if l.strip() and not l.lstrip().startswith("#"))
    name = f"{case.parent.name}/{case.stem}"
    out.write(json.dumps({"name": name, "original": program, "candidate": expect}) + "\n")
    n += 1
    changed = mutate(expect)
    if changed:
        out.write(json.dumps({"name": name + "~changed", "original": program,
                              "candidate": changed}) + "\n")
        n += 1
print(n, "pairs")
PY
if timeout 1200 "$CHECK" --pairs "$TMP/pairs.jsonl" >"$TMP/log" 2>&1; then
  ok "verdicts agree: $(tail -n 1 "$TMP/log")"
else
  fail "verdicts agree with the interpreter and the compiled engine"
fi

if timeout 1200 "$CHECK" --catalog "$SRC/workloads" --sample 24 --seed 36 --min-pass 0.95 \
  >"$TMP/log" 2>&1; then
  ok "catalog sample: $(grep '^passed' "$TMP/log")"
else
  fail "catalog sample: TVM matches the interpreter on >= 95%"
fi

EX=$SRC/examples
code=0
"$STEPTP" verify "$EX/softmax.leir" "$EX/softmax_online.leir" --engine tvm >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 0 ]] && grep -q "interpreter+tvm" "$TMP/log"; then
  ok "verify --engine tvm: softmax and online softmax are equivalent"
else
  fail "verify --engine tvm on softmax / online softmax: exit $code"
fi
sed 's/max(/min(/' "$EX/softmax_online.leir" >"$TMP/changed.leir"
code=0
"$STEPTP" verify "$EX/softmax.leir" "$TMP/changed.leir" --engine tvm >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 1 ]]; then ok "verify --engine tvm: a changed program is not equivalent (exit 1)"
else fail "verify --engine tvm on a changed program: exit $code, expected 1"; fi
code=0
STEPTP_TVM_PYTHON=/usr/bin/python3 "$STEPTP" verify "$EX/relu.leir" "$EX/relu.leir" --engine tvm \
  >"$TMP/log" 2>&1 || code=$?
if [[ $code -eq 2 ]] && grep -q "tvm_unavailable" "$TMP/log" && grep -q "setup-venv.sh tvm" "$TMP/log"
then ok "verify --engine tvm without TVM: exit 2, names the cause and the fix"
else fail "verify --engine tvm without TVM: exit $code, expected 2 with tvm_unavailable"; fi

# 4. The same engine under search and dataset generation: every accepted step of a search, and
#    every kept step of a build, was verified by TVM's build, and TVM keeps what the interpreter
#    keeps on a workload it can express.
code=0
"$STEPTP" optimize ReLU --shapes small --search beam --policy cost --budget 4 --max-depth 2 \
  --verify-engine tvm --quiet --out "$TMP/opt" >"$TMP/log" 2>&1 || code=$?
engine=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); \
print(r["verify_engine"], r["stats"]["accepted"])' "$TMP/opt/report.json" 2>/dev/null || true)
if [[ $code -eq 0 && $engine == "interpreter+tvm "[1-9]* ]]; then
  ok "optimize --verify-engine tvm: $engine steps accepted"
else fail "optimize --verify-engine tvm: exit $code, report says '$engine'"; fi
code=0
"$STEPTP" build-dataset --workloads ReLU --small-only --verify-engine tvm --quiet \
  --out "$TMP/ds_tvm" >"$TMP/log" 2>&1 || code=$?
"$STEPTP" build-dataset --workloads ReLU --small-only --quiet --out "$TMP/ds_int" \
  >>"$TMP/log" 2>&1 || code=$?
by_tvm=$(grep -c '"engine":"interpreter+tvm"' "$TMP/ds_tvm/archive.jsonl" || true)
steps=$(grep -c . "$TMP/ds_int/archive.jsonl" || true)
if [[ $code -eq 0 && $by_tvm -gt 0 && $by_tvm -eq $steps ]] &&
  cmp -s "$TMP/ds_tvm/single_train.jsonl" "$TMP/ds_int/single_train.jsonl"; then
  ok "build-dataset --verify-engine tvm: all $by_tvm steps verified by TVM, same samples"
else fail "build-dataset --verify-engine tvm: exit $code, $by_tvm of $steps steps by TVM"; fi
for cmd in "optimize ReLU" "build-dataset --workloads ReLU --small-only"; do
  code=0
  # shellcheck disable=SC2086
  STEPTP_TVM_PYTHON=/usr/bin/python3 "$STEPTP" $cmd --verify-engine tvm --out "$TMP/none" \
    >"$TMP/log" 2>&1 || code=$?
  if [[ $code -eq 2 ]] && grep -q "tvm_unavailable" "$TMP/log"
  then ok "${cmd%% *} --verify-engine tvm without TVM: exit 2"
  else fail "${cmd%% *} --verify-engine tvm without TVM: exit $code, expected 2"; fi
done

finish
