// service/api.h — steptp's operations as JSON in, JSON out: one table shared by the HTTP
// service (`steptp serve`) and the Python package (steptp._core), so both give the same answers
// and the same typed errors.
//
// A call never throws and never trusts its request: every field is type-checked, every program
// text is bounded by the limits, and a bug in steptp comes back as a "bug" error, not a crash.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/timing.h"

namespace steptp::service {

// The three error tiers of support/error.h as the API reports them.
enum class ErrorKind { kBadInput, kDoesNotApply, kBug };
std::string_view error_kind_name(ErrorKind k);  // "bad_input" "does_not_apply" "bug"

struct Limits {
  size_t max_program_bytes = 1u << 20;      // each LEIR text (and the answer text)
  int64_t work_budget = 200'000'000;        // interpreter statement executions per run
  int64_t memory_budget_bytes = 1LL << 30;  // tensor bytes per run
  int max_seeds = 8;
  bool allow_measure = true;  // reward/bench may time compiled C (off for a shared service)
};

// One answer: HTTP status (200 ok; 400 bad input; 404 unknown operation; 413 over a limit;
// 422 does not apply; 500 a bug) and the body. An error body is
//   {"error": {"kind", "code", "message", "location": {"file","line","column"} | null,
//              "rendered"}}
struct Response {
  int status = 200;
  nlohmann::json body;
};

// Operations: parse check fmt sites apply verify lower bench reward strategies.
const std::vector<std::string>& operation_names();

// Runs one operation on a request object.
Response call(std::string_view operation, const nlohmann::json& request, const Limits& limits);

// A timing as bench reports it: engine "c", threads, warmup, repeats, median/min/max/q1/q3/iqr
// in ms, samples_ms (`steptp bench --json` and the bench operation).
nlohmann::json timing_json(const codegen::Timing& t);

// The error body of the shape above (for callers that fail before an operation runs).
Response error_response(int status, ErrorKind kind, std::string code, std::string message);

}  // namespace steptp::service
