#!/usr/bin/env bash
# tests/cli/generated_docs_test.sh STEPTP SOURCE_DIR — docs/strategies.md is generated from the
# registry (`steptp strategies --markdown`); it must match what the current build prints, so a
# strategy change cannot leave the documentation behind.
set -euo pipefail
STEPTP=$1
SRC=$2
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
"$STEPTP" strategies --markdown > "$generated"
if ! diff -u "$SRC/docs/strategies.md" "$generated" > /dev/null; then
  echo "FAIL: docs/strategies.md is stale; regenerate it with:"
  echo "  steptp strategies --markdown > docs/strategies.md"
  diff -u "$SRC/docs/strategies.md" "$generated" | head -n 20
  exit 1
fi
echo "PASS: docs/strategies.md matches the registry"
