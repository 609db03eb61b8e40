// cli/fmt_command.cpp — `steptp fmt FILE [--check] [--in-place]`: canonical LEIR formatting.
#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "leir/printer.h"

namespace steptp::cli {

void setup_fmt_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    bool check = false;
    bool in_place = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "fmt", "Print a LEIR program file in canonical form (declarations, then the body on one "
             "line, no whitespace)");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_flag("--check", flags->check,
                "Print nothing; exit 1 if the file is not already canonical");
  cmd->add_flag("-i,--in-place", flags->in_place, "Rewrite the file in canonical form");
  cmd->callback([flags, &ctx] {
    std::string original;
    if (!read_file(flags->file, original)) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    auto program = load_program(flags->file);
    if (!program) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    std::string canonical = leir::print_program(*program);
    if (flags->check) {
      if (canonical != original) {
        std::cerr << flags->file << ": not in canonical form\n";
        ctx.exit_code = kExitNo;
      }
      return;
    }
    if (flags->in_place) {
      if (flags->file == "-" || !write_file_atomic(flags->file, canonical))
        ctx.exit_code = kExitBadInput;
      return;
    }
    std::cout << canonical;
  });
}

}  // namespace steptp::cli
