#!/usr/bin/env bash
# tests/python/dataset_loaders_test.sh [SOURCE_DIR] — loads steptp's chat JSONL through a peer
# trainer's own dataset loader: LLaMA-Factory's get_dataset (sharegpt formatting, "messages"
# column, declared in a dataset_info.json) with its qwen3 template and the Qwen3 tokenizer, and
# checks that every line loads and that the supervised labels are exactly the assistant turns.
# Its pinned stack conflicts with the model-loop group, so it has its own venv
# (STEPTP_FORMATS_VENV, default SOURCE_DIR/.cache/venv-formats, made by scripts/setup-venv.sh).
# Environment: CHAT_DATA (default tests/data/chat_sample.jsonl), TOKENIZER (a tokenizer dir;
# default SOURCE_DIR/../shared/data/qwen3). Prints 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
CHAT_DATA=${CHAT_DATA:-$SRC/tests/data/chat_sample.jsonl}
TOKENIZER=${TOKENIZER:-$SRC/../shared/data/qwen3}
VENV=${STEPTP_FORMATS_VENV:-$SRC/.cache/venv-formats}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for f in "$CHAT_DATA" "$TOKENIZER"; do
  [[ -e $f ]] || { echo "dataset_loaders_test: no $f" >&2; exit 1; }
done
STEPTP_VENV=$VENV bash "$SRC/scripts/setup-venv.sh" formats

# The layout LLaMA-Factory reads: a folder with the data file and its dataset_info.json entry.
mkdir -p "$TMP/data"
cp "$CHAT_DATA" "$TMP/data/single_train.jsonl"
cat >"$TMP/data/dataset_info.json" <<'JSON'
{"steptp_single": {"file_name": "single_train.jsonl", "formatting": "sharegpt",
  "columns": {"messages": "messages"},
  "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user",
           "assistant_tag": "assistant", "system_tag": "system"}}}
JSON

# Offline: everything is local, and nothing may reach a hub.
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 DISABLE_VERSION_CHECK=1
cd "$TMP"
timeout 600 "$VENV/bin/python" - "$TMP/data" "$TOKENIZER" "$TMP/out" <<'PY'
import json, sys
from llamafactory.data import get_dataset, get_template_and_fix_tokenizer
from llamafactory.hparams import get_train_args
from llamafactory.model import load_tokenizer

data_dir, tokenizer_dir, out_dir = sys.argv[1:4]
args = dict(model_name_or_path=tokenizer_dir, stage="sft", do_train=True, finetuning_type="full",
            dataset="steptp_single", dataset_dir=data_dir, template="qwen3", cutoff_len=4096,
            output_dir=out_dir, overwrite_cache=True, report_to="none", use_cpu=True)
model_args, data_args, training_args, _, _ = get_train_args(args)
tok = load_tokenizer(model_args)
template = get_template_and_fix_tokenizer(tok["tokenizer"], data_args)
train = get_dataset(template, model_args, data_args, training_args, stage="sft", **tok)["train_dataset"]

rows = [json.loads(l) for l in open(f"{data_dir}/single_train.jsonl") if l.strip()]
passed = failed = 0
def check(ok, what):
    global passed, failed
    print(("ok: " if ok else "FAIL: ") + what)
    passed, failed = passed + ok, failed + (not ok)

check(len(train) == len(rows), f"all {len(rows)} lines load ({len(train)} rows)")
decode = tok["tokenizer"].decode
mismatch = []
for i, (row, want) in enumerate(zip(train, rows)):
    target = decode([t for t in row["labels"] if t != -100], skip_special_tokens=True)
    answer = want["messages"][-1]["content"]
    if target.strip() != answer.strip():
        mismatch.append(i)
check(not mismatch, f"labels are the assistant turn on every row (mismatch: {mismatch[:5]})")
prompt = decode(train[0]["input_ids"])
check(rows[0]["messages"][1]["content"] in prompt, "the user turn is in the prompt verbatim")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
