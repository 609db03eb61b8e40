#!/usr/bin/env bash
# bench/codegen/run_cpu_baseline.sh — one run of naive compiled C against PyTorch eager over the
# level-1 and level-2 catalog at default shapes, on this machine, same threads and dtype for both;
# writes the raw results (JSON lines) and docs/bench/cpu_baseline.md (render_cpu_baseline.py).
#
# A workload whose naive C would run more than --max-work statement executions per run (about
# 20 s at the rate measured here) is skipped and marked so; the loop stops starting workloads
# after --budget-s seconds and lists the rest as not run. Workloads alternate between the levels
# so a cut-short run still covers both.
#
# Usage: bench/codegen/run_cpu_baseline.sh [--steptp BIN] [--threads N] [--budget-s S]
#          [--max-work N] [--warmup N] [--repeats N] [--only REGEX] [--results FILE] [--doc FILE]
#          [--timeout-s S]  (per workload, both contenders; default 600)
#          [--max-memory-gib N]  (the compiled engine's memory limit; default its own, 8)
#          [--note TEXT]     (a sentence for the report, e.g. what else ran on the machine)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
steptp="$root/build/steptp"
threads=1
budget_s=1500
max_work=1000000000
warmup=1
repeats=3
only=""
timeout_s=600
max_memory_gib=8
note=""
results="$root/bench/codegen/results/cpu_baseline.jsonl"
doc="$root/docs/bench/cpu_baseline.md"
command_line="bench/codegen/run_cpu_baseline.sh $*"

while (($#)); do
  case "$1" in
    --steptp) steptp=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --budget-s) budget_s=$2; shift 2 ;;
    --max-work) max_work=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --timeout-s) timeout_s=$2; shift 2 ;;
    --max-memory-gib) max_memory_gib=$2; shift 2 ;;
    --note) note=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --doc) doc=$2; shift 2 ;;
    *) echo "run_cpu_baseline: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $steptp ]] || { echo "run_cpu_baseline: no steptp binary at $steptp (--steptp)" >&2; exit 2; }
cd "$root"
mkdir -p "$(dirname "$results")" "$(dirname "$doc")"
: > "$results"

# Machine facts, before and after (the load matters: the machine may be shared).
facts_file="$results.facts"
{
  echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu_model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)"
  echo "cores=$(nproc)"
  echo "memory=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "compiler=$(${STEPTP_CC:-cc} --version | head -1)"
  echo "torch=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  echo "command=$command_line"
  echo "threads=$threads"
  echo "warmup=$warmup"
  echo "repeats=$repeats"
  echo "max_work=$max_work"
  echo "max_memory_gib=$max_memory_gib"
  echo "budget_s=$budget_s"
  echo "note=$note"
} > "$facts_file"

# name<TAB>level, alternating level 1 and level 2.
mapfile -t workloads < <(python3 - "$only" <<'PY'
import json, re, sys
only = sys.argv[1]
cat = json.load(open("workloads/catalog.json"))["workloads"]
by_level = {1: [], 2: []}
for w in cat:
    if w["level"] in by_level and (not only or re.search(only, w["name"])):
        by_level[w["level"]].append(w["name"])
a, b = sorted(by_level[1]), sorted(by_level[2])
for i in range(max(len(a), len(b))):
    for lst, lvl in ((a, 1), (b, 2)):
        if i < len(lst):
            print(f"{lst[i]}\t{lvl}")
PY
)

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
  out=$(mktemp) err=$(mktemp)
  rc=0
  timeout "$timeout_s" "$steptp" bench "$name" --vs-torch --threads "$threads" --warmup "$warmup" \
    --repeats "$repeats" --max-work "$max_work" --max-memory-gib "$max_memory_gib" --json > "$out" 2> "$err" || rc=$?
  python3 - "$name" "$level" "$rc" "$out" "$err" "$(( $(date +%s) - now ))" >> "$results" <<'PY'
import json, sys
name, level, rc, out, err, secs = sys.argv[1:]
text = open(out).read()
try:
    j = json.loads(text) if text.strip() else {}
except json.JSONDecodeError:
    j = {}
j.pop("samples_ms", None)
j.update({"workload": name, "level": int(level), "rc": int(rc), "wall_s": int(secs)})
if "skipped" in j:
    j["status"] = "skipped"
elif "median_ms" in j and "torch" in j:
    j["status"] = "ok"
elif "median_ms" in j:
    j["status"] = "no_torch"
else:
    j["status"] = "timeout" if rc == "124" else "failed"
if j["status"] != "ok":
    lines = [l for l in open(err).read().splitlines() if l.strip()]
    j["error"] = " ".join(lines[-3:])[:300]
print(json.dumps(j))
PY
  rm -f "$out" "$err"
  echo "$(date +%H:%M:%S) $name: $(tail -1 "$results" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["status"], j.get("median_ms"), j.get("torch", {}).get("median_ms"))')"
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$facts_file"
echo "elapsed_s=$(( $(date +%s) - start ))" >> "$facts_file"
python3 "$here/render_cpu_baseline.py" "$results" "$facts_file" > "$doc"
echo "run_cpu_baseline: wrote $doc"
