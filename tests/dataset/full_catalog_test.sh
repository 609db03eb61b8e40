#!/usr/bin/env bash
# tests/dataset/full_catalog_test.sh STEPTP SOURCE_DIR WORK_DIR — the dataset's reproducibility
# promises on a catalog subset: (1) a build with --jobs 1 and one with --jobs 2 are
# byte-identical (ASLR on: nothing may depend on addresses or thread interleaving); (2) a build
# killed with SIGKILL midway and restarted ends with the same files; (3) 200 random exported
# samples re-verify from the JSONL alone with the interpreter and compiled C. CI runs it on the
# small-shape instances of the workloads whose names start with A or B (9 workloads, a few
# CPU-minutes); `make demo` builds the whole catalog and reports its figures.
set -euo pipefail
STEPTP=$1
SRC=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$SRC"
SUBSET=(--catalog workloads --workloads '[A-B]*' --small-only --seed 1 --quiet)
FILES=(single_train.jsonl single_test.jsonl multi_train.jsonl multi_test.jsonl archive.jsonl
       stats.json stats.md strategies.svg)
same() {  # same DIR_A DIR_B WHAT
  for f in "${FILES[@]}"; do
    cmp "$1/$f" "$2/$f" || { echo "FAIL: $f differs ($3)"; exit 1; }
  done
}

"$STEPTP" build-dataset "${SUBSET[@]}" --out "$WORK/a" --jobs 1 --recheck 200
"$STEPTP" build-dataset "${SUBSET[@]}" --out "$WORK/b" --jobs 2 >/dev/null
same "$WORK/a" "$WORK/b" "--jobs 1 against --jobs 2"

# Killed midway: SIGKILL once a few units are checkpointed, then rerun to completion.
"$STEPTP" build-dataset "${SUBSET[@]}" --out "$WORK/c" --jobs 2 >/dev/null &
pid=$!
for _ in $(seq 1 3000); do
  # (The folder may not exist yet: count through ls of a glob that may match nothing.)
  n=$(ls "$WORK/c/checkpoints" 2>/dev/null | grep -c '\.json$' || true)
  [ "$n" -ge 3 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.02
done
if kill -9 "$pid" 2>/dev/null; then killed=yes; else killed=no; fi
wait "$pid" 2>/dev/null || true
done_units=$(ls "$WORK/c/checkpoints" 2>/dev/null | grep -c '\.json$' || true)
"$STEPTP" build-dataset "${SUBSET[@]}" --out "$WORK/c" --jobs 1 >/dev/null
same "$WORK/a" "$WORK/c" "killed (kill -9 landed: $killed, $done_units units done) and resumed"
echo "PASS: byte-identical across --jobs and across a SIGKILL and resume ($done_units units" \
     "checkpointed when killed); recheck passed"
