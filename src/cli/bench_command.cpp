// cli/bench_command.cpp — `steptp bench FILE [--threads N] [--repeats N] [--warmup N] [--json]`:
// the time of the program's compiled naive C on deterministic inputs (codegen/timing.h).
// The PyTorch eager baseline is not measured here: it arrives with the frontend, through
// codegen::BaselineTimer.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "codegen/c_engine.h"
#include "codegen/timing.h"

namespace steptp::cli {

void setup_bench_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    int threads = 1;
    int repeats = 10;
    int warmup = 2;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time the compiled C of a LEIR program file (median of repeated runs)");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_option("--threads", flags->threads, "OpenMP threads")->check(CLI::Range(1, 4096));
  cmd->add_option("--repeats", flags->repeats, "Timed runs")->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", flags->warmup, "Untimed runs first")->check(CLI::Range(0, 1000000));
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  cmd->callback([flags, &ctx] {
    auto program = load_program(flags->file);
    if (!program) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    codegen::CEngineOptions options;
    options.threads = flags->threads;
    Result<codegen::CompiledKernel> kernel = codegen::CompiledKernel::build(*program, options);
    if (!kernel.ok()) {
      std::cerr << flags->file << ": " << kernel.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    Result<codegen::KernelBuffers> buffers =
        kernel->prepare(codegen::deterministic_inputs(*program));
    if (!buffers.ok()) {
      std::cerr << flags->file << ": " << buffers.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    codegen::TimingOptions t;
    t.threads = flags->threads;
    t.repeats = flags->repeats;
    t.warmup = flags->warmup;
    codegen::Timing timing = codegen::time_kernel(*kernel, *buffers, t);
    if (flags->json) {
      nlohmann::json j = {{"file", flags->file},       {"engine", "c"},
                          {"threads", timing.threads}, {"warmup", timing.warmup},
                          {"repeats", timing.repeats}, {"median_ms", timing.median_ms},
                          {"min_ms", timing.min_ms},   {"max_ms", timing.max_ms},
                          {"q1_ms", timing.q1_ms},     {"q3_ms", timing.q3_ms},
                          {"iqr_ms", timing.iqr_ms},   {"samples_ms", timing.samples_ms},
                          {"cache_hit", kernel->cache_hit()}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format(
          "{}: compiled C, {} thread(s): median {:.3f} ms (min {:.3f}, max {:.3f}, IQR {:.3f}) "
          "over {} runs after {} warm-up\n",
          flags->file, timing.threads, timing.median_ms, timing.min_ms, timing.max_ms,
          timing.iqr_ms, timing.repeats, timing.warmup);
    }
  });
}

}  // namespace steptp::cli
