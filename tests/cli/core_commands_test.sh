#!/usr/bin/env bash
# fmt / check / run / verify: exit codes, messages and hostile input.
source "$(dirname "$0")/lib.sh"
EX="$SRC/examples"

expect_exit 0 "help" -- "$STEPTP" --help
for cmd in fmt check run verify; do
  expect_exit 0 "$cmd --help" -- "$STEPTP" $cmd --help
done
expect_exit 2 "unknown subcommand" -- "$STEPTP" frobnicate
expect_exit 2 "unknown flag" -- "$STEPTP" check --bogus "$EX/relu.leir"

# fmt: canonical output is a fixed point; --check tells canonical from not.
"$STEPTP" fmt "$EX/softmax.leir" >"$TMP/canon.leir"
expect_exit 0 "fmt --check on canonical text" -- "$STEPTP" fmt --check "$TMP/canon.leir"
expect_exit 1 "fmt --check on a file with comments and line breaks" -- "$STEPTP" fmt --check "$EX/softmax.leir"
sed 's/;/ ;\n  /g' "$TMP/canon.leir" >"$TMP/spaced.leir"
"$STEPTP" fmt "$TMP/spaced.leir" >"$TMP/respaced.leir"
expect_exit 0 "whitespace and newlines are tolerated and normalised" -- cmp "$TMP/canon.leir" "$TMP/respaced.leir"
cp "$TMP/spaced.leir" "$TMP/inplace.leir"
expect_exit 0 "fmt --in-place" -- "$STEPTP" fmt --in-place "$TMP/inplace.leir"
expect_exit 0 "fmt --in-place wrote the canonical text" -- cmp "$TMP/canon.leir" "$TMP/inplace.leir"

# check
expect_exit 0 "check conv2d" -- "$STEPTP" check "$EX/conv2d_padded.leir"
expect_output "intermediate E f64[2,3,11,11]" "check lists the inferred padded shape"
expect_exit 0 "check --json" -- "$STEPTP" check --json "$EX/softmax.leir"
expect_output '"ok": true' "check --json says ok"
# check --cost: the search's static estimate (64 executions of 1 + two unit-stride accesses,
# in 4 lanes: 64 * 1.5 / 4).
printf 'input A f64[64]\noutput C f64[64]\nL^{64}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}*2+1;];\n' > "$TMP/axpb.leir"
expect_exit 0 "check --cost" -- "$STEPTP" check --cost "$TMP/axpb.leir"
expect_output "estimated cost: 24 (search cost model, 1 thread, as \`optimize --target cpu\` prices it here)" "check --cost prints the estimate"
expect_exit 0 "check --cost --json" -- "$STEPTP" check --cost --json "$TMP/axpb.leir"
expect_output '"estimated_cost": 24' "check --cost --json carries the estimate"
printf 'input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64 g}_{a};];\n' >"$TMP/bad.leir"
expect_exit 2 "check on a parse error" -- "$STEPTP" check "$TMP/bad.leir"
expect_output "bad.leir:3:" "diagnostic has file:line:col"
expect_output "expected ','" "diagnostic says what was expected"
printf 'input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=Q^{f64,g}_{a};];\n' >"$TMP/undeclared.leir"
expect_exit 2 "check on an undeclared tensor" -- "$STEPTP" check "$TMP/undeclared.leir"
expect_output "Q" "the undeclared tensor is named"
expect_exit 2 "check on a missing file" -- "$STEPTP" check "$TMP/does-not-exist.leir"
expect_exit 2 "check on a directory" -- "$STEPTP" check "$TMP"

# run
expect_exit 0 "run softmax" -- "$STEPTP" run "$EX/softmax.leir" --seed 3
expect_output "output C f64[16,128]" "run prints output statistics"
expect_exit 0 "run --json" -- "$STEPTP" run --json "$EX/matmul.leir"
expect_output '"statement_executions": 36864' "run counts statement executions"
# --harness-inputs: element k of the i-th declared input is 0.5 + ((k*2654435761 + i*97 + 12345)
# mod 1000003) / 1000003, as the CUDA harness fills it; --dump writes one %.17g value per line.
printf 'input A f64[3]\ninput B f64[3]\noutput C f64[3]\nL^{3}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}-B^{f64,g}_{a};];\n' >"$TMP/sub.leir"
expect_exit 0 "run --harness-inputs --dump" -- "$STEPTP" run "$TMP/sub.leir" --harness-inputs --dump "$TMP/sub.dump"
python3 - "$TMP/sub.dump" <<'PY' || { echo "FAIL: the dump lacks the harness inputs' result"; failures=$((failures + 1)); }
import sys
value = lambda i, k: 0.5 + ((k * 2654435761 + i * 97 + 12345) % 1000003) / 1000003
got = [float(l) for l in open(sys.argv[1])]
want = [value(0, k) - value(1, k) for k in range(3)]
sys.exit(0 if len(got) == 3 and all(abs(g - w) < 1e-15 for g, w in zip(got, want)) else 1)
PY

# verify
expect_exit 0 "verify equivalent programs" -- "$STEPTP" verify "$EX/softmax.leir" "$EX/softmax_online.leir"
expect_exit 0 "verify with the compiled C engine" -- "$STEPTP" verify --engine compiled "$EX/softmax.leir" "$EX/softmax_online.leir"
expect_output "equivalent (compiled" "the compiled engine ran"
expect_exit 0 "verify with both engines" -- "$STEPTP" verify --engine both "$EX/conv2d_padded.leir" "$EX/conv2d_padded.leir"
expect_exit 0 "verify at 100x input scale" -- "$STEPTP" verify --scale 100 "$EX/softmax.leir" "$EX/softmax_online.leir"
sed 's/max(A^{f64,g}_{tx,a},0)/max(A^{f64,g}_{tx,a},1)/' "$EX/relu.leir" >"$TMP/relu_wrong.leir"
expect_exit 1 "verify a mismatch" -- "$STEPTP" verify "$EX/relu.leir" "$TMP/relu_wrong.leir"
expect_output "mismatch" "mismatch is named"
expect_exit 1 "verify --json a mismatch" -- "$STEPTP" verify --json "$EX/relu.leir" "$TMP/relu_wrong.leir"
echo 'B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a+1},0);];' >"$TMP/oob_body.leir"
expect_exit 1 "verify a bare body that reads out of bounds" -- "$STEPTP" verify "$EX/relu.leir" "$TMP/oob_body.leir"
expect_output "out_of_bounds" "out_of_bounds is named"
expect_exit 1 "verify a candidate with a parse error" -- "$STEPTP" verify "$EX/relu.leir" "$TMP/bad.leir"
expect_exit 2 "verify with a broken original" -- "$STEPTP" verify "$TMP/bad.leir" "$EX/relu.leir"

# Hostile input: always a typed error, fast, never a crash (exit 2 for bad input, 1 for "no").
head -c 4096 /dev/urandom >"$TMP/random.bin"
expect_exit 2 "random bytes" -- "$STEPTP" check "$TMP/random.bin"
head -c 120 "$EX/matmul.leir" >"$TMP/truncated.leir"
expect_exit 2 "truncated program" -- "$STEPTP" check "$TMP/truncated.leir"
{ printf 'input A f64[4]\noutput C f64[4]\n'; printf 'L^{4}_{a=0}'; for _ in $(seq 10000); do printf '['; done; } >"$TMP/deep.leir"
expect_exit 2 "10^4-deep nesting" -- "$STEPTP" check "$TMP/deep.leir"
printf 'input A f64[4]\noutput C f64[4]\nL^{1000000}_{c=0}L^{1000000}_{d=0}L^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a};];\n' >"$TMP/huge.leir"
expect_exit 2 "10^12-iteration loop is refused by the budget" -- "$STEPTP" run "$TMP/huge.leir"
expect_output "budget_exceeded" "budget failure is named"
expect_exit 1 "10^12-iteration candidate is budget_exceeded, not a hang" -- "$STEPTP" verify "$EX/relu.leir" "$TMP/huge.leir"
# bench: the compiled engine refuses over 2e11 statements unless --max-work admits more (GCC
# folds this loop nest to one store, so admitting it costs nothing).
printf 'output C f64[1]\nL^{1000000}_{c=0}L^{300000}_{d=0}[C^{f64,g}_{0}=1;];\n' >"$TMP/wide.leir"
expect_exit 2 "bench refuses 3e11 statements by default" -- "$STEPTP" bench "$TMP/wide.leir" --repeats 1 --warmup 0
expect_output "budget_exceeded" "the refusal is named"
expect_exit 0 "bench --max-work below the work skips" -- "$STEPTP" bench "$TMP/wide.leir" --max-work 10000000000
expect_output "skipped" "the skip is named"
expect_exit 0 "bench --max-work above the work raises the engine's limit" -- "$STEPTP" bench "$TMP/wide.leir" --repeats 1 --warmup 0 --max-work 1000000000000
expect_output "median" "the admitted program is timed"
printf 'input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}*1%s;];\n' "$(printf '9%.0s' $(seq 400))" >"$TMP/literal.leir"
expect_exit 2 "huge literal" -- "$STEPTP" check "$TMP/literal.leir"

# optimize: the finalists of the search are measured again and the fastest is reported.
expect_exit 0 "optimize keeps the fastest of the re-measured finalists" -- "$STEPTP" optimize "$EX/matmul.leir" --budget 4 --repeats 1 --warmup 0 --finalists 2 --confirm-rounds 1 --json --quiet
/usr/bin/python3 - "$TMP/out" <<'PY' || { echo "FAIL: optimize --json selection"; failures=$((failures + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
sel = r["selection"]
assert sel["rounds"] == 1 and len(sel["finalists"]) == 2, sel
fastest = min(sel["finalists"], key=lambda f: f["median_ms"])
assert sel["kept"] == fastest["id"], sel
kept = [n for n in r["tree"] if n["id"] == sel["kept"]][0]
conf = r["confirmation"]
assert conf["rounds"] == 1 and conf["node"] == sel["kept"], conf
# The kept finalist is the best unless the confirmation measured it slower than the baseline;
# then the initial program is (this tiny program's timings are noise either way).
assert conf["kept"] == (conf["best_ms"] <= conf["baseline_ms"]), conf
reported = kept if conf["kept"] else r["tree"][0]
assert r["best"]["time_ms"] == reported["time_ms"], (r["best"], reported)
assert conf["kept"] or r["best"]["trace"] == [], r["best"]
PY
expect_exit 2 "optimize --finalists 0 is refused" -- "$STEPTP" optimize "$EX/matmul.leir" --finalists 0
expect_output "--finalists" "the bad flag is named"


# tokens: per-file lengths, the --max-tokens check, ids per sample, bad lines.
TOK=$SRC/tests/data/tokenizer/tiny_no_unk.json
CHAT=$SRC/tests/data/chat_sample.jsonl
expect_exit 0 "tokens summarises a chat file" -- "$STEPTP" tokens "$CHAT" --tokenizer "$TOK" --json
python3 - "$TMP/out" "$CHAT" <<'PY' || { echo "FAIL: tokens --json"; failures=$((failures + 1)); }
import json, sys
s = json.load(open(sys.argv[1]))
lines = sum(1 for l in open(sys.argv[2]) if l.strip())
f = s["files"][sys.argv[2]]
assert f["count"] == lines and s["all"]["count"] == lines, (f, lines)
assert 0 < f["p50"] <= f["max"], f
PY
expect_exit 1 "tokens --max-tokens 10: every sample is longer, exit 1" -- \
  "$STEPTP" tokens "$CHAT" --tokenizer "$TOK" --max-tokens 10
expect_output "samples over 10 tokens" "the over-budget count is printed"
expect_exit 0 "tokens --ids" -- "$STEPTP" tokens "$CHAT" --tokenizer "$TOK" --ids
python3 - "$TMP/out" <<'PY' || { echo "FAIL: tokens --ids lines"; failures=$((failures + 1)); }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows and all(r["tokens"] == len(r["ids"]) > 0 for r in rows), rows[:1]
assert [r["line"] for r in rows] == list(range(1, len(rows) + 1)), [r["line"] for r in rows]
PY
# The prompt is every turn before the final assistant turn: the same conversation cut before
# that turn, counted as a whole, has the prompt's length; answer + prompt is the total.
python3 - "$CHAT" "$TMP/prompts.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for l in open(sys.argv[1]):
        if l.strip():
            m = json.loads(l)["messages"]
            out.write(json.dumps({"messages": m[:-1]}) + "\n")
PY
expect_exit 0 "tokens --ids of the cut conversations" -- "$STEPTP" tokens "$TMP/prompts.jsonl" --tokenizer "$TOK" --ids
cp "$TMP/out" "$TMP/prompt_ids"
expect_exit 0 "tokens --ids reports prompt and answer" -- "$STEPTP" tokens "$CHAT" --tokenizer "$TOK" --ids
python3 - "$TMP/out" "$TMP/prompt_ids" <<'PY' || { echo "FAIL: tokens prompt/answer"; failures=$((failures + 1)); }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cut = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(cut) > 0
for r, c in zip(rows, cut):
    assert r["prompt_tokens"] == c["tokens"] and c["answer_tokens"] == 0, (r["line"], r["prompt_tokens"], c)
    assert r["answer_tokens"] > 0 and r["prompt_tokens"] + r["answer_tokens"] == r["tokens"], r["line"]
PY
expect_exit 0 "tokens --json has prompt and answer summaries" -- "$STEPTP" tokens "$CHAT" --tokenizer "$TOK" --json
python3 - "$TMP/out" "$CHAT" <<'PY' || { echo "FAIL: tokens --json parts"; failures=$((failures + 1)); }
import json, sys
f = json.load(open(sys.argv[1]))["files"][sys.argv[2]]
assert f["prompt"]["count"] == f["answer"]["count"] == f["count"], f
assert f["prompt"]["max"] < f["max"] and f["answer"]["max"] < f["max"], f
PY
# A build's stats give each file's prompt and answer lengths, the same as `tokens` counts them.
expect_exit 0 "build-dataset with a tokenizer" -- "$STEPTP" build-dataset --workloads ReLU \
  --small-only --tokenizer "$TOK" --quiet --out "$TMP/ds_tokens"
expect_exit 0 "tokens of the build's files" -- "$STEPTP" tokens "$TMP/ds_tokens/single_train.jsonl" \
  "$TMP/ds_tokens/multi_train.jsonl" --tokenizer "$TOK" --json
python3 - "$TMP/out" "$TMP/ds_tokens" <<'PY' || { echo "FAIL: stats prompt/answer"; failures=$((failures + 1)); }
import json, sys
counted = json.load(open(sys.argv[1]))["files"]
stats = json.load(open(sys.argv[2] + "/stats.json"))["tokens"]
for name in ("single_train", "multi_train"):
    mine, theirs = stats[name], counted[f"{sys.argv[2]}/{name}.jsonl"]
    assert mine["count"] > 0, name
    for part in ("prompt", "answer"):
        for k in ("count", "mean", "p50", "p90", "max"):
            assert mine[part][k] == theirs[part][k], (name, part, k, mine[part], theirs[part])
md = open(sys.argv[2] + "/stats.md").read()
assert "| single_train prompt |" in md and "| multi_train answer |" in md, md[:800]
PY
# Default shapes: ReLU's 16 x 16384 program is over the instance budget, so its steps are shown at
# those shapes and verified on the reduced instance; the full-shape check re-verifies a sample
# with the compiled engine, and stats give the shares per shape class.
expect_exit 0 "build-dataset with default shapes" -- "$STEPTP" build-dataset --workloads ReLU \
  --quiet --full-shape-check 4 --json --out "$TMP/ds_default"
python3 - "$TMP/out" "$TMP/ds_default" <<'PY' || { echo "FAIL: default-shape build"; failures=$((failures + 1)); }
import json, sys
st = json.load(open(sys.argv[1]))
full = st["full_shape_check"]
assert full["checked"] == 4 and full["passed"] == 4 and full["candidates"] >= 4, full
classes = st["single_by_shape_class"]
assert classes.get("small", 0) > 0 and classes.get("default, verified on the reduced instance", 0) > 0, classes
seen = 0
for line in open(sys.argv[2] + "/archive.jsonl"):
    r = json.loads(line)
    if r["instance"] == "default":
        seen += 1
        assert "f64[16,16384]" in r["declarations"], r["declarations"]
        assert r["verification"]["instance"] == "reduced", r["verification"]
        assert r["verification"]["shapes"]["dim"] < 16384, r["verification"]
    else:
        assert "instance" not in r["verification"], r["verification"]
assert seen > 0
md = open(sys.argv[2] + "/stats.md").read()
assert "## Samples by shape class" in md and "4 of 4 sampled default-shape samples pass" in md, md
# The shares at default shapes, per kind and over all kept samples, from the per-class counts.
import re
single = sum(n for c, n in classes.items() if c.startswith("default"))
multi = sum(n for c, n in st["multi_by_shape_class"].items() if c.startswith("default"))
singles, multis = sum(classes.values()), sum(st["multi_by_shape_class"].values())
m = re.search(r"Shown at KernelBench default shapes: (\d+) of (\d+) single samples .*?, (\d+) of "
              r"(\d+) multi samples .*?, (\d+) of (\d+) kept samples", md)
assert m and [int(g) for g in m.groups()] == [single, singles, multi, multis, single + multi,
                                              singles + multis], (m and m.groups(), md)
PY
# --plain: a file's whole text, no template.
printf '' >"$TMP/empty.txt"
cp "$EX/matmul.leir" "$TMP/one.leir"
cat "$EX/matmul.leir" "$EX/matmul.leir" >"$TMP/two.leir"
expect_exit 0 "tokens --plain" -- "$STEPTP" tokens --plain "$TMP/empty.txt" "$TMP/one.leir" "$TMP/two.leir" --tokenizer "$TOK" --json
python3 - "$TMP/out" "$TMP" <<'PY' || { echo "FAIL: tokens --plain"; failures=$((failures + 1)); }
import json, sys
s = json.load(open(sys.argv[1]))
n = {k.rsplit("/", 1)[1]: v["tokens"] for k, v in s["files"].items()}
assert n["empty.txt"] == 0 and 0 < n["one.leir"] < n["two.leir"] <= 2 * n["one.leir"] + 1, n
assert s["all"]["count"] == 3 and s["all"]["max"] == n["two.leir"], s["all"]
PY
printf '{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [{"role": 3}]}\n' \
  >"$TMP/bad_chat.jsonl"
expect_exit 2 "tokens on a line without string role/content" -- \
  "$STEPTP" tokens "$TMP/bad_chat.jsonl" --tokenizer "$TOK"
expect_output "bad_chat.jsonl:2" "the bad line is named"
expect_exit 2 "tokens with a file that is not a tokenizer" -- "$STEPTP" tokens "$CHAT" --tokenizer "$CHAT"


# A step with a parameter its strategy does not have is refused, naming the valid ones.
expect_exit 1 "apply with an unknown strategy parameter" -- "$STEPTP" apply "$SRC/examples/matmul.leir" \
  "loop_tiling(block=0, loops=a,c, factors=8,16, bogus=3)"
expect_output "site.unknown_parameter: loop_tiling has no parameter 'bogus' (its parameters: block, factors, loops)" \
  "the unknown key and the valid keys are named"
expect_exit 2 "build-dataset --jobs -1 is refused" -- "$STEPTP" build-dataset --jobs -1 --out "$TMP/jobs"
expect_output "--jobs" "the bad flag is named"
# A declared tensor read with another dtype than its declaration is ill-formed.
printf 'input A f64[4,8]\noutput C f64[4,8]\nB^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f16,g}_{tx,a};];\n' \
  >"$TMP/dtype.leir"
expect_exit 2 "check rejects a dtype that contradicts the declaration" -- "$STEPTP" check "$TMP/dtype.leir"
expect_output "tensor 'A' is declared f64 but referenced as f16" "the contradiction is named"


# fmt -i never deletes comments silently: it refuses, or drops them when told to.
printf '# why this program\ninput A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a};];\n' \
  >"$TMP/commented.leir"
cp "$TMP/commented.leir" "$TMP/commented.orig"
expect_exit 2 "fmt -i on a file with comments is refused" -- "$STEPTP" fmt -i "$TMP/commented.leir"
expect_output "commented.leir:1: has comments" "the comment's line is named"
expect_exit 0 "the refused file is unchanged" -- cmp "$TMP/commented.leir" "$TMP/commented.orig"
expect_exit 0 "fmt -i --drop-comments rewrites it" -- \
  "$STEPTP" fmt -i --drop-comments "$TMP/commented.leir"
expect_exit 1 "the comment is gone" -- grep -q "why this program" "$TMP/commented.leir"

# --json: a command that fails before printing anything still prints one JSON object on stdout
# ({"ok": false, "exit_code", "category", "message"}); stderr keeps the prose.
json_error() {  # json_error CATEGORY -- COMMAND...
  local want=$1
  shift 2
  "$@" >"$TMP/json_out" 2>/dev/null
  local rc=$?
  if python3 - "$TMP/json_out" "$want" "$rc" <<'PY'; then echo "ok: --json error ($want): $*"; else echo "FAIL: --json error ($want): $*"; sed 's/^/    /' "$TMP/json_out" | head -5; failures=$((failures + 1)); fi
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["ok"] is False and j["category"] == sys.argv[2] and j["exit_code"] == int(sys.argv[3]) == 2 and j["message"] else 1)
PY
}
for cmd in check run sites bench; do
  json_error io_error -- "$STEPTP" $cmd --json "$TMP/does-not-exist.leir"
done
json_error io_error -- "$STEPTP" verify --json "$TMP/does-not-exist.leir" "$EX/relu.leir"
json_error bad_flags -- "$STEPTP" workloads --json --level 9
json_error bad_flags -- "$STEPTP" strategies --json --no-such-flag
json_error bad_flags -- "$STEPTP" tokens --json "$TMP/does-not-exist.jsonl"
json_error bad_input -- "$STEPTP" build-dataset --json --workloads 'no-such-workload*' --out "$TMP/ds"
json_error io_error -- "$STEPTP" optimize --json "$TMP/does-not-exist.leir"
json_error bad_flags -- "$STEPTP" eval-single --json --data "$TMP/does-not-exist.jsonl"

finish
