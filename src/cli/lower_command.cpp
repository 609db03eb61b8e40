// cli/lower_command.cpp — `steptp lower FILE --target c|cuda|tir|tir-llvm|halide [-o OUT]`: the
// program's code for one backend (C for the CPU, a CUDA file with its host harness, TVMScript
// for TVM 0.27: `tir` keeps the GPU thread bindings, `tir-llvm` is for TVM's CPU target, or a
// Python module building a Halide pipeline).
#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "codegen/c_emitter.h"
#include "codegen/cuda_emitter.h"
#include "codegen/halide_emitter.h"
#include "codegen/tir_emitter.h"
#include "leir/wellformed.h"

namespace steptp::cli {

void setup_lower_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    std::string target = "c";
    std::string output;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "lower",
      "Generate code for a LEIR program file: C (OpenMP), CUDA (with a host harness) "
      "TVMScript TIR or a Halide pipeline (Python)");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_option("--target", flags->target,
                  "Backend: c, cuda, tir (TVMScript for TVM's CUDA target), tir-llvm (its CPU "
                  "target), halide (a Python module of Halide 21's bindings)")
      ->check(CLI::IsMember({"c", "cuda", "tir", "tir-llvm", "halide"}));
  cmd->add_option("-o,--output", flags->output, "Write here instead of stdout (atomically)");
  cmd->callback([flags, &ctx] {
    auto program = load_program(flags->file);
    if (!program) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    Result<void> wf = leir::check_well_formed(*program);
    if (!wf.ok()) {
      std::cerr << flags->file << ": " << wf.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    Result<std::string> code = Error::make("internal", "no target");
    if (flags->target == "c") {
      Result<codegen::CSource> c = codegen::emit_c(*program);
      code = c.ok() ? Result<std::string>(c->code) : Result<std::string>(c.error());
    } else if (flags->target == "cuda") {
      Result<codegen::CudaSource> cu = codegen::emit_cuda(*program);
      if (cu.ok())
        for (const std::string& note : cu->notes) std::cerr << "note: " << note << "\n";
      code = cu.ok() ? Result<std::string>(cu->code) : Result<std::string>(cu.error());
    } else if (flags->target == "halide") {
      code = codegen::emit_halide(*program);
    } else {
      code = codegen::emit_tir(
          *program, flags->target == "tir" ? codegen::TirTarget::kCuda : codegen::TirTarget::kLlvm);
    }
    if (!code.ok()) {
      std::cerr << flags->file << ": " << code.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    if (flags->output.empty()) {
      std::cout << *code;
    } else if (!write_file_atomic(flags->output, *code)) {
      ctx.exit_code = kExitBadInput;
    }
  });
}

}  // namespace steptp::cli
