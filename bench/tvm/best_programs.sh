#!/usr/bin/env bash
# bench/tvm/best_programs.sh [RESULTS.jsonl] — do TVM's builds of the search benchmark's best
# programs compute what steptp's compiled C computes? Replays each committed trace
# (bench/search/results/search_cpu.jsonl by default) from the catalog graph at the shapes the
# search used, then runs tests/codegen's tvm_catalog_check --against compiled on the results:
# 2 seeds each, the verifier's tolerances. Writes bench/tvm/results/best_programs.jsonl.
# Needs a build (BUILD, default build/) and TVM in .venv (scripts/setup-venv.sh tvm).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RESULTS=${1:-$ROOT/bench/search/results/search_cpu.jsonl}
BUILD=${BUILD:-$ROOT/build}
STEPTP=$BUILD/steptp
CHECK=$BUILD/tests/codegen/tvm_catalog_check
OUT=$ROOT/bench/tvm/results
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
bash "$ROOT/scripts/setup-venv.sh" tvm
mkdir -p "$OUT"
python3 - "$RESULTS" "$STEPTP" "$WORK" "$ROOT" <<'PY'
import json, os, subprocess, sys
results, steptp, work, root = sys.argv[1:5]
steps = os.path.join(work, "steps")
os.makedirs(steps)
for line in open(results):
    r = json.loads(line)
    source = r.get("source", "")
    graph = os.path.join(root, source.split(" (")[0])
    name = r["workload"]
    current = os.path.join(steps, f"{name}.naive.leir")
    subprocess.run([steptp, "import", graph, "-o", current], check=True)
    for i, step in enumerate(r.get("trace", [])):
        following = os.path.join(steps, f"{name}.step{i + 1}.leir")
        subprocess.run([steptp, "apply", current, step, "-o", following], check=True,
                       stdout=subprocess.DEVNULL)
        current = following
    subprocess.run(["cp", current, os.path.join(work, f"{name}.leir")], check=True)
PY
"$CHECK" --against compiled --shapes default --jsonl "$OUT/best_programs.jsonl" "$WORK"/*.leir \
  | tee "$WORK/summary.txt" | tail -n 12
