#!/usr/bin/env bash
# tests/python/train_smoke_test.sh [SOURCE_DIR] — the SFT smoke test: python/train_sft.py trains a
# tiny random Qwen3-architecture model on CPU on tests/data/chat_sample.jsonl with the Qwen3
# tokenizer from shared/ and must lower the loss; it also checks the user-error paths (exit 2, one
# line, no traceback). Environment: TOKENIZER (default SOURCE_DIR/../shared/data/qwen3),
# TRAIN_DATA, TRAIN_STEPS (default 50). Prints 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
TOKENIZER=${TOKENIZER:-$SRC/../shared/data/qwen3}
TRAIN_DATA=${TRAIN_DATA:-$SRC/tests/data/chat_sample.jsonl}
TRAIN_STEPS=${TRAIN_STEPS:-50}
PY=$SRC/.venv/bin/python
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"

if [[ ! -e $TOKENIZER ]]; then
  echo "train_smoke_test: no tokenizer at $TOKENIZER (set TOKENIZER)" >&2
  exit 1
fi
bash "$SRC/scripts/setup-venv.sh" model-loop

start=$(date +%s)
if timeout 600 "$PY" "$SRC/python/train_sft.py" --tiny-qwen3 --tokenizer "$TOKENIZER" \
  --data "$TRAIN_DATA" --cpu --max-steps "$TRAIN_STEPS" --max-length 1024 --batch-size 1 \
  --lr 3e-3 --seed 0 --out "$TMP/run" >"$TMP/log" 2>&1; then
  ok "train_sft.py --tiny-qwen3 ran $TRAIN_STEPS steps in $(($(date +%s) - start)) s"
else
  fail "train_sft.py --tiny-qwen3 exited non-zero"
fi
if "$PY" - "$TMP/run/metrics.json" "$TRAIN_STEPS" >"$TMP/log" 2>&1 <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for key in ("steps", "first_loss", "last_loss", "wall_seconds", "model", "samples"):
    assert key in m, f"metrics.json lacks {key}"
assert m["steps"] == int(sys.argv[2]), f"steps {m['steps']}"
print(f"{m['steps']} steps, loss {m['first_loss']:.4f} -> {m['last_loss']:.4f}, "
      f"{m['wall_seconds']:.1f} s")
assert m["last_loss"] < m["first_loss"], "the loss did not go down"
PY
then
  ok "metrics.json: $(cat "$TMP/log")"
else
  fail "metrics.json"
fi
if [[ -f $TMP/run/model/config.json && -f $TMP/run/model/tokenizer.json ]]; then
  ok "model and tokenizer saved"
else
  echo "no $TMP/run/model/config.json or tokenizer.json" >"$TMP/log"
  fail "model and tokenizer saved"
fi

# User errors: exit 2 with a one-line message and no traceback.
printf '{"id": 1}\n' >"$TMP/bad.jsonl"
expect_user_error() {
  local what=$1 want=$2 got=0
  shift 2
  timeout 120 "$PY" "$SRC/python/train_sft.py" "$@" --out "$TMP/err" >"$TMP/log" 2>&1 || got=$?
  if [[ $got -eq 2 ]] && grep -qF -- "$want" "$TMP/log" && ! grep -q Traceback "$TMP/log"; then
    ok "$what"
  else
    fail "$what: exit $got, expected 2 with '$want'"
  fi
}
expect_user_error "missing data file" "no such data file" \
  --tiny-qwen3 --tokenizer "$TOKENIZER" --data "$TMP/absent.jsonl"
expect_user_error "line without messages" "no 'messages' field" \
  --tiny-qwen3 --tokenizer "$TOKENIZER" --data "$TMP/bad.jsonl"
expect_user_error "missing tokenizer" "no such tokenizer path" \
  --tiny-qwen3 --tokenizer "$TMP/absent-tokenizer" --data "$TRAIN_DATA"

finish
