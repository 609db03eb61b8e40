#!/usr/bin/env bash
# build-dataset --shard K/N and merge-dataset: two shards merged write every file byte-identical
# to a one-process build with the same seed and options; bad --shard values, overlapping parts,
# a missing shard and parts built with another seed are refused with exit 2, naming the culprit.
source "$(dirname "$0")/lib.sh"

# A few small workloads, default shapes included, a small budget and a 2-sample full-shape check
# (each sample compiles two kernels): seconds, not minutes.
build=(build-dataset --workloads 'ELU,GELU,Softsign,FrobeniusNorm,Argmax_over_a_dimension'
  --max-depth 1 --max-sites 2 --max-sites-easy 1 --test-fraction 0.4 --jobs 2 --quiet
  --full-shape-check 2)

expect_exit 0 "one-process build" -- "$STEPTP" "${build[@]}" --seed 3 --out "$TMP/whole"
for k in 0 1; do
  expect_exit 0 "shard $k/2" -- "$STEPTP" "${build[@]}" --seed 3 --shard "$k/2" \
    --out "$TMP/part$k"
done
expect_output "shard 1/2 · units" "a shard reports its share of the units"
if compgen -G "$TMP/part0/*.jsonl" >/dev/null; then
  echo "FAIL: a shard wrote merged files"
  failures=$((failures + 1))
fi

expect_exit 0 "merge-dataset of both shards" -- "$STEPTP" merge-dataset "$TMP/part0" \
  "$TMP/part1" --out "$TMP/merged" --json
expect_output '"resumed_units"' "merge-dataset --json prints the statistics"
identical=0
for f in single_train.jsonl single_test.jsonl multi_train.jsonl multi_test.jsonl archive.jsonl \
  stats.json stats.md strategies.svg dataset_info.json; do
  if [[ -s $TMP/whole/$f ]] && cmp -s "$TMP/whole/$f" "$TMP/merged/$f"; then
    identical=$((identical + 1))
  else
    echo "FAIL: merged $f differs from the one-process build's (or is empty)"
    failures=$((failures + 1))
  fi
done
echo "ok: $identical of 9 merged files byte-identical to the one-process build's"

expect_exit 0 "merge-dataset --help" -- "$STEPTP" merge-dataset --help
expect_output "--tokenizer" "merge-dataset --help lists its flags"
expect_exit 0 "build-dataset --help" -- "$STEPTP" build-dataset --help
expect_output "--shard" "build-dataset --help lists --shard"

# Bad --shard values.
for bad in 2/2 3/2 1/0 -1/2 abc 1 1/2/3; do
  expect_exit 2 "--shard $bad is refused" -- "$STEPTP" "${build[@]}" --shard "$bad" \
    --out "$TMP/bad"
  expect_output "--shard '$bad'" "the refusal of --shard $bad quotes it"
done
expect_exit 2 "--shard with --recheck is refused" -- "$STEPTP" "${build[@]}" --shard 0/2 \
  --recheck 5 --out "$TMP/bad"

# Bad sets of parts.
expect_exit 2 "overlapping parts" -- "$STEPTP" merge-dataset "$TMP/part0" "$TMP/part1" \
  "$TMP/part0" --out "$TMP/m1"
expect_output "the parts overlap" "overlapping parts name the unit in both"
expect_exit 2 "a missing shard" -- "$STEPTP" merge-dataset "$TMP/part0" --out "$TMP/m2"
expect_output "shard 1/2 is missing" "a missing shard is named"
expect_exit 0 "shard 1/2 with another seed" -- "$STEPTP" "${build[@]}" --seed 4 --shard 1/2 \
  --out "$TMP/other_seed"
expect_exit 2 "parts with different seeds" -- "$STEPTP" merge-dataset "$TMP/part0" \
  "$TMP/other_seed" --out "$TMP/m3"
expect_output "$TMP/other_seed was built with other settings" "the odd part is named"
expect_output "seed: 4 vs 3" "the differing setting is named"
expect_exit 2 "a folder that is no part" -- "$STEPTP" merge-dataset "$TMP/part0" "$TMP/whole" \
  --out "$TMP/m4"
expect_output "no shard.json" "a folder without a manifest is named"
expect_exit 2 "merge-dataset without --out" -- "$STEPTP" merge-dataset "$TMP/part0"

finish
