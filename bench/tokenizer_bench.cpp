// bench/tokenizer_bench.cpp — throughput of the native BPE tokenizer (tokenizer/bpe_tokenizer.h)
// with Qwen3's tokenizer.json on LEIR-heavy chat samples of the kind a dataset build counts
// (a few MB built from tests/data/leir_corpus_level1.jsonl), in bytes and tokens per second.
//
// The tokenizer is read from $STEPTP_TOKENIZER, else ../shared/data/qwen3/tokenizer.json.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/qwen3_chat.h"

namespace {

using steptp::tokenizer::BpeTokenizer;

std::string tokenizer_path() {
  if (const char* p = std::getenv("STEPTP_TOKENIZER")) return p;
  return std::string(STEPTP_SOURCE_DIR) + "/../shared/data/qwen3/tokenizer.json";
}

const BpeTokenizer& qwen() {
  static const BpeTokenizer tok = [] {
    auto r = BpeTokenizer::from_file(tokenizer_path());
    if (!r.ok()) {
      std::fprintf(stderr, "tokenizer_bench: %s\n", r.error().render().c_str());
      std::exit(2);
    }
    return std::move(r).value();
  }();
  return tok;
}

// Chat samples as the dataset export writes them: a system message, a user message with the
// declarations and the program, and an assistant answer with reasoning and a step. Numbers,
// names and spacing vary from sample to sample so that not every word repeats.
const std::vector<std::string>& samples() {
  static const std::vector<std::string> out = [] {
    struct Row {
      std::string model, leir;
      std::vector<std::string> names;
      std::vector<std::vector<int64_t>> shapes;
    };
    std::vector<Row> rows;
    std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/tests/data/leir_corpus_level1.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const auto j = nlohmann::json::parse(line);
      rows.push_back({j.at("model"), j.at("leir"), j.at("known_names"), j.at("known_shapes")});
    }
    std::mt19937 rng(42);
    std::vector<std::string> texts;
    size_t bytes = 0;
    const char* strategies[] = {"loop_tiling",   "loop_fusion",           "loop_reorder",
                                "vectorization", "shared_memory_caching", "loop_unrolling",
                                "thread_binding"};
    for (int k = 0; bytes < (4u << 20); ++k) {
      const Row& r = rows[k % rows.size()];
      const int f1 = 1 << (1 + rng() % 6), f2 = 1 << (1 + rng() % 5);
      std::string user = "Task: " + r.model + " (variant " + std::to_string(k) + ")\n";
      user += "Declarations:\n";
      for (size_t i = 0; i < r.names.size(); ++i) {
        user += (i + 1 == r.names.size() ? "output " : "input ") + r.names[i] + " f64[";
        for (size_t d = 0; d < r.shapes[i].size(); ++d)
          user += (d ? "," : "") + std::to_string(r.shapes[i][d] * (1 + k % 3));
        user += "]\n";
      }
      user += "Program:\n" + r.leir + "\n\nHistory:\n";
      for (int h = 0; h < k % 4; ++h)
        user += "- " + std::string(strategies[(k + h) % 7]) + "(block=" + std::to_string(h) + ")\n";
      user += "Choose one strategy and its site. Answer with a JSON object.";
      const std::string step = std::string(strategies[k % 7]) + "(block=" + std::to_string(k % 5) +
                               ", loops=a,c, factors=" + std::to_string(f1) + "," +
                               std::to_string(f2) + ")";
      std::string answer = "<think>\nThe nest over a and c of " + r.model + " reads " + r.names[0] +
                           " with stride " + std::to_string(f1 * f2) + "; tiling it by " +
                           std::to_string(f1) + "x" + std::to_string(f2) +
                           " keeps the working set in cache, and the rewrite is legal because "
                           "no iteration of the parallel loop reads what another writes.\n"
                           "</think>\n\n{\"strategy\": \"" +
                           std::string(strategies[k % 7]) + "\", \"site\": \"" + step + "\"}";
      texts.push_back(steptp::tokenizer::render_qwen3_chat(
          {{"system", "You are an expert in tensor program optimization."},
           {"user", user},
           {"assistant", answer}}));
      bytes += texts.back().size();
    }
    return texts;
  }();
  return out;
}

int64_t sample_bytes() {
  int64_t n = 0;
  for (const std::string& s : samples()) n += static_cast<int64_t>(s.size());
  return n;
}

void BM_CountSamples(benchmark::State& state) {
  const BpeTokenizer& tok = qwen();
  int64_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const std::string& s : samples()) tokens += tok.count(s);
    benchmark::DoNotOptimize(tokens);
  }
  state.SetBytesProcessed(state.iterations() * sample_bytes());
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CountSamples)->Unit(benchmark::kMillisecond);

void BM_EncodeSamples(benchmark::State& state) {
  const BpeTokenizer& tok = qwen();
  int64_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const std::string& s : samples()) {
      auto ids = tok.encode(s);
      tokens += static_cast<int64_t>(ids.size());
      benchmark::DoNotOptimize(ids.data());
    }
  }
  state.SetBytesProcessed(state.iterations() * sample_bytes());
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EncodeSamples)->Unit(benchmark::kMillisecond);

// Every word new: the merge loop's speed without the word cache (random lowercase words).
void BM_CountUncachedWords(benchmark::State& state) {
  const BpeTokenizer& tok = qwen();
  std::mt19937 rng(1);
  int64_t bytes = 0, tokens = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string text;
    for (int w = 0; w < 20000; ++w) {
      text += ' ';
      const int len = 4 + rng() % 12;
      for (int c = 0; c < len; ++c) text += static_cast<char>('a' + rng() % 26);
    }
    state.ResumeTiming();
    tokens += tok.count(text);
    bytes += static_cast<int64_t>(text.size());
  }
  state.SetBytesProcessed(bytes);
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CountUncachedWords)->Unit(benchmark::kMillisecond);

void BM_LoadTokenizerJson(benchmark::State& state) {
  for (auto _ : state) {
    auto r = BpeTokenizer::from_file(tokenizer_path());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_LoadTokenizerJson)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
