#!/usr/bin/env bash
# scripts/demo.sh — the main job on the bundled default. For now: a tour of the LEIR core over
# examples/ (format, check, run, verify each program against itself and its reformatted copy).
set -euo pipefail
BUILD=${1:-build}
STEPTP="$BUILD/steptp"
shopt -s nullglob
for f in examples/*.leir; do
  echo "== $f"
  "$STEPTP" check "$f"
  "$STEPTP" run "$f" --seed 1
  "$STEPTP" verify "$f" "$f"
done
