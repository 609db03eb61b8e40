#!/usr/bin/env bash
# scripts/demo.sh — the main job on the bundled default: a short LEIR tour (check, run, verify one
# example), then `steptp build-dataset` over the whole bundled catalog with its statistics.
# Reruns resume from out/dataset/checkpoints; delete that folder for a fresh build.
set -euo pipefail
BUILD=${1:-build}
STEPTP="$BUILD/steptp"
OUT=${DEMO_OUT:-out/dataset}
shopt -s nullglob
examples=(examples/*.leir)
if [ ${#examples[@]} -gt 0 ]; then
  f=${examples[0]}
  echo "== LEIR tour: $f"
  # Whole outputs go to a file first: `| head` would close the pipe early, and with pipefail
  # the writer's SIGPIPE (exit 141) would fail the demo.
  tour=$(mktemp)
  trap 'rm -f "$tour"' EXIT
  "$STEPTP" check "$f"
  "$STEPTP" run "$f" --seed 1 > "$tour" && head -n 5 "$tour"
  "$STEPTP" verify "$f" "$f"
  "$STEPTP" sites "$f" > "$tour" && head -n 5 "$tour"
fi
# Real token counts when a tokenizer is at hand (STEPTP_TOKENIZER, else the shared Qwen3 one);
# without one build-dataset falls back to the bytes / 4 estimate and says so in stats.md.
# A STEPTP_TOKENIZER that does not exist is an error (build-dataset says so), not a fallback.
tokenizer_flags=()
if [ -n "${STEPTP_TOKENIZER:-}" ]; then
  tokenizer_flags=(--tokenizer "$STEPTP_TOKENIZER")
elif [ -f ../shared/data/qwen3/tokenizer.json ]; then
  tokenizer_flags=(--tokenizer ../shared/data/qwen3/tokenizer.json)
fi
echo "== build-dataset over the bundled catalog (out: $OUT)"
"$STEPTP" build-dataset --catalog workloads --out "$OUT" --seed 0 --recheck 500 \
  "${tokenizer_flags[@]}"
echo "== $OUT/stats.md (head)"
head -n 40 "$OUT/stats.md"
