// search/optimize.h — one `steptp optimize` run as a library call: load the problem, build the
// evaluator (C or CUDA), the policy and the engine, run the algorithm, time the PyTorch eager
// baseline on request, and render the report. The CLI only parses flags and prints.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "search/algorithms.h"
#include "search/compiled_evaluator.h"
#include "search/problem.h"

namespace steptp::search {

struct LlmOptions {
  double temperature = 0.3;
  int max_tokens = 4096;
  double timeout_s = 600;  // read timeout per request
  double connect_timeout_s = 5;
  int retries = 3;
  std::string transcript;                         // JSONL of every request and response ("" = none)
  std::optional<nlohmann::json> response_format;  // constrained decoding
};

struct OptimizeOptions {
  Algorithm algorithm = Algorithm::kBeam;
  std::string policy = "cost";  // llm | enumerate | random | cost
  SearchOptions search;
  int proposals = 0;           // 0: the algorithm's default (chain 1, mcts 2, others 3)
  std::string target = "cpu";  // cpu | cuda
  int threads = 1;
  int repeats = 10;
  int warmup = 2;
  int confirm_rounds = 3;  // rounds of the selection and of the confirmation (selection.h)
  int finalists = 3;       // fastest accepted programs measured again to choose the best
  uint64_t seed = 0;
  VerifyEngineChoice verify_engine = VerifyEngineChoice::kAuto;
  verify::EngineFn tvm_engine;  // runs a program with TVM: VerifyEngineChoice::kTvm needs it
  int64_t interpreter_work_limit = 30'000'000;
  ShapeChoice shapes = ShapeChoice::kAuto;
  int64_t work_limit = 100'000'000;  // for ShapeChoice::kAuto
  std::string workloads_dir = "workloads";
  bool torch = false;
  std::string torch_script = "python/torch_baseline.py";
  std::string python = "/usr/bin/python3";
  std::string endpoint;  // llm policy
  std::string model;
  LlmOptions llm;             // llm policy: sampling, retries, transcript
  std::string cuda_work_dir;  // where CUDA binaries go (default: a temp dir)
  bool progress = false;      // a line on stderr after every expansion
};

struct OptimizeResult {
  nlohmann::json json;
  std::string markdown;
  std::string best_program;  // the best program file (declarations + body)
  double speedup = 1;        // best over the naive baseline
};

// Errors, all found before the search starts unless said otherwise: bad input (unknown workload,
// unreadable file, unknown policy, no GPU for cuda, no endpoint for llm, an invalid start
// program: "bad_program"), an endpoint that cannot be used (llm::is_endpoint_failure; also when
// it fails during the search, which then stops), or an initial program that cannot be measured.
Result<OptimizeResult> optimize(const std::string& spec, const OptimizeOptions& options);

}  // namespace steptp::search
