#!/usr/bin/env bash
# bench/search/run_search_cpu.sh — `steptp optimize` (beam search, cost policy) on catalog
# workloads of levels 1 and 2, on this machine's CPU: the speedup of the best verified program
# over the naive compiled C, and over PyTorch eager (same threads, same dtype). Writes the raw
# reports (JSON lines) and docs/bench/search_cpu.md (render_search_cpu.py).
#
# Shapes: `--shapes auto` — a workload's default shapes when their static work is at most
# --work-limit statement executions, else its small shapes (the report says which). Workloads
# alternate between the levels, so a run cut short by --budget-s still covers both.
#
# Usage: bench/search/run_search_cpu.sh [--steptp BIN] [--count N] [--budget N] [--max-depth N] [--threads N]
#          [--beam-width N] [--proposals N] [--work-limit N] [--repeats N] [--warmup N] [--budget-s S]
#          [--only REGEX] [--set FILE] [--confirm-rounds N] [--finalists N] [--results FILE] [--doc FILE]
#          [--note TEXT] [--shard K/N]
#   --set FILE: run exactly the workloads listed in FILE (one per line, '#' comments), in that
#   order, instead of the first --count of the catalog (bench/search/benchmark_set.txt is the
#   set chosen by make_benchmark_set.py); --only filters it too.
#   --shard K/N: run only the workloads at positions K-1, K-1+N, K-1+2N, … of the list (1 ≤ K ≤ N),
#   so that N runners (one per core) share a set; merge_shards.py joins their results in the
#   set's order and renders the doc. Concurrent shards contend for memory bandwidth and cache.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
steptp="$root/build/steptp"
count=30
budget=12
max_depth=8  # steptp optimize's default
threads=1
beam_width=2
proposals=3
work_limit=100000000
repeats=5
warmup=1
budget_s=3600
only=""
set_file=""
confirm_rounds=3
finalists=3
note=""
shard="1/1"
results="$root/bench/search/results/search_cpu.jsonl"
doc="$root/docs/bench/search_cpu.md"
command_line="bench/search/run_search_cpu.sh $*"

while (($#)); do
  case "$1" in
    --steptp) steptp=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --max-depth) max_depth=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --beam-width) beam_width=$2; shift 2 ;;
    --proposals) proposals=$2; shift 2 ;;
    --work-limit) work_limit=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --budget-s) budget_s=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --set) set_file=$2; shift 2 ;;
    --shard) shard=$2; shift 2 ;;
    --confirm-rounds) confirm_rounds=$2; shift 2 ;;
    --finalists) finalists=$2; shift 2 ;;
    --note) note=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --doc) doc=$2; shift 2 ;;
    *) echo "run_search_cpu: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $shard =~ ^([0-9]+)/([0-9]+)$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= BASH_REMATCH[2])) \
  || { echo "run_search_cpu: --shard wants K/N with 1 <= K <= N, got '$shard'" >&2; exit 2; }
shard_k=${BASH_REMATCH[1]}
shard_n=${BASH_REMATCH[2]}
[[ -x $steptp ]] || { echo "run_search_cpu: no steptp binary at $steptp (--steptp)" >&2; exit 2; }
cd "$root"
mkdir -p "$(dirname "$results")" "$(dirname "$doc")"
: > "$results"
reports="$results.reports"
rm -rf "$reports"
mkdir -p "$reports"

facts_file="$results.facts"
{
  echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu_model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)"
  # "AMD EPYC" names several generations; the kernels' speed depends on which (AVX-512 or not).
  echo "cpu_id=family $(sed -n 's/^cpu family[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1) model $(sed -n 's/^model[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1), AVX-512 $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
  echo "cores=$(nproc)"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "compiler=$(${STEPTP_CC:-cc} --version | head -1)"
  echo "torch=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  echo "command=$command_line"
  echo "optimize=steptp optimize WORKLOAD --search beam --policy cost --budget $budget --max-depth $max_depth --beam-width $beam_width --proposals $proposals --threads $threads --repeats $repeats --warmup $warmup --confirm-rounds $confirm_rounds --finalists $finalists --shapes auto --work-limit $work_limit --torch --out DIR"
  echo "note=$note"
  echo "shard=$shard"
} > "$facts_file"

mapfile -t workloads < <(python3 - "$only" "$count" "$set_file" <<'PY'
import json, os, re, sys
only, count, set_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cat = json.load(open("workloads/catalog.json"))["workloads"]
if set_file:
    level = {w["name"]: w["level"] for w in cat}
    names = [l.strip() for l in open(set_file) if l.strip() and not l.startswith("#")]
    unknown = [n for n in names if n not in level]
    if unknown:
        sys.exit(f"run_search_cpu: --set names unknown workloads: {', '.join(unknown)}")
    names = [n for n in names if not only or re.search(only, n)]
    print("\n".join(f"{n}\t{level[n]}" for n in names))
    sys.exit(0)
by_level = {1: [], 2: []}
for w in cat:
    if w["level"] in by_level and (not only or re.search(only, w["name"])):
        if os.path.exists(f"workloads/graphs/{w['name']}.json") or \
           os.path.exists(f"workloads/graphs/{w['name']}.small.json"):
            by_level[w["level"]].append(w["name"])
a, b = sorted(by_level[1]), sorted(by_level[2])
out = []
for i in range(max(len(a), len(b))):
    for lst, lvl in ((a, 1), (b, 2)):
        if i < len(lst):
            out.append(f"{lst[i]}\t{lvl}")
print("\n".join(out[:count]))
PY
)

if [[ ${#workloads[@]} -eq 0 || -z ${workloads[0]} ]]; then
  echo "run_search_cpu: no workload to run (check --only, --set and --count)" >&2
  exit 2
fi

shard_list=()
for i in "${!workloads[@]}"; do
  ((i % shard_n == shard_k - 1)) && shard_list+=("${workloads[$i]}")
done
workloads=("${shard_list[@]}")

start=$(date +%s)
for entry in "${workloads[@]}"; do
  name=${entry%%$'\t'*}
  level=${entry##*$'\t'}
  now=$(date +%s)
  if ((now - start > budget_s)); then
    printf '{"workload":"%s","level":%s,"status":"not_run","note":"time budget"}\n' \
      "$name" "$level" >> "$results"
    continue
  fi
  err=$(mktemp)
  rc=0
  timeout 900 "$steptp" optimize "$name" --search beam --policy cost --budget "$budget" \
    --max-depth "$max_depth" --beam-width "$beam_width" --proposals "$proposals" --threads "$threads" --repeats "$repeats" --warmup "$warmup" \
    --confirm-rounds "$confirm_rounds" --finalists "$finalists" --shapes auto --work-limit "$work_limit" --torch --out "$reports/$name" > /dev/null 2> "$err" \
    || rc=$?
  python3 - "$name" "$level" "$rc" "$reports/$name/report.json" "$err" "$(( $(date +%s) - now ))" \
    >> "$results" <<'PY'
import json, os, sys
name, level, rc, report, err, secs = sys.argv[1:]
j = {"workload": name, "level": int(level), "rc": int(rc), "wall_s": int(secs)}
if rc == "0" and os.path.exists(report):
    r = json.load(open(report))
    j.update({
        "status": "ok",
        "source": r["source"],
        "verify_engine": r["verify_engine"],
        "baseline_ms": r["baseline_ms"],
        "best_ms": r["best"]["time_ms"],
        "speedup": r["best"]["speedup"],
        "trace": r["best"]["trace"],
        "stats": r["stats"],
    })
    if "confirmation" in r:
        if r["confirmation"].get("kept", True):
            j["confirmed_speedup"] = r["confirmation"]["speedup"]
        else:
            # optimize gave back the initial program: the one it dropped re-measured slower.
            j["unconfirmed_speedup"] = r["confirmation"]["speedup"]
    if "selection" in r:
        j["finalists"] = len(r["selection"]["finalists"])
        j["search_best_replaced"] = r["selection"]["kept"] != r["selection"]["search_best"]
    t = r.get("torch", {})
    if "median_ms" in t:
        j["torch_ms"] = t["median_ms"]
        j["torch_blas"] = t.get("blas")
    elif "error" in t:
        j["torch_error"] = t["error"][-300:]
else:
    j["status"] = "timeout" if rc == "124" else "failed"
    lines = [l for l in open(err).read().splitlines() if l.strip()]
    j["error"] = " ".join(lines[-3:])[:300]
print(json.dumps(j))
PY
  rm -f "$err"
  echo "$(date +%H:%M:%S) $name: $(tail -1 "$results" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["status"], j.get("speedup"), j.get("torch_ms"))')"
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$facts_file"
echo "elapsed_s=$(( $(date +%s) - start ))" >> "$facts_file"
python3 "$here/render_search_cpu.py" "$results" "$facts_file" > "$doc"
echo "run_search_cpu: wrote $doc"
