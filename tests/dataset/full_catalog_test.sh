#!/usr/bin/env bash
# tests/dataset/full_catalog_test.sh STEPTP SOURCE_DIR WORK_DIR — build the dataset for the whole
# catalog twice (different --jobs) and require byte-identical outputs, then re-verify 500 random
# exported samples from the JSONL alone with both engines.
set -euo pipefail
STEPTP=$1
SRC=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$SRC"
"$STEPTP" build-dataset --catalog workloads --out "$WORK/a" --seed 1 --jobs "$(nproc)" --quiet \
  --recheck 500
"$STEPTP" build-dataset --catalog workloads --out "$WORK/b" --seed 1 --jobs 1 --quiet >/dev/null
for f in single_train.jsonl single_test.jsonl multi_train.jsonl multi_test.jsonl archive.jsonl \
         stats.json stats.md strategies.svg; do
  cmp "$WORK/a/$f" "$WORK/b/$f" || { echo "FAIL: $f differs between --jobs values"; exit 1; }
done
echo "PASS: byte-identical across --jobs; recheck passed"
