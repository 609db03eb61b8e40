// search/cuda_evaluator.h — measurement on the GPU for `--target cuda`: the program's CUDA
// (codegen/cuda_emitter.h) with its timing harness, built by nvcc and run on the local GPU;
// verification stays on the CPU (the same Verifier as the C target).
//
// Only where a GPU exists: gpu_available() says whether one does, and the caller must give a
// clear error instead of constructing this without one.
#pragma once

#include <string>

#include "search/compiled_evaluator.h"

namespace steptp::search {

// `nvidia-smi -L` succeeds and lists a GPU.
bool gpu_available();

class CudaEvaluator final : public Evaluator {
 public:
  CudaEvaluator(leir::Program initial, CompiledEvaluatorOptions options, std::string work_dir);
  Verdict verify(const leir::Program& candidate) override { return cpu_.verify(candidate); }
  std::optional<Verdict> check_initial() override { return cpu_.check_initial(); }
  // Mean kernel time per run over `timing.repeats` runs after the harness's warm-up, as the
  // median of three harness runs. Errors: "compile_error" (emit or nvcc), "run_error".
  Result<double> measure(const leir::Program& program) override;
  std::string verify_engine() const { return cpu_.verify_engine(); }

 private:
  CompiledEvaluator cpu_;
  CompiledEvaluatorOptions options_;
  std::string work_dir_;
};

}  // namespace steptp::search
