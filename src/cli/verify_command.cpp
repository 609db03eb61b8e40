// cli/verify_command.cpp — `steptp verify ORIG CAND [--engine E] [--json]`: exit 0 equivalent,
// 1 not, 2 bad input (unreadable files, an invalid original, `--engine tvm` without TVM).
#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/tvm_setup.h"
#include "verify/verify.h"

namespace steptp::cli {

void setup_verify_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string original;
    std::string candidate;
    bool json = false;
    int seeds = 3;
    uint64_t seed = 0;
    double scale = 1.0;
    std::string engine = "interpreter";
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check that a candidate LEIR program computes the same outputs as the original "
      "(exit 0 equivalent, 1 not equivalent, 2 bad input)");
  cmd->add_option("original", flags->original, "Original LEIR program file")->required();
  cmd->add_option("candidate", flags->candidate,
                  "Candidate program file, or a bare body that uses the original's declarations")
      ->required();
  cmd->add_option("--seeds", flags->seeds, "Number of seeded input sets")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--seed", flags->seed, "First seed")->capture_default_str();
  cmd->add_option("--scale", flags->scale, "Scale of the random float inputs (e.g. 10, 100)")
      ->capture_default_str();
  cmd->add_option("--engine", flags->engine,
                  "interpreter | compiled (C) | both | tvm (the interpreter's checks, then "
                  "Apache TVM's llvm build on every seed)")
      ->capture_default_str()
      ->check(CLI::IsMember({"interpreter", "compiled", "both", "tvm"}));
  cmd->add_flag("--json", flags->json, "Machine-readable report");
  cmd->callback([flags, &ctx] {
    std::string original, candidate;
    if (!read_file(flags->original, original) || !read_file(flags->candidate, candidate)) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    verify::VerifyOptions options;
    options.num_seeds = flags->seeds;
    options.seed = flags->seed;
    options.input_scale = flags->scale;
    options.engine = flags->engine == "compiled" ? verify::Engine::kCompiled
                     : flags->engine == "both"   ? verify::Engine::kBoth
                     : flags->engine == "tvm"    ? verify::Engine::kTvm
                                                 : verify::Engine::kInterpreter;
    std::shared_ptr<codegen::TvmEngine> tvm;
    if (options.engine == verify::Engine::kTvm) {
      Result<std::shared_ptr<codegen::TvmEngine>> started = start_tvm_engine();
      if (!started) {
        std::cerr << "steptp verify: " << started.error().render() << "\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
      tvm = *started;
      options.tvm = [tvm](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
        return tvm->run(p, inputs);
      };
    }
    verify::VerifyReport report =
        verify::verify_text(original, candidate, options, flags->original, flags->candidate);
    if (flags->json) {
      std::cout << report.to_json().dump(2) << "\n";
    } else {
      (report.equivalent() ? std::cout : std::cerr) << report.render() << "\n";
    }
    if (report.side == verify::Side::kOriginal && !report.equivalent())
      ctx.exit_code = kExitBadInput;
    else
      ctx.exit_code = report.equivalent() ? kExitOk : kExitNo;
  });
}

}  // namespace steptp::cli
