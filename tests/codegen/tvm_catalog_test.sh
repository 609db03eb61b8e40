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
#     Python has no TVM.
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

finish
