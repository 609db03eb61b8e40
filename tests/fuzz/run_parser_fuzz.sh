#!/usr/bin/env bash
# tests/fuzz/run_parser_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS]
# Builds the LEIR parser fuzz target with libFuzzer + ASan + UBSan and runs it for a bounded
# time, seeded with reference-corpus rows. Any crash, sanitizer report or failed round trip
# fails the test. clang is a project requirement: without it this fails loudly.
set -euo pipefail
src=${1:?usage: run_parser_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS]}
build=${2:?usage: run_parser_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS]}
seconds=${3:-30}

cxx=""
for c in clang++-14 clang++ clang++-15 clang++-16 clang++-17 clang++-18; do
  if command -v "$c" >/dev/null 2>&1; then cxx=$c; break; fi
done
if [[ -z "$cxx" ]]; then
  echo "run_parser_fuzz.sh: no clang++ found; the fuzz tests need clang with libFuzzer" >&2
  exit 1
fi

out="$build/fuzz"
mkdir -p "$out"
bin="$out/leir_parser_fuzz"
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$src/src" "$src/tests/fuzz/leir_parser_fuzz.cpp" "$src/src/support/error.cpp" \
  "$src"/src/leir/*.cpp -lfmt -o "$bin"

seeds=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$seeds" "$work"' EXIT
python3 - "$src/tests/data/leir_corpus_level1.jsonl" "$seeds" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for i, r in enumerate(rows[::8]):
    with open(f"{sys.argv[2]}/row{i}.leir", "w") as f:
        f.write(r["leir"])
PY
printf 'input A f64[4]\noutput C f64[4]\n# c\nB^{4}_{tx=0}[C^{f64,g}_{tx}=-A^{f64,g}_{tx}**2;];\n' \
  > "$seeds/program.leir"

cd "$work"
"$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$work" "$seeds"
