// search/problem.h — what `steptp optimize` optimizes: a LEIR program file, a graph JSON, or a
// catalog workload by name (imported from its pre-traced graph), plus what the PyTorch eager
// baseline needs (the problem file, its shape overrides and dtype), and that baseline's timer.
//
// Not the importer (frontend/) and not the catalog builder (python/): it only finds and loads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "leir/ir.h"
#include "search/report.h"
#include "support/error.h"

namespace steptp::search {

enum class ShapeChoice { kAuto, kDefault, kSmall };

struct Problem {
  std::string name;      // workload name, or the file name
  std::string source;    // the file the program came from
  std::string instance;  // "default", "small", or "" for a .leir file
  leir::Program program;
  std::optional<std::string> problem_file;  // KernelBench .py file, when known
  std::string shape_overrides;              // a JSON object of shape variables for the problem file
  std::string dtype = "f64";
};

// `spec` is a .leir file, a graph .json file, or a catalog workload name (looked up in
// `workloads_dir`/catalog.json, graphs in `workloads_dir`/graphs). kAuto takes the default
// shapes when their graph imports and its static work is at most `work_limit` statement
// executions, else the small shapes. Errors: "io_error", "unknown_workload", "parse_error",
// "unsupported_op", ...
Result<Problem> load_problem(const std::string& spec, const std::string& workloads_dir,
                             ShapeChoice shapes, int64_t work_limit);

struct TorchTimingOptions {
  std::string python = "/usr/bin/python3";
  std::string script;  // python/torch_baseline.py
  int threads = 1;
  int warmup = 2;
  int repeats = 10;
  int timeout_s = 300;
};

// Times the problem's Model in PyTorch eager through the script (a child process).
// Errors: "torch_baseline" with the script's last output lines.
Result<TorchBaseline> time_torch_baseline(const Problem& problem, const TorchTimingOptions& o);

}  // namespace steptp::search
