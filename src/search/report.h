// search/report.h — the record of one optimization run, as JSON and as Markdown: the best
// program, its replayable step trace (each step with the program it produced), speedups over
// the naive baseline and over PyTorch eager (when timed), budget use and failures by reason.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "search/engine.h"
#include "search/selection.h"

namespace steptp::search {

struct TorchBaseline {
  double median_ms = 0;
  int threads = 0;
  std::string blas;  // what torch_baseline.py reported (built-with and loaded libraries)
};

struct RunInfo {
  std::string workload;  // catalog name or file path
  std::string source;    // the .leir / graph file the initial program came from
  std::string target = "cpu";
  int threads = 1;
  int repeats = 0;
  int warmup = 0;
  uint64_t seed = 0;
  std::string verify_engine;
  std::optional<TorchBaseline> torch;
  std::string torch_error;  // why there is no PyTorch baseline, when asked for one
  // After the search (selection.h): the node reported as best, the finalists measured again,
  // and the confirmation of the kept one. Without it the engine's best is reported.
  std::optional<Selection> selection;
};

nlohmann::json report_json(const Engine& engine, const RunInfo& info);
std::string report_markdown(const Engine& engine, const RunInfo& info);

}  // namespace steptp::search
