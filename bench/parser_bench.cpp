// bench/parser_bench.cpp — throughput of the LEIR parser, printer and well-formedness checker
// over the reference level-1 corpus (tests/data/leir_corpus_level1.jsonl), in bytes per second.
#include <benchmark/benchmark.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"

namespace {

using namespace steptp::leir;

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> rows = [] {
    std::vector<std::string> out;
    std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/tests/data/leir_corpus_level1.jsonl");
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) out.push_back(nlohmann::json::parse(line).at("leir").get<std::string>());
    return out;
  }();
  return rows;
}

int64_t corpus_bytes() {
  int64_t n = 0;
  for (const std::string& s : corpus()) n += static_cast<int64_t>(s.size());
  return n;
}

void BM_ParseCorpus(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& text : corpus()) {
      auto r = parse_body(text);
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetBytesProcessed(state.iterations() * corpus_bytes());
}
BENCHMARK(BM_ParseCorpus);

// The same rows with whitespace and a newline after every ';' (LLM-style text).
void BM_ParseSpacedCorpus(benchmark::State& state) {
  std::vector<std::string> spaced;
  int64_t bytes = 0;
  for (const std::string& text : corpus()) {
    std::string s;
    for (char c : text) {
      s += c;
      if (c == ';') s += "\n  ";
      if (c == ',' || c == '=') s += ' ';
    }
    bytes += static_cast<int64_t>(s.size());
    spaced.push_back(std::move(s));
  }
  for (auto _ : state) {
    for (const std::string& text : spaced) {
      auto r = parse_body(text);
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_ParseSpacedCorpus);

void BM_PrintCorpus(benchmark::State& state) {
  std::vector<std::vector<Block>> bodies;
  for (const std::string& text : corpus()) bodies.push_back(*parse_body(text));
  for (auto _ : state) {
    for (const auto& b : bodies) {
      std::string s = print_body(b);
      benchmark::DoNotOptimize(s);
    }
  }
  state.SetBytesProcessed(state.iterations() * corpus_bytes());
}
BENCHMARK(BM_PrintCorpus);

void BM_WellFormedCorpus(benchmark::State& state) {
  std::vector<Program> programs;
  for (const std::string& text : corpus()) programs.push_back(Program{{}, *parse_body(text)});
  for (auto _ : state) {
    for (const Program& p : programs) {
      auto r = check_well_formed(p, WellFormedOptions{false, true});
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetBytesProcessed(state.iterations() * corpus_bytes());
}
BENCHMARK(BM_WellFormedCorpus);

}  // namespace

BENCHMARK_MAIN();
