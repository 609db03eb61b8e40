// codegen/timing.h — how steptp measures a kernel: warm-up runs, then repeated timed runs with a
// fixed OpenMP thread count; reports the median and the spread (min, max, quartiles).
//
// The same function times every contender (compiled naive C, a transformed program, and later
// the PyTorch baseline through the frontend's hook), so they are measured identically.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/c_engine.h"
#include "support/error.h"

namespace steptp::codegen {

struct TimingOptions {
  int warmup = 2;
  int repeats = 10;
  int threads = 1;  // fixed for every contender; > 0
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double q1_ms = 0;   // 25th percentile
  double q3_ms = 0;   // 75th percentile
  double iqr_ms = 0;  // q3 - q1
  int repeats = 0;
  int warmup = 0;
  int threads = 0;
  std::vector<double> samples_ms;  // in run order
};

// Summary statistics of samples (linear interpolation between order statistics).
Timing summarize(std::vector<double> samples_ms);

// Times `run` (one call = one measured sample) after `warmup` untimed calls.
Timing time_callable(const std::function<void()>& run, const TimingOptions& options);

// Times a compiled kernel on prepared buffers, with options.threads OpenMP threads.
Timing time_kernel(const CompiledKernel& kernel, KernelBuffers& buffers,
                   const TimingOptions& options);

// Deterministic inputs for benchmarks and the CUDA harness: element k of the i-th declared
// non-output tensor. Floats lie in [0.5, 1.5) (inside log/sqrt domains), integers are 0, bools 1.
double deterministic_input_value(leir::DType t, size_t tensor_ordinal, int64_t element);
std::vector<leir::TensorData> deterministic_inputs(const leir::Program& program);
// The same inputs written straight into a kernel's buffers (no TensorData copy).
KernelBuffers deterministic_buffers(const CompiledKernel& kernel, const leir::Program& program);

// Where the PyTorch eager baseline plugs in (implemented by the frontend, which owns the
// tracer); codegen only defines the shape of the answer.
using BaselineTimer = std::function<Result<Timing>(const TimingOptions&)>;

}  // namespace steptp::codegen
