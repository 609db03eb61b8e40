#!/usr/bin/env bash
# tests/dataset/full_catalog_test.sh STEPTP SOURCE_DIR WORK_DIR — build the dataset twice and require byte-identical outputs, then re-verify 200 random exported
# samples from the JSONL alone with both engines. CI runs it on the small-shape instances of the
# catalog workloads whose names start with A or B (9 workloads, a few CPU-minutes) so the whole
# suite fits CI's time limit; `make demo` builds the whole catalog and reports its figures.
set -euo pipefail
STEPTP=$1
SRC=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$SRC"
SUBSET=(--catalog workloads --workloads '[A-B]*' --small-only --seed 1 --quiet)
# Known gap (issue 7): GiNaC orders terms partly by object addresses, so the algebraic
# strategies' output depends on address-space layout and thread interleaving. Until the algebra
# layer canonicalises its output, this test pins both (one worker, ASLR off via setarch -R).
NOASLR=(setarch "$(uname -m)" -R)
"${NOASLR[@]}" "$STEPTP" build-dataset "${SUBSET[@]}" --out "$WORK/a" --jobs 1 --recheck 200
"${NOASLR[@]}" "$STEPTP" build-dataset "${SUBSET[@]}" --out "$WORK/b" --jobs 1 >/dev/null
for f in single_train.jsonl single_test.jsonl multi_train.jsonl multi_test.jsonl archive.jsonl \
         stats.json stats.md strategies.svg; do
  cmp "$WORK/a/$f" "$WORK/b/$f" || { echo "FAIL: $f differs between two identical runs"; exit 1; }
done
echo "PASS: byte-identical across runs; recheck passed"
