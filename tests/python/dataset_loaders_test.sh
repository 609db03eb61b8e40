#!/usr/bin/env bash
# tests/python/dataset_loaders_test.sh SOURCE_DIR STEPTP — the export loads in a peer trainer's
# own dataset loader, unchanged: builds a small dataset with steptp (Qwen3 token budget 10,240),
# points LLaMA-Factory's get_dataset at the output folder (dataset_dir) and loads each of the four
# entries of the dataset_info.json that build-dataset wrote, with template qwen3, cutoff_len 10240
# and the Qwen3 tokenizer. Checks that every line loads, that the supervised labels are exactly
# the assistant turn (so nothing was cut), and that the prompt holds the user turn verbatim.
# LLaMA-Factory's pinned stack conflicts with the model-loop group, so it has its own venv
# (STEPTP_FORMATS_VENV, default SOURCE_DIR/.cache/venv-formats, made by scripts/setup-venv.sh
# formats). Environment: TOKENIZER_DIR (default SOURCE_DIR/../shared/data/qwen3).
# Prints 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:?usage: dataset_loaders_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=${2:?usage: dataset_loaders_test.sh SOURCE_DIR STEPTP}
TOKENIZER_DIR=${TOKENIZER_DIR:-$SRC/../shared/data/qwen3}
VENV=${STEPTP_FORMATS_VENV:-$SRC/.cache/venv-formats}
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"

if [[ ! -f $TOKENIZER_DIR/tokenizer.json || ! -f $TOKENIZER_DIR/tokenizer_config.json ]]; then
  echo "dataset_loaders_test: no tokenizer.json and tokenizer_config.json in $TOKENIZER_DIR" >&2
  exit 1
fi
STEPTP_VENV=$VENV bash "$SRC/scripts/setup-venv.sh" formats

if timeout 600 "$STEPTP" build-dataset --catalog "$SRC/workloads" \
  --workloads 'LogSoftmax,ReLU,Matmul_GELU_Softmax' --out "$TMP/ds" --max-depth 2 \
  --test-fraction 0.34 --seed 3 --quiet --full-shape-check 0 \
  --tokenizer "$TOKENIZER_DIR/tokenizer.json" --max-tokens 10240 >"$TMP/log" 2>&1; then
  ok "build-dataset wrote $(ls "$TMP/ds" | tr '\n' ' ')"
else
  fail "build-dataset"
fi

# Offline: everything is local, and nothing may reach a hub.
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 DISABLE_VERSION_CHECK=1
for entry in steptp_single_train steptp_single_test steptp_multi_train steptp_multi_test; do
  if (cd "$TMP" && timeout 600 "$VENV/bin/python" - "$TMP/ds" "$entry" "$TOKENIZER_DIR" \
    "$TMP/out-$entry" >"$TMP/log" 2>&1) <<'PY'
import json, sys
from llamafactory.data import get_dataset, get_template_and_fix_tokenizer
from llamafactory.hparams import get_train_args
from llamafactory.model import load_tokenizer

data_dir, entry, tokenizer_dir, out_dir = sys.argv[1:5]
info = json.load(open(f"{data_dir}/dataset_info.json"))
assert entry in info, f"dataset_info.json has no {entry}: {sorted(info)}"
args = dict(model_name_or_path=tokenizer_dir, stage="sft", do_train=True, finetuning_type="full",
            dataset=entry, dataset_dir=data_dir, template="qwen3", cutoff_len=10240,
            output_dir=out_dir, overwrite_cache=True, report_to="none", use_cpu=True,
            preprocessing_num_workers=1)
model_args, data_args, training_args, _, _ = get_train_args(args)
tok = load_tokenizer(model_args)
template = get_template_and_fix_tokenizer(tok["tokenizer"], data_args)
train = get_dataset(template, model_args, data_args, training_args, stage="sft", **tok)["train_dataset"]

rows = [json.loads(l) for l in open(f"{data_dir}/{info[entry]['file_name']}") if l.strip()]
assert rows, "the split is empty"
assert len(train) == len(rows), f"{len(train)} rows loaded of {len(rows)} lines"
decode = tok["tokenizer"].decode
mismatch = []
for i, (row, want) in enumerate(zip(train, rows)):
    target = decode([t for t in row["labels"] if t != -100], skip_special_tokens=True)
    if target.strip() != want["messages"][-1]["content"].strip():
        mismatch.append(i)
assert not mismatch, f"labels differ from the assistant turn on rows {mismatch[:5]}"
prompt = decode(train[0]["input_ids"])
assert rows[0]["messages"][1]["content"] in prompt, "the user turn is not in the prompt verbatim"
longest = max(len(r["input_ids"]) for r in train)
print(f"{len(rows)} rows, labels = assistant turns, longest {longest} tokens")
PY
  then
    ok "LLaMA-Factory loads $entry: $(tail -n 1 "$TMP/log")"
  else
    fail "LLaMA-Factory loads $entry"
  fi
done

finish
