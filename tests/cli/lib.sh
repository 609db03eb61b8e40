# tests/cli/lib.sh — tiny assertion helpers shared by the CLI test scripts.
STEPTP=${1:?usage: SCRIPT STEPTP SOURCE_DIR}
SRC=${2:?usage: SCRIPT STEPTP SOURCE_DIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

# expect_exit CODE DESCRIPTION -- COMMAND...   (stdout+stderr saved in $TMP/out)
expect_exit() {
  local want=$1 what=$2
  shift 3
  local got=0
  timeout 20 "$@" >"$TMP/out" 2>&1 || got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/    /' "$TMP/out" | head -20
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}

# expect_output TEXT DESCRIPTION — the last command's output contains TEXT
expect_output() {
  if ! grep -qF -- "$1" "$TMP/out"; then
    echo "FAIL: $2: output lacks '$1'"
    sed 's/^/    /' "$TMP/out" | head -20
    failures=$((failures + 1))
  fi
}

finish() {
  if [[ $failures -ne 0 ]]; then
    echo "$failures CLI expectation(s) failed"
    exit 1
  fi
  echo "all CLI expectations held"
}
