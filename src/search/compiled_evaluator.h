// search/compiled_evaluator.h — the real Evaluator: verification with verify::Verifier against
// the initial program, measurement as the median run time of the program's compiled C
// (codegen/timing.h) with a fixed thread count.
//
// Verification engine "auto": the interpreter (the semantics of record, with race/bounds/uninit
// checks) when the initial program's static work is at most `interpreter_work_limit`
// statement executions per seed, else compiled C (fast, values only; safety then rests on the
// strategies' own legality checks). "tvm": the interpreter's safety checks, then the values of
// TVM's build of both programs (codegen::TvmEngine, given as `tvm`). The choice is reported.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "codegen/c_engine.h"
#include "codegen/timing.h"
#include "search/engine.h"
#include "verify/verify.h"

namespace steptp::search {

enum class VerifyEngineChoice { kAuto, kInterpreter, kCompiled, kTvm };

struct CompiledEvaluatorOptions {
  codegen::TimingOptions timing;  // threads, warm-up, repeats (the same for all)
  VerifyEngineChoice engine = VerifyEngineChoice::kAuto;
  int64_t interpreter_work_limit = 30'000'000;
  int verify_seeds = 2;
  uint64_t verify_seed = 0;
  verify::EngineFn tvm;  // the engine of VerifyEngineChoice::kTvm
};

class CompiledEvaluator final : public Evaluator {
 public:
  CompiledEvaluator(leir::Program initial, CompiledEvaluatorOptions options);
  Verdict verify(const leir::Program& candidate) override;
  Result<double> measure(const leir::Program& program) override;
  std::optional<Verdict> check_initial() override;
  // "interpreter", "compiled" or "tvm": the engine verification uses.
  std::string verify_engine() const;

 private:
  leir::Program initial_;
  CompiledEvaluatorOptions options_;
  verify::Engine engine_;
  std::unique_ptr<verify::Verifier> verifier_;  // built on first use (runs the original)
  const verify::Verifier& verifier();
};

}  // namespace steptp::search
