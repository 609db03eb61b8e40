#!/usr/bin/env bash
# tests/python/grpo_reward_test.sh SOURCE_DIR STEPTP — examples/grpo_reward.py: TRL's GRPOTrainer
# runs 2 steps on a tiny random Qwen3-architecture model with steptp.reward as its reward
# function, on a test split that steptp builds; the same reward function gives each record's own
# answer a reward of at least 0.5 (a legal, equivalent step) and a garbage completion 0.
# Needs the `model-loop` venv group and `pip install .` into it (the extension's build folder is
# the one python_package uses, so a second install is incremental).
set -euo pipefail
SRC=$(cd "${1:?usage: grpo_reward_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=${2:?}
TOKENIZER=${TOKENIZER:-$SRC/../shared/data/qwen3}
PY=$SRC/.venv/bin/python
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"

bash "$SRC/scripts/setup-venv.sh" model-loop
(cd "$SRC" && "$PY" -m pip install -q .) >"$TMP/pip.log" 2>&1 || { tail -20 "$TMP/pip.log"; exit 1; }
"$STEPTP" build-dataset --workloads 'ReLU,Softmax' --small-only --quiet --out "$TMP/ds" >/dev/null

if (cd "$TMP" && timeout 900 "$PY" "$SRC/examples/grpo_reward.py" --data "$TMP/ds/single_train.jsonl" \
  --tokenizer "$TOKENIZER" --max-steps 2 --samples 4 --max-completion-length 32 \
  --out "$TMP/grpo") >"$TMP/log" 2>&1; then
  ok "grpo_reward.py: $(tail -n 1 "$TMP/log")"
else
  tail -20 "$TMP/log"
  fail "grpo_reward.py exited non-zero"
fi
if "$PY" - "$TMP/grpo/metrics.json" "$SRC/examples/grpo_reward.py" "$TMP/ds/single_train.jsonl" \
  >"$TMP/log" 2>&1 <<'PY'
import importlib.util, json, math, sys
m = json.load(open(sys.argv[1]))
assert m["steps"] == 2 and len(m["rewards"]) == 2, m
assert all(isinstance(r, (int, float)) and math.isfinite(r) for r in m["rewards"]), m
spec = importlib.util.spec_from_file_location("grpo_reward", sys.argv[2])
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
from steptp.dataset import read_chat
records = [r for _, r in zip(range(6), read_chat(sys.argv[3]))]
own = [[{"role": "assistant", "content": r.raw["messages"][-1]["content"]}] for r in records]
column = [json.dumps(r.raw) for r in records]
good = example.steptp_reward(own, column)
bad = example.steptp_reward([[{"role": "assistant", "content": "no answer"}]] * len(records), column)
assert all(g >= 0.5 for g in good), good
assert all(b == 0 for b in bad), bad
print(f"{len(records)} records: own answers {min(good):.2f}-{max(good):.2f}, garbage {bad[0]}")
PY
then
  ok "the trainer's reward function: $(tail -n 1 "$TMP/log")"
else
  cat "$TMP/log"
  fail "the trainer's reward function scores answers"
fi
finish
