#!/usr/bin/env bash
# scripts/check-style.sh [BUILD_DIR] — the style gate of .ci/run.
#   1. every tracked C++ file is formatted as .clang-format says (clang-format 14); `make format`
#      fixes them;
#   2. with BUILD_DIR (its compile_commands.json): clang-tidy, with the checks of .clang-tidy, is
#      clean on the .cpp files changed since STYLE_BASE (default: the parent of HEAD; a commit
#      range's start where CI gives one).
# Exit 0 when clean, 1 with the offending files listed otherwise, 2 when a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-14}
for tool in "$CLANG_FORMAT"; do
  command -v "$tool" >/dev/null || { echo "check-style: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

mapfile -t sources < <(git ls-files '*.h' '*.cpp')
unformatted=$( ("$CLANG_FORMAT" --dry-run --Werror "${sources[@]}" 2>&1 || true) |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [[ -n $unformatted ]]; then
  echo "check-style: $(wc -l <<<"$unformatted") file(s) not formatted as .clang-format says (run \`make format\`):"
  sed 's/^/  /' <<<"$unformatted"
  exit 1
fi
echo "check-style: ${#sources[@]} C++ files formatted"

build=${1:-}
[[ -z $build ]] && exit 0
command -v "$CLANG_TIDY" >/dev/null || { echo "check-style: $CLANG_TIDY not found" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] || { echo "check-style: no $build/compile_commands.json" >&2; exit 2; }
base=${STYLE_BASE:-HEAD~1}
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "check-style: no base commit $base (a one-commit clone): clang-tidy skipped"
  exit 0
fi
mapfile -t changed < <(git diff --name-only --diff-filter=AM "$base" -- '*.cpp' |
  while read -r f; do grep -q "\"file\": \".*/$f\"" "$build/compile_commands.json" && echo "$f"; done)
if ((${#changed[@]} == 0)); then
  echo "check-style: no compiled .cpp file changed since $base"
  exit 0
fi
echo "check-style: clang-tidy on ${#changed[@]} changed file(s) since $base"
# GCC's warning flags in the compile commands are unknown to clang: not a finding.
if ! printf '%s\0' "${changed[@]}" | xargs -0 -n 8 -P "$(nproc)" "$CLANG_TIDY" -p "$build" --quiet \
     --extra-arg=-Wno-unknown-warning-option 2>/dev/null; then
  echo "check-style: clang-tidy found problems (above)"
  exit 1
fi
echo "check-style: clang-tidy clean"
