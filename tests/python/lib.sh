# tests/python/lib.sh — what the Python-side test scripts share: a scratch folder removed on exit,
# ok/fail counters (fail shows the tail of $TMP/log) and the summary line.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; sed 's/^/    /' "$TMP/log" | tail -20; failed=$((failed + 1)); }
# The last line of a script: prints the counts and exits non-zero when anything failed.
finish() {
  echo "$passed passed, $failed failed"
  ((failed == 0))
}
