// verify/verify.h — is a candidate program the same computation as the original?
//
// Runs both programs on several seeded input sets (drawn inside the domains of the functions
// the program applies to its inputs) with an engine, checks safety (through the interpreter's
// typed errors) and compares every declared output with per-dtype allclose tolerances. The
// answer is `equivalent` or exactly one typed failure. It never trusts the candidate: any text
// or program is handled without crashing, within the run budgets.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/interpreter.h"
#include "leir/ir.h"
#include "leir/tensor_data.h"

namespace steptp::verify {

// The result taxonomy (DESIGN §5), in the order checks are made.
enum class Status {
  kEquivalent,
  kParseError,      // the candidate text does not parse
  kIllFormed,       // undeclared/misused tensors, changed declarations, bad binding names, ...
  kBudgetExceeded,  // too much work or memory for the verification budget
  kCompileError,    // the compiled engine could not build the program
  kOutOfBounds,
  kUninitializedRead,
  kIncompleteOutput,
  kRace,
  kMismatch,  // ran cleanly, but an output differs beyond tolerance
};
std::string_view status_name(Status s);  // "equivalent", "parse_error", "ill_formed", ...

// Which side a failure belongs to: a failing original is bad input, not a verdict.
enum class Side { kCandidate, kOriginal };

// kTvm: the interpreter (for the safety checks) and then VerifyOptions::tvm on every seed.
enum class Engine { kInterpreter, kCompiled, kBoth, kTvm };
std::string_view engine_name(Engine e);

// Runs a program on inputs; the interpreter's run_program has this shape, and so does the
// compiled C engine's entry point (codegen::run_compiled).
using EngineFn = std::function<Result<std::vector<leir::TensorData>>(
    const leir::Program&, const std::vector<leir::TensorData>&)>;

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
// f64: 1e-9/1e-11 · f32: 1e-4/1e-5 · f16, bf16 (and fp8): 1e-2/1e-2 · integers, bool: exact.
Tolerance tolerance_for(leir::DType t);

struct VerifyOptions {
  int num_seeds = 3;
  uint64_t seed = 0;         // seeds used: seed, seed+1, ...
  double input_scale = 1.0;  // multiply drawn float inputs (×10, ×100 for robustness checks)
  Engine engine = Engine::kInterpreter;
  interp::RunOptions run;              // budgets for each run
  std::optional<Tolerance> tolerance;  // overrides the per-dtype default
  EngineFn tvm;                        // the engine of Engine::kTvm (codegen::TvmEngine::run)
  // The engine of Engine::kCompiled and kBoth; empty: codegen::run_compiled with its default
  // options. Each verification uses the one its options carry (a compile level, a thread count,
  // a scripted engine in tests), so callers in one process never see each other's choice.
  EngineFn compiled;
  // With Engine::kCompiled: a statically in-bounds original runs on the compiled engine too, not
  // on the interpreter. For shapes the interpreter cannot afford (a default-shape program's
  // 10^8 statement executions); the C backend is itself checked against the interpreter.
  bool original_on_compiled = false;
};

struct Mismatch {
  std::string tensor;
  std::vector<int64_t> index;  // the first differing element, row-major order
  double expected = 0;         // original's value
  double actual = 0;           // candidate's value
  int64_t differing_elements = 0;
  uint64_t seed = 0;
  int written_by_block = -1;  // last top-level block of the candidate that writes the tensor
};

struct VerifyReport {
  Status status = Status::kEquivalent;
  Side side = Side::kCandidate;
  std::string message;  // one readable paragraph; empty when equivalent
  std::string engine;   // "interpreter", "compiled", "interpreter+compiled"
  int seeds_run = 0;
  double max_abs_error = 0;  // over all outputs and seeds compared
  double max_rel_error = 0;
  std::optional<Mismatch> mismatch;

  bool equivalent() const { return status == Status::kEquivalent; }
  std::string render() const;  // multi-line text for people
  nlohmann::json to_json() const;
};

VerifyReport verify(const leir::Program& original, const leir::Program& candidate,
                    const VerifyOptions& options = {});

// Text front door: `original` is a program file; `candidate` may be a full program file or a bare
// body, in which case the original's declarations are used (as for an LLM answer). Parse errors
// become kParseError (candidate) or a failure on the original side.
VerifyReport verify_text(std::string_view original, std::string_view candidate,
                         const VerifyOptions& options = {},
                         std::string_view original_file = "<original>",
                         std::string_view candidate_file = "<candidate>");

// Deterministic inputs for every declared non-output tensor. Floats ~ N(0,1)·scale, except
// tensors that reach log/sqrt/fractional powers, which are drawn from [0.5, 2]·scale; integer
// tensors used as subscripts are drawn inside the dimension they index; bool tensors 0/1.
std::vector<leir::TensorData> make_inputs(const leir::Program& p, uint64_t seed,
                                          double scale = 1.0);

Status status_from_error_category(std::string_view category);

// Above this many statement executions per run the interpreter is too slow to verify a program
// (a default-shape program takes minutes on it).
inline constexpr int64_t kInterpreterWorkLimit = 5'000'000;

// `base` fitted to the size of `original`: past kInterpreterWorkLimit, an interpreter or
// interpreter+compiled verification runs on the compiled engine alone, the original included,
// with a run budget of at least 4x its work. Anything else (a small program, the TVM engine) is
// returned unchanged. For verifying answers about default-shape programs (eval-single, reward).
VerifyOptions sized_for(const leir::Program& original, VerifyOptions base);

}  // namespace steptp::verify

namespace steptp::verify {

// Verifies many candidates against one original: the original is checked, compiled and run
// once per seed; each check() then only runs the candidate. verify() is a one-shot wrapper.
class Verifier {
 public:
  Verifier(leir::Program original, VerifyOptions options);
  // Set when the original itself is not a valid program (then every check() returns it).
  const std::optional<VerifyReport>& original_failure() const { return original_failure_; }
  VerifyReport check(const leir::Program& candidate) const;
  const leir::Program& original() const { return original_; }

 private:
  struct SeedRun {
    uint64_t seed = 0;
    std::vector<leir::TensorData> inputs;
    std::vector<leir::TensorData> expected;
  };
  leir::Program original_;
  VerifyOptions options_;
  std::optional<VerifyReport> original_failure_;
  std::vector<SeedRun> runs_;
};

}  // namespace steptp::verify
