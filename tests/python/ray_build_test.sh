#!/usr/bin/env bash
# tests/python/ray_build_test.sh SOURCE_DIR STEPTP — the Ray driver (python/ray_build.py) against
# a real Ray head started on loopback: 2 shards as Ray tasks, then merge-dataset, and every file
# byte-identical to a one-process build-dataset with the same arguments. The head runs in its
# own process group and is stopped (that group only, never `ray stop`) however the script ends.
# Prints 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:?usage: ray_build_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=${2:?usage: ray_build_test.sh SOURCE_DIR STEPTP}
PY=$SRC/.venv/bin/python
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"

bash "$SRC/scripts/setup-venv.sh" ray

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
head_pid=
stop_ray() {
  if [[ -n $head_pid ]]; then
    kill -TERM -- "-$head_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 -- "-$head_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$head_pid" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap stop_ray EXIT

# `ray start --block` under setsid: its process id is the group id of everything it starts, and
# its reaper takes Ray's own processes down with it.
port=$(free_port)
RAY_TMP=$TMP/ray
setsid "$SRC/.venv/bin/ray" start --head --block --port="$port" --node-ip-address=127.0.0.1 \
  --num-cpus=2 --temp-dir="$RAY_TMP" --include-dashboard=false --disable-usage-stats \
  --dashboard-agent-listen-port="$(free_port)" \
  >"$TMP/ray.log" 2>&1 &
head_pid=$!
up=0
for _ in $(seq 120); do
  if "$PY" -c "import socket; socket.create_connection(('127.0.0.1',$port),0.5)" 2>/dev/null; then
    up=1
    break
  fi
  kill -0 "$head_pid" 2>/dev/null || break
  sleep 0.5
done
cp "$TMP/ray.log" "$TMP/log"
if ((up)); then ok "ray head on 127.0.0.1:$port"; else fail "ray head on 127.0.0.1:$port"; finish; fi

# A few small workloads (default shapes included) and a small budget: seconds per shard.
build=(--workloads 'ELU,GELU,Softsign,FrobeniusNorm,Argmax_over_a_dimension,LayerNorm'
  --max-depth 1 --max-sites 2 --max-sites-easy 1 --test-fraction 0.34 --seed 5 --full-shape-check 2)
if timeout 300 "$STEPTP" build-dataset "${build[@]}" --jobs 2 --quiet --out "$TMP/whole" \
  >"$TMP/log" 2>&1; then
  ok "one-process build-dataset"
else
  fail "one-process build-dataset"
fi

# Ray resolves a loopback address to the machine's routable IP before connecting, unless its
# "cluster" mode is off (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0): then the driver stays on loopback
# like the head.
if RAY_ADDRESS= RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 timeout 600 "$PY" "$SRC/python/ray_build.py" --steptp "$STEPTP" --shards 2 \
  --address "127.0.0.1:$port" --out "$TMP/ray_out" --json -- "${build[@]}" \
  >"$TMP/report.json" 2>"$TMP/log"; then
  ok "ray_build.py with 2 shards"
else
  cat "$TMP/report.json" >>"$TMP/log"
  fail "ray_build.py with 2 shards"
fi

if "$PY" - "$TMP/report.json" >"$TMP/log" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
shards = sorted(s["shard"] for s in r["shards"])
assert shards == ["0/2", "1/2"], shards
assert sum(s["units"] for s in r["shards"]) == r["merged"]["units"], r
assert r["verified"] > 0 and r["verified"] == r["merged"]["verified"], r
print(f"{r['verified']} verified steps, {r['verified_per_second']:.1f}/s")
PY
then
  ok "the report covers both shards: $(tail -n 1 "$TMP/log")"
else
  fail "the report covers both shards"
fi

identical=0
: >"$TMP/log"
for f in single_train.jsonl single_test.jsonl multi_train.jsonl multi_test.jsonl archive.jsonl \
  stats.json stats.md strategies.svg dataset_info.json; do
  if [[ -s $TMP/whole/$f ]] && cmp "$TMP/whole/$f" "$TMP/ray_out/$f" >>"$TMP/log" 2>&1; then
    identical=$((identical + 1))
  else
    echo "$f differs or is empty" >>"$TMP/log"
  fi
done
if ((identical == 9)); then
  ok "all 9 files byte-identical to the one-process build"
else
  fail "$identical of 9 files byte-identical to the one-process build"
fi

# A failing shard (bad input) fails the driver with steptp's exit code and its message.
code=0
RAY_ADDRESS= RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 timeout 300 "$PY" "$SRC/python/ray_build.py" --steptp "$STEPTP" --shards 2 \
  --address "127.0.0.1:$port" --out "$TMP/bad" -- --workloads 'NoSuchWorkload' \
  >"$TMP/log" 2>&1 || code=$?
if ((code == 2)) && grep -q "no catalog workload matches" "$TMP/log"; then
  ok "a shard's bad input fails the driver with exit 2"
else
  echo "exit $code" >>"$TMP/log"
  fail "a shard's bad input fails the driver with exit 2"
fi

finish
