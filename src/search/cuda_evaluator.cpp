// search/cuda_evaluator.cpp — nvcc build and harness runs of a program's CUDA.
#include "search/cuda_evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "codegen/cuda_emitter.h"

namespace steptp::search {
namespace {

// Runs a shell command; returns (exit status, combined output).
std::pair<int, std::string> run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "cannot start: " + command};
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  return {pclose(pipe), out};
}

}  // namespace

bool gpu_available() {
  auto [status, out] = run_command("nvidia-smi -L");
  return status == 0 && out.find("GPU") != std::string::npos;
}

CudaEvaluator::CudaEvaluator(leir::Program initial, CompiledEvaluatorOptions options,
                             std::string work_dir)
    : cpu_(std::move(initial), options), options_(options), work_dir_(std::move(work_dir)) {}

Result<double> CudaEvaluator::measure(const leir::Program& program) {
  Result<codegen::CudaSource> source = codegen::emit_cuda(program);
  if (!source.ok()) return Error::make("compile_error", source.error().render());
  std::filesystem::create_directories(work_dir_);
  std::string stem = fmt::format("{}/k{:016x}", work_dir_, leir::hash_value(program));
  {
    std::ofstream out(stem + ".cu");
    out << source->code;
  }
  auto [built, log] =
      run_command(fmt::format("{} -O3 -arch=sm_90 -o {} {}.cu", codegen::find_nvcc(), stem, stem));
  if (built != 0) return Error::make("compile_error", log.substr(0, 2000));
  std::vector<double> times;
  for (int i = 0; i < 3; ++i) {
    auto [status, out] = run_command(fmt::format("{} {}", stem, options_.timing.repeats));
    size_t at = out.find("time_ms ");
    if (status != 0 || at == std::string::npos)
      return Error::make("run_error", out.substr(0, 2000));
    times.push_back(std::stod(out.substr(at + 8)));
  }
  std::sort(times.begin(), times.end());
  return times[1];
}

}  // namespace steptp::search
