#!/usr/bin/env bash
# steptp finds its catalog and Python helpers wherever it is run from: the working directory does
# not matter, --catalog and $STEPTP_WORKLOADS_DIR win, an install tree carries its own data, and
# a catalog that is not there is a clear bad-input error.
source "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$STEPTP")
real() { realpath -m "$1"; }

# From a folder with no workloads/ in it: the source tree's catalog.
cd "$TMP"
expect_exit 0 "workloads --path outside the checkout" -- "$STEPTP" workloads --path
[[ $(real "$(cat "$TMP/out")") == $(real "$SRC/workloads") ]] ||
  { echo "FAIL: found $(cat "$TMP/out"), expected $SRC/workloads"; failures=$((failures + 1)); }
expect_exit 0 "build-dataset outside the checkout" -- "$STEPTP" build-dataset --workloads ReLU \
  --out "$TMP/ds" --small-only --max-depth 1 --quiet
[[ -s "$TMP/ds/single_train.jsonl" ]] || { echo "FAIL: no dataset written"; failures=$((failures + 1)); }
expect_exit 0 "bench of a catalog workload outside the checkout" -- "$STEPTP" bench ReLU \
  --shapes small --repeats 1 --warmup 0
expect_exit 0 "optimize of a catalog workload outside the checkout" -- "$STEPTP" optimize ReLU \
  --shapes small --budget 2 --repeats 1 --warmup 0 --quiet

# The flag and the variable win over the search.
mkdir -p "$TMP/copy"
cp -r "$SRC/workloads/catalog.json" "$SRC/workloads/graphs" "$TMP/copy/"
expect_exit 0 "STEPTP_WORKLOADS_DIR" -- env STEPTP_WORKLOADS_DIR="$TMP/copy" "$STEPTP" workloads --path
expect_output "$TMP/copy" "the variable's folder is used"
expect_exit 0 "--catalog" -- "$STEPTP" workloads --path --catalog "$TMP/copy"
expect_output "$TMP/copy" "the flag's folder is used"

# A catalog that is not there: exit 2, naming the folder, on every command that reads it.
expect_exit 2 "workloads --catalog missing" -- "$STEPTP" workloads --catalog "$TMP/nowhere"
expect_output "$TMP/nowhere" "the missing folder is named"
expect_exit 2 "build-dataset --catalog missing" -- "$STEPTP" build-dataset --catalog "$TMP/nowhere" \
  --out "$TMP/ds2" --quiet
expect_output "$TMP/nowhere" "the missing folder is named"
expect_exit 2 "optimize --catalog missing" -- "$STEPTP" optimize ReLU --catalog "$TMP/nowhere" --quiet
expect_exit 2 "bench --catalog missing" -- "$STEPTP" bench ReLU --catalog "$TMP/nowhere"

# An install tree: the installed binary, run from /, uses the installed data.
expect_exit 0 "cmake --install" -- cmake --install "$BUILD" --prefix "$TMP/prefix"
cd /
expect_exit 0 "the installed steptp finds its data" -- "$TMP/prefix/bin/steptp" workloads --path
expect_output "$TMP/prefix/share/steptp/workloads" "the installed catalog is used"
expect_exit 0 "the installed steptp imports with the installed tracer" -- \
  "$TMP/prefix/bin/steptp" import "$SRC/workloads/level1/ReLU.py" -o "$TMP/relu.leir"
expect_exit 0 "the imported program checks" -- "$TMP/prefix/bin/steptp" check "$TMP/relu.leir"
finish
