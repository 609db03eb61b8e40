#!/usr/bin/env bash
# tests/python/service_test.sh SOURCE_DIR STEPTP — `steptp serve` tested like a service:
# schemathesis (venv group "service", python/requirements/service.txt, in its own venv:
# STEPTP_SERVICE_VENV, default SOURCE_DIR/.cache/venv-service) against its
# /openapi.json — no 5xx, statuses, content types and bodies as documented, invalid data
# refused — then bench/service/reward_load.py for a few seconds (no 5xx, no transport error).
# Prints 'N passed, N failed'.
set -euo pipefail
SRC=$(cd "${1:?usage: service_test.sh SOURCE_DIR STEPTP}" && pwd)
STEPTP=$(realpath "${2:?usage: service_test.sh SOURCE_DIR STEPTP}")
# shellcheck source=tests/python/lib.sh
source "$SRC/tests/python/lib.sh"
VENV=${STEPTP_SERVICE_VENV:-$SRC/.cache/venv-service}
STEPTP_VENV=$VENV bash "$SRC/scripts/setup-venv.sh" service
PY=$VENV/bin/python

"$STEPTP" serve --port 0 2>"$TMP/serve.err" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$TMP/serve.err" && break
  sleep 0.05
done
URL=$(sed -nE 's/.*listening on (http:[^ ]+).*/\1/p' "$TMP/serve.err")

if timeout 600 "$VENV/bin/schemathesis" run "$URL/openapi.json" --url "$URL" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" --workers 2 --seed 1 --no-color >"$TMP/log" 2>&1; then
  ok "schemathesis: $(grep -E '[0-9]+ generated' "$TMP/log" | sed 's/^ *//')"
else
  fail "schemathesis found failures"
fi
if timeout 120 "$PY" "$SRC/bench/service/reward_load.py" --url "$URL" --seconds 5 --clients 4 \
  >"$TMP/log" 2>&1; then
  ok "reward load test: $(cat "$TMP/log")"
else
  fail "reward load test"
fi
kill -0 "$PID" 2>/dev/null && ok "the service is still running" || fail "the service died"
finish
