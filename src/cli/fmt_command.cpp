// cli/fmt_command.cpp — `steptp fmt FILE [--check] [--in-place]`: canonical LEIR formatting.
#include <iostream>
#include <sstream>

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
    bool drop_comments = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "fmt",
      "Print a LEIR program file in canonical form (declarations, then the body on one "
      "line, no whitespace)");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_flag("--check", flags->check,
                "Print nothing; exit 1 if the file is not already canonical");
  cmd->add_flag("-i,--in-place", flags->in_place,
                "Rewrite the file in canonical form (refused when the file has comments)");
  cmd->add_flag("--drop-comments", flags->drop_comments,
                "With -i: rewrite a file that has comments anyway (they are lost)");
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
      // The canonical form has no comments: rewriting would delete them without a word.
      std::istringstream lines(original);
      std::string line;
      for (int number = 1; std::getline(lines, line); ++number) {
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] != '#' || flags->drop_comments) continue;
        std::cerr << flags->file << ":" << number
                  << ": has comments, which the canonical form does not keep; not rewritten "
                     "(pass --drop-comments to rewrite anyway)\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
      if (flags->file == "-" || !write_file_atomic(flags->file, canonical))
        ctx.exit_code = kExitBadInput;
      return;
    }
    std::cout << canonical;
  });
}

}  // namespace steptp::cli
