#!/usr/bin/env bash
# tests/python/token_ids_test.sh SOURCE_DIR STEPTP — steptp's native token ids equal Hugging Face's
# on the samples of a real build. Builds a dataset from catalog workloads sampled with a stated
# seed (TOKEN_TEST_SEED, default 40; TOKEN_TEST_WORKLOADS of them, default 8), prints the ids of
# every sample of the four chat files with `steptp tokens --ids`, and compares each with the ids
# that transformers' apply_chat_template (Qwen3's own chat template, from tokenizer_config.json)
# and the `tokenizers` library give, in the project's venv. Also checks that the export's
# --max-tokens budget holds by HF's count. Environment: TOKENIZER_DIR (default
# SOURCE_DIR/../shared/data/qwen3). Prints 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:?usage: token_ids_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=${2:?usage: token_ids_test.sh SOURCE_DIR STEPTP}
TOKENIZER_DIR=${TOKENIZER_DIR:-$SRC/../shared/data/qwen3}
SEED=${TOKEN_TEST_SEED:-40}
COUNT=${TOKEN_TEST_WORKLOADS:-8}
BUDGET=2048
PY=$SRC/.venv/bin/python
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"

if [[ ! -f $TOKENIZER_DIR/tokenizer.json || ! -f $TOKENIZER_DIR/tokenizer_config.json ]]; then
  echo "token_ids_test: no tokenizer.json and tokenizer_config.json in $TOKENIZER_DIR" >&2
  exit 1
fi
bash "$SRC/scripts/setup-venv.sh" model-loop

# The workloads: a seeded sample of the catalog's names, as one comma-separated --workloads list.
workloads=$("$PY" - "$SRC/workloads/catalog.json" "$SEED" "$COUNT" <<'PY'
import json, random, sys
names = sorted(w["name"] for w in json.load(open(sys.argv[1]))["workloads"])
print(",".join(random.Random(int(sys.argv[2])).sample(names, int(sys.argv[3]))))
PY
)
echo "workloads (seed $SEED): $workloads"

if timeout 900 "$STEPTP" build-dataset --catalog "$SRC/workloads" --workloads "$workloads" \
  --out "$TMP/ds" --max-depth 2 --test-fraction 0.25 --seed "$SEED" --quiet --full-shape-check 0 \
  --tokenizer "$TOKENIZER_DIR/tokenizer.json" --max-tokens "$BUDGET" >"$TMP/log" 2>&1; then
  ok "build-dataset on $COUNT sampled workloads"
else
  fail "build-dataset on $COUNT sampled workloads"
fi

files=()
for split in single_train single_test multi_train multi_test; do files+=("$TMP/ds/$split.jsonl"); done
if "$STEPTP" tokens "${files[@]}" --tokenizer "$TOKENIZER_DIR/tokenizer.json" --ids \
  >"$TMP/ids.jsonl" 2>"$TMP/log"; then
  ok "steptp tokens --ids"
else
  fail "steptp tokens --ids"
fi

if "$PY" - "$TOKENIZER_DIR" "$TMP/ids.jsonl" "$BUDGET" "${files[@]}" >"$TMP/log" 2>&1 <<'PY'
import json, sys
import tokenizers
import transformers

tokenizer_dir, ids_file, budget, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
chat = transformers.AutoTokenizer.from_pretrained(tokenizer_dir)
bpe = tokenizers.Tokenizer.from_file(f"{tokenizer_dir}/tokenizer.json")
native = {}
for line in open(ids_file):
    r = json.loads(line)
    native[(r["file"], r["line"])] = r["ids"]
checked, mismatched, over, per_file = 0, [], 0, {}
for f in files:
    n = 0
    for number, line in enumerate(open(f), start=1):
        if not line.strip():
            continue
        n += 1
        text = chat.apply_chat_template(json.loads(line)["messages"], tokenize=False)
        want = bpe.encode(text, add_special_tokens=False).ids
        got = native.get((f, number))
        checked += 1
        over += len(want) > budget
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got or [], want)) if a != b),
                         min(len(got or []), len(want)))
            mismatched.append(f"{f}:{number}: {len(got or [])} vs {len(want)} ids, first "
                              f"difference at {first}")
    per_file[f.rsplit("/", 1)[-1]] = n
print(f"{checked} samples {per_file}")
assert len(native) == checked, f"steptp printed {len(native)} samples, the files hold {checked}"
assert checked >= 20, "too few samples to mean anything"
assert all(per_file.values()), f"an empty split: {per_file}"
assert not mismatched, f"{len(mismatched)} samples differ:\n" + "\n".join(mismatched[:10])
assert over == 0, f"{over} samples are over the export's budget of {budget} tokens by HF's count"
print(f"all {checked} identical to HF; none over {budget} tokens")
PY
then
  ok "ids identical to transformers + tokenizers: $(tail -n 1 "$TMP/log") ($(head -n 1 "$TMP/log"))"
else
  fail "ids identical to transformers + tokenizers"
fi

finish
