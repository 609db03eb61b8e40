#include "codegen/timing.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace steptp::codegen {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

Timing summarize(std::vector<double> samples_ms) {
  Timing t;
  t.samples_ms = samples_ms;
  t.repeats = static_cast<int>(samples_ms.size());
  std::sort(samples_ms.begin(), samples_ms.end());
  if (samples_ms.empty()) return t;
  t.min_ms = samples_ms.front();
  t.max_ms = samples_ms.back();
  t.median_ms = quantile(samples_ms, 0.5);
  t.q1_ms = quantile(samples_ms, 0.25);
  t.q3_ms = quantile(samples_ms, 0.75);
  t.iqr_ms = t.q3_ms - t.q1_ms;
  return t;
}

Timing time_callable(const std::function<void()>& run, const TimingOptions& options) {
  for (int i = 0; i < options.warmup; ++i) run();
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(std::max(options.repeats, 0)));
  for (int i = 0; i < options.repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  Timing t = summarize(std::move(samples));
  t.warmup = options.warmup;
  t.threads = options.threads;
  return t;
}

Timing time_kernel(const CompiledKernel& kernel, KernelBuffers& buffers,
                   const TimingOptions& options) {
  kernel.set_threads(options.threads);
  // execute() re-applies the kernel's own thread setting; time the raw entry with ours.
  return time_callable(
      [&] {
        kernel.set_threads(options.threads);
        kernel.execute_raw(buffers);
      },
      options);
}

double deterministic_input_value(leir::DType t, size_t tensor_ordinal, int64_t element) {
  if (t == leir::DType::kBool) return 1.0;
  if (!leir::is_float(t)) return 0.0;
  uint64_t h = static_cast<uint64_t>(element) * 2654435761ULL +
               static_cast<uint64_t>(tensor_ordinal) * 97ULL + 12345ULL;
  double v = 0.5 + static_cast<double>(h % 1000003ULL) / 1000003.0;
  return leir::round_to_dtype(v, t);
}

std::vector<leir::TensorData> deterministic_inputs(const leir::Program& program) {
  std::vector<leir::TensorData> out;
  for (size_t i = 0; i < program.decls.size(); ++i) {
    const leir::TensorDecl& d = program.decls[i];
    if (d.role == leir::TensorRole::kOutput) continue;
    leir::TensorData t{d.name, d.dtype, d.shape, {}};
    int64_t n = leir::element_count(d.shape);
    t.values.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k)
      t.values[static_cast<size_t>(k)] = deterministic_input_value(d.dtype, i, k);
    out.push_back(std::move(t));
  }
  return out;
}

KernelBuffers deterministic_buffers(const CompiledKernel& kernel, const leir::Program& program) {
  std::map<std::string, size_t> ordinal;  // deterministic_input_value numbers the declarations
  for (size_t i = 0; i < program.decls.size(); ++i) ordinal.emplace(program.decls[i].name, i);
  return kernel.prepare_generated([&](const leir::TensorInfo& t, int64_t k) {
    auto it = ordinal.find(t.name);
    STEPTP_CHECK(it != ordinal.end(), "an input of the kernel is not declared by its program");
    return deterministic_input_value(t.dtype, it->second, k);
  });
}

}  // namespace steptp::codegen
