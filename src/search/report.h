// search/report.h — the record of one optimization run, as JSON and as Markdown: the best
// program, its replayable step trace (each step with the program it produced), speedups over
// the naive baseline and over PyTorch eager (when timed), budget use and failures by reason.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "search/engine.h"

namespace steptp::search {

struct TorchBaseline {
  double median_ms = 0;
  int threads = 0;
  std::string blas;   // what torch_baseline.py reported (built-with and loaded libraries)
};

// The baseline and the best program measured again after the search, alternately, so that
// both see the same machine state (a shared machine drifts during a long search).
struct Confirmation {
  int rounds = 0;
  double baseline_ms = 0;  // median over the rounds
  double best_ms = 0;
  double speedup() const { return best_ms > 0 ? baseline_ms / best_ms : 0; }
};

struct RunInfo {
  std::string workload;        // catalog name or file path
  std::string source;          // the .leir / graph file the initial program came from
  std::string target = "cpu";
  int threads = 1;
  int repeats = 0;
  int warmup = 0;
  uint64_t seed = 0;
  std::string verify_engine;
  std::optional<TorchBaseline> torch;
  std::string torch_error;     // why there is no PyTorch baseline, when asked for one
  std::optional<Confirmation> confirmation;
};

nlohmann::json report_json(const Engine& engine, const RunInfo& info);
std::string report_markdown(const Engine& engine, const RunInfo& info);

}  // namespace steptp::search
