#!/usr/bin/env bash
# bench/run_all.sh BUILD — `make bench`: the micro-benchmarks (Google Benchmark: interpreter
# throughput on elementwise, reduction and matmul programs; parser, printer and checker
# throughput; BENCH_MIN_TIME seconds per benchmark, default 0.5), then the commands of the long catalog benchmarks, which take hours on a small
# machine and are run by hand:
#   bench/codegen/run_cpu_baseline.sh   naive compiled C vs PyTorch eager over the catalog
#                                        -> docs/bench/cpu_baseline.md
#   bench/search/run_search_cpu.sh      beam search + cost policy on the benchmark set
#                                        -> docs/bench/search_cpu.md
set -euo pipefail
build=${1:-build}
for b in interp_bench parser_bench; do
  bin="$build/bench/$b"
  [[ -x $bin ]] || { echo "run_all: $bin is missing (build first: make build)" >&2; exit 2; }
  echo "== $b"
  "$bin" --benchmark_min_time="${BENCH_MIN_TIME:-0.5}"
done
cat <<'TXT'

Catalog benchmarks (long; run by hand, see each script's header for options):
  bench/codegen/run_cpu_baseline.sh --threads 1
  bench/search/run_search_cpu.sh --set bench/search/benchmark_set.txt --threads 1
TXT
