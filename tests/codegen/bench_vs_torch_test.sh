#!/usr/bin/env bash
# tests/codegen/bench_vs_torch_test.sh STEPTP SOURCE_DIR — `steptp bench` from the shell: a .leir
# file, a catalog workload against PyTorch eager (small shapes, so it is quick), the work limit,
# and the bad-input exits. Needs /usr/bin/python3 with torch.
set -euo pipefail
steptp=$1
cd "$2"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$steptp" bench examples/argmax.leir --repeats 2 --json > "$tmp/leir.json" || fail "bench .leir"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['median_ms'] >= 0 and j['repeats'] == 2" \
  "$tmp/leir.json" || fail "bench .leir JSON"

rc=0; "$steptp" bench examples/argmax.leir --vs-torch > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--vs-torch on a .leir file should exit 2, got $rc"
rc=0; "$steptp" bench No_such_workload > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "unknown workload should exit 2, got $rc"

"$steptp" bench Square_matrix_multiplication --max-work 1 --json > "$tmp/skip.json" || fail "--max-work"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert 'skipped' in j and j['static_work'] == 1024**3, j" \
  "$tmp/skip.json" || fail "--max-work JSON"

"$steptp" bench Square_matrix_multiplication --shapes small --vs-torch --threads 1 --repeats 3 \
  --json > "$tmp/torch.json" || fail "bench --vs-torch"
python3 - "$tmp/torch.json" <<'PY' || fail "bench --vs-torch JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["instance"] == "small" and j["dtype"] == "f64", j
assert j["torch"]["median_ms"] > 0 and j["torch"]["threads"] == 1, j
assert abs(j["ratio_c_over_torch"] - j["median_ms"] / j["torch"]["median_ms"]) < 1e-9, j
assert j["torch"]["blas"]["kind"] in ("OpenBLAS", "MKL", "reference", "unknown"), j
PY
"$steptp" bench Square_matrix_multiplication --shapes small --vs-torch --repeats 2 \
  | grep -q "ratio naive C / PyTorch" || fail "text output has no ratio"
echo "bench_vs_torch_test: ok"
