#!/usr/bin/env bash
# bench/dataset/run_shard_throughput.sh STEPTP [OUT] — verified steps per second of one dataset
# build (a seeded sample of the catalog: SHARD_BENCH_SEED, default 40; SHARD_BENCH_WORKLOADS of
# them, default 32; default build-dataset options otherwise) run four ways, one after another:
# one process with --jobs 1 and --jobs 2, and python/ray_build.py on a new local Ray instance
# with 1 and 2 shards of one CPU each. Prints a Markdown table (wall and CPU seconds; Ray's CPU
# seconds are the shard processes' own, without Ray's) with the 1-minute load average
# before and after each run (on a shared machine other work competes for the same cores), then
# which runs wrote files byte-identical to the 2-shard one.
set -euo pipefail
STEPTP=$(realpath "${1:?usage: run_shard_throughput.sh STEPTP [OUT]}")
OUT=${2:-out/shard-throughput}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=$ROOT/.venv/bin/python
SEED=${SHARD_BENCH_SEED:-40}
COUNT=${SHARD_BENCH_WORKLOADS:-32}
bash "$ROOT/scripts/setup-venv.sh" ray >&2
rm -rf "$OUT" && mkdir -p "$OUT"

workloads=$("$PY" - "$ROOT/workloads/catalog.json" "$SEED" "$COUNT" <<'PY'
import json, random, sys
names = sorted(w["name"] for w in json.load(open(sys.argv[1]))["workloads"])
print(",".join(random.Random(int(sys.argv[2])).sample(names, int(sys.argv[3]))))
PY
)
build=(--workloads "$workloads" --seed "$SEED")
load() { cut -d' ' -f1 /proc/loadavg; }
verified() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

echo "catalog sample: seed $SEED, $COUNT workloads; $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo
echo "| run | workers | wall s | verified steps | verified/s | CPU s | verified/CPU-s | load before | load after |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for jobs in 1 2; do
  before=$(load)
  start=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$OUT/jobs$jobs.time" "$STEPTP" build-dataset "${build[@]}" \
    --jobs "$jobs" --quiet --json --out "$OUT/jobs$jobs" >"$OUT/jobs$jobs.json"
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  cpu=$(awk '{print $1 + $2}' "$OUT/jobs$jobs.time")
  v=$(verified "$OUT/jobs$jobs.json" verified)
  printf '| build-dataset --jobs %s | %s | %.1f | %s | %.1f | %.1f | %.1f | %s | %s |\n' "$jobs" \
    "$jobs" "$wall" "$v" "$(echo "$v / $wall" | bc -l)" "$cpu" "$(echo "$v / $cpu" | bc -l)" \
    "$before" "$(load)"
done
for shards in 1 2; do
  before=$(load)
  RAY_ADDRESS= "$PY" "$ROOT/python/ray_build.py" --steptp "$STEPTP" --shards "$shards" \
    --address local --num-cpus 2 --out "$OUT/ray$shards" --json -- "${build[@]}" \
    >"$OUT/ray$shards.json" 2>"$OUT/ray$shards.log"
  r=$OUT/ray$shards.json
  printf '| ray_build.py --shards %s (local Ray) | %s | %.1f | %s | %.1f | %.1f | %.1f | %s | %s |\n' \
    "$shards" "$shards" "$(verified "$r" wall_seconds)" "$(verified "$r" verified)" \
    "$(verified "$r" verified_per_second)" "$(verified "$r" shard_cpu_seconds)" \
    "$(verified "$r" verified_per_cpu_second)" "$before" "$(load)"
done
# Every run against the 2-shard one: which of the 9 files differ.
echo
for run in jobs1 jobs2 ray1; do
  differ=()
  for f in single_train.jsonl single_test.jsonl multi_train.jsonl multi_test.jsonl archive.jsonl \
    stats.json stats.md strategies.svg dataset_info.json; do
    cmp -s "$OUT/$run/$f" "$OUT/ray2/$f" || differ+=("$f")
  done
  if ((${#differ[@]} == 0)); then
    echo "- $run: byte-identical to ray2 (9 files)"
  else
    echo "- $run: differs from ray2 in ${differ[*]}"
  fi
done
