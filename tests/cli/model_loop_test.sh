#!/usr/bin/env bash
# The model loop with the fake server: eval-single reads every split build-dataset writes, the
# oracle scores 100%, a random legal step scores exactly what an independent count says, dead
# endpoints fail fast, and optimize --policy llm checks its inputs before searching.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

# Free loopback ports, one per fake server.
port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
start_fake() {  # start_fake PORT ARGS... — waits until the port answers
  local p=$1
  shift
  "$STEPTP" fake-llm --port "$p" "$@" 2>"$TMP/fake_$p.log" &
  pids+=($!)
  for _ in $(seq 100); do
    $PY -c "import socket; socket.create_connection(('127.0.0.1',$p),0.2)" 2>/dev/null && return
    sleep 0.1
  done
  echo "FAIL: fake-llm on $p did not start"; cat "$TMP/fake_$p.log"; failures=$((failures + 1))
}
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT

expect_exit 0 "build a small dataset" -- "$STEPTP" build-dataset --workloads '*Softmax' \
  --out "$TMP/ds" --quiet --test-fraction 0.5 --max-depth 1 --small-only

# 1. The built-in oracle scores 100% on every split, read as written.
for split in single_train single_test multi_train multi_test; do
  p=$(port)
  start_fake "$p" --data "$TMP/ds/$split.jsonl"
  expect_exit 0 "eval-single on $split" -- "$STEPTP" eval-single --data "$TMP/ds/$split.jsonl" \
    --endpoint "http://127.0.0.1:$p/v1" --model fake --quiet --json
  expect_output '"accuracy": 1.0' "the oracle scores 100% on $split"
done

# 2. A random legal step: eval's count of correct answers equals an independent count of the
# transcript's answers that are one of the prompt's reference (strategy, program) pairs.
p=$(port)
start_fake "$p" --answers random-legal --seed 7
expect_exit 0 "eval-single against random legal steps" -- "$STEPTP" eval-single \
  --data "$TMP/ds/single_test.jsonl" --endpoint "http://127.0.0.1:$p/v1" --model fake --quiet \
  --json --transcript "$TMP/random.jsonl"
cp "$TMP/out" "$TMP/random_report.json"
$PY - "$TMP/ds/single_test.jsonl" "$TMP/random.jsonl" "$TMP/random_report.json" >"$TMP/out" 2>&1 <<'EOF'
import json, re, sys
refs = {}
for line in open(sys.argv[1]):
    m = json.loads(line)["messages"]
    a = json.loads(re.search(r"<answer>(.*)</answer>", m[2]["content"], re.S).group(1))
    refs.setdefault(m[1]["content"], set()).add((a["applied_strategy"], a["transformed_IR"]))
correct = lines = 0
for line in open(sys.argv[2]):
    t = json.loads(line)
    lines += 1
    assert "usage" in t and t["usage"]["total_tokens"] >= 0, "a transcript line lacks usage"
    user = t["request"]["messages"][-1]["content"]
    content = t["response"]["choices"][0]["message"]["content"]
    a = json.loads(re.search(r"<answer>(.*)</answer>", content, re.S).group(1))
    correct += (a["applied_strategy"], a["transformed_IR"]) in refs[user]
report = json.load(open(sys.argv[3]))
assert lines == len(refs) == report["questions"], (lines, len(refs), report["questions"])
assert report["rates"]["legal_rate"] == 1.0, report["rates"]
assert report["correct"] == correct, (report["correct"], correct)
assert 0 < correct < lines, "a random legal step should be right sometimes, not always"
print(f"random legal steps: {correct}/{lines} correct, as counted independently")
EOF
if grep -q "as counted independently" "$TMP/out"; then cat "$TMP/out"; else
  echo "FAIL: random-legal count"; cat "$TMP/out"; failures=$((failures + 1)); fi

# 3. Dead endpoints and unknown models fail within seconds (lib.sh allows 20 s) with one line
# naming the endpoint.
expect_exit 2 "eval-single with nothing listening" -- "$STEPTP" eval-single \
  --data "$TMP/ds/single_test.jsonl" --endpoint http://127.0.0.1:1 --model fake --quiet
expect_output "http://127.0.0.1:1/v1" "the error names the endpoint"
expect_exit 2 "eval-single with an unknown model" -- "$STEPTP" eval-single \
  --data "$TMP/ds/single_test.jsonl" --endpoint "http://127.0.0.1:$p/v1" --model gpt-9 --quiet
expect_output "llm_unknown_model" "an unknown model is named"
expect_exit 2 "optimize --policy llm with nothing listening" -- "$STEPTP" optimize \
  "$SRC/examples/relu.leir" --policy llm --endpoint http://127.0.0.1:1 --model fake --budget 2
expect_output "http://127.0.0.1:1/v1" "optimize names the endpoint"

# 4. optimize checks --out and the start program before it searches.
expect_exit 2 "optimize with an unwritable --out" -- "$STEPTP" optimize "$SRC/examples/relu.leir" \
  --policy llm --endpoint "http://127.0.0.1:$p/v1" --model fake --out /proc/no/such/dir
printf 'input A f64[4]\noutput C f64[4]\nB^{2}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];\n' \
  >"$TMP/incomplete.leir"
expect_exit 2 "optimize of a start program that leaves its output incomplete" -- \
  "$STEPTP" optimize "$TMP/incomplete.leir" --policy cost --budget 2 --quiet
expect_output "incomplete_output" "the start program's failure is named"

# 5. optimize --policy llm end to end: the trace lists the applied step beside the claim.
expect_exit 0 "optimize with random legal steps" -- "$STEPTP" optimize "$SRC/examples/relu.leir" \
  --search greedy --policy llm --endpoint "http://127.0.0.1:$p/v1" --model fake --budget 4 \
  --repeats 2 --warmup 0 --confirm-rounds 0 --finalists 1 --out "$TMP/opt" \
  --transcript "$TMP/opt.jsonl"
expect_output "policy calls" "optimize prints progress"
$PY - "$TMP/opt/report.json" "$TMP/opt.jsonl" >"$TMP/out" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
assert len(lines) >= r["stats"]["policy_calls"] >= 1, (len(lines), r["stats"])
claimed = [s for s in r["steps"] if "claim" in s]
assert all(s["claim"].startswith("llm:") and "(" in s["step"] for s in claimed), r["steps"]
print("optimize trace ok:", [(s["step"], s.get("claim")) for s in r["steps"]])
EOF
if grep -q "optimize trace ok" "$TMP/out"; then cat "$TMP/out"; else
  echo "FAIL: optimize report"; cat "$TMP/out"; failures=$((failures + 1)); fi

finish
