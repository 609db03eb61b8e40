// bench/interp_bench.cpp — interpreter throughput in loop-body evaluations per second for an
// elementwise op, a row reduction and a matmul, with safety checks on and off. Compiles once
// outside the timed loop (compile once, run many), as verification does.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "interp/interpreter.h"
#include "leir/parser.h"

namespace {

using steptp::interp::Interpreter;
using steptp::interp::RunOptions;
using steptp::interp::RunStats;

std::vector<steptp::leir::TensorData> inputs_for(const steptp::leir::Program& p) {
  std::vector<steptp::leir::TensorData> out;
  for (const auto& d : p.decls) {
    if (d.role == steptp::leir::TensorRole::kOutput) continue;
    std::vector<double> v(static_cast<size_t>(steptp::leir::element_count(d.shape)));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>((i * 7919) % 1000) / 500.0 - 1.0;
    out.push_back({d.name, d.dtype, d.shape, std::move(v)});
  }
  return out;
}

void run_bench(benchmark::State& state, const std::string& text, bool checks) {
  auto program = steptp::leir::parse_program(text);
  if (!program.ok()) {
    state.SkipWithError(program.error().render().c_str());
    return;
  }
  RunOptions options;
  options.check_safety = checks;
  auto interp = Interpreter::compile(program.value(), options);
  if (!interp.ok()) {
    state.SkipWithError(interp.error().render().c_str());
    return;
  }
  auto inputs = inputs_for(program.value());
  int64_t items = 0;
  for (auto _ : state) {
    RunStats stats;
    auto out = interp->run(inputs, &stats);
    if (!out.ok()) {
      state.SkipWithError(out.error().render().c_str());
      return;
    }
    benchmark::DoNotOptimize(out.value()[0].values.data());
    items += stats.statement_executions;
  }
  state.SetItemsProcessed(items);
}

void BM_Elementwise(benchmark::State& state) {
  int64_t n = state.range(0);
  run_bench(
      state,
      fmt::format(
          "input A f64[{0},{0}]\noutput C f64[{0},{0}]\n"
          "B^{{{0}}}_{{tx=0}}L^{{{0}}}_{{a=0}}[C^{{f64,g}}_{{tx,a}}=max(A^{{f64,g}}_{{tx,a}},0);];",
          n),
      state.range(1) != 0);
}

void BM_RowSum(benchmark::State& state) {
  int64_t n = state.range(0);
  run_bench(state,
            fmt::format("input A f64[{0},{0}]\noutput C f64[{0}]\n"
                        "B^{{{0}}}_{{tx=0}}L^{{{0}}}_{{a=0}}[C^{{f64,g}}_{{tx}}=C^{{f64,g}}_{{tx}}+"
                        "A^{{f64,g}}_{{tx,a}};];",
                        n),
            state.range(1) != 0);
}

void BM_Matmul(benchmark::State& state) {
  int64_t n = state.range(0);
  run_bench(state,
            fmt::format("input A f64[{0},{0}]\ninput C f64[{0},{0}]\noutput D f64[{0},{0}]\n"
                        "B^{{{0}}}_{{tx=0}}L^{{{0}}}_{{a=0}}L^{{{0}}}_{{c=0}}[D^{{f64,g}}_{{tx,a}}="
                        "D^{{f64,g}}_{{tx,a}}+A^{{f64,g}}_{{tx,c}}*C^{{f64,g}}_{{c,a}};];",
                        n),
            state.range(1) != 0);
}

// Args: {size, checks on (1) / off (0)}.
BENCHMARK(BM_Elementwise)->ArgsProduct({{256, 1024, 2048}, {1, 0}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RowSum)->ArgsProduct({{256, 1024, 2048}, {1, 0}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Matmul)->ArgsProduct({{64, 256}, {1, 0}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
