// search/compiled_evaluator.cpp — verify with verify::Verifier, measure compiled C.
#include "search/compiled_evaluator.h"

namespace steptp::search {

CompiledEvaluator::CompiledEvaluator(leir::Program initial, CompiledEvaluatorOptions options)
    : initial_(std::move(initial)), options_(options) {
  switch (options_.engine) {
    case VerifyEngineChoice::kInterpreter:
      engine_ = verify::Engine::kInterpreter;
      break;
    case VerifyEngineChoice::kCompiled:
      engine_ = verify::Engine::kCompiled;
      break;
    case VerifyEngineChoice::kTvm:
      engine_ = verify::Engine::kTvm;
      break;
    case VerifyEngineChoice::kAuto:
      engine_ = codegen::static_work(initial_) <= options_.interpreter_work_limit
                    ? verify::Engine::kInterpreter
                    : verify::Engine::kCompiled;
      break;
  }
}

std::string CompiledEvaluator::verify_engine() const {
  return std::string(verify::engine_name(engine_));
}

const verify::Verifier& CompiledEvaluator::verifier() {
  if (!verifier_) {
    verify::VerifyOptions o;
    o.num_seeds = options_.verify_seeds;
    o.seed = options_.verify_seed;
    o.engine = engine_;
    o.tvm = options_.tvm;
    verifier_ = std::make_unique<verify::Verifier>(initial_, o);
  }
  return *verifier_;
}

Verdict CompiledEvaluator::verify(const leir::Program& candidate) {
  verify::VerifyReport report = verifier().check(candidate);
  return Verdict{std::string(verify::status_name(report.status)), report.message};
}

std::optional<Verdict> CompiledEvaluator::check_initial() {
  const std::optional<verify::VerifyReport>& failure = verifier().original_failure();
  if (!failure) return std::nullopt;
  return Verdict{std::string(verify::status_name(failure->status)), failure->message};
}

Result<double> CompiledEvaluator::measure(const leir::Program& program) {
  codegen::CEngineOptions engine_options;
  engine_options.threads = options_.timing.threads;
  Result<codegen::CompiledKernel> kernel = codegen::CompiledKernel::build(program, engine_options);
  if (!kernel.ok()) return std::move(kernel).error();
  codegen::KernelBuffers buffers = codegen::deterministic_buffers(*kernel, program);
  codegen::Timing t = codegen::time_kernel(*kernel, buffers, options_.timing);
  return t.median_ms;
}

}  // namespace steptp::search
