// cli/apply_command.cpp — `steptp apply FILE STEP [-o OUT] [--explain]` applies one replayable
// step; `steptp apply FILE --strategy NAME --all -o DIR` writes one program per feasible site
// (DIR/<strategy>_<NNN>.leir, in site order, each starting with a `# step:` comment).
// Exit codes: 0 applied, 1 the step does not apply (the Infeasible code and reason on stderr),
// 2 bad input (unreadable program, malformed step, unknown strategy, bad flags).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "leir/printer.h"
#include "strategy/registry.h"

namespace steptp::cli {
namespace {

// The explanation as '#' comment lines, so the output stays a valid program file.
std::string as_comment(const std::string& step, const std::string& explanation) {
  return "# step: " + step + "\n# " + explanation + "\n";
}

bool emit(const std::string& out_path, const std::string& text) {
  if (out_path.empty() || out_path == "-") {
    std::cout << text;
    return true;
  }
  return write_file_atomic(out_path, text);
}

}  // namespace

void setup_apply_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    std::string step;
    std::string strategy;
    std::string out;
    bool all = false;
    bool explain = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "apply",
      "Apply one step (e.g. \"loop_tiling(block=0, loops=a,c, factors=8,16)\") to a "
      "LEIR program, or every feasible step of one strategy with --all");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_option("step", flags->step, "The step, as printed by `steptp sites`");
  cmd->add_option("--strategy", flags->strategy, "With --all: the strategy to enumerate");
  cmd->add_flag("--all", flags->all, "Write one program per feasible site into the -o folder");
  cmd->add_option("-o,--output", flags->out, "Output file (a folder with --all); default stdout");
  cmd->add_flag("--explain", flags->explain, "Prefix the output with the step's explanation");
  cmd->callback([flags, &ctx] {
    ctx.exit_code = kExitBadInput;
    if (flags->all == !flags->step.empty()) {
      std::cerr << "steptp: give either a STEP or --strategy NAME --all -o DIR\n";
      return;
    }
    auto program = load_program(flags->file);
    if (!program) return;
    if (flags->all) {
      const strategy::Strategy* s = strategy::find_strategy(flags->strategy);
      if (s == nullptr || flags->out.empty()) {
        std::cerr << "steptp: --all needs --strategy NAME (a known strategy) and -o DIR\n";
        return;
      }
      std::error_code ec;
      std::filesystem::create_directories(flags->out, ec);
      if (ec) {
        std::cerr << "steptp: cannot create " << flags->out << ": " << ec.message() << "\n";
        return;
      }
      size_t n = 0;
      for (const strategy::Site& site : strategy::feasible_sites(*s, *program)) {
        strategy::Outcome<leir::Program> out = s->apply(*program, site);
        STEPTP_CHECK(out.ok(), "a feasible site failed to apply: " + site.to_string());
        std::string text =
            as_comment(site.to_string(), s->explain(*program, site)) + leir::print_program(*out);
        std::string path =
            (std::filesystem::path(flags->out) / fmt::format("{}_{:03}.leir", s->name(), n++))
                .string();
        if (!write_file_atomic(path, text)) return;
      }
      std::cerr << "steptp: wrote " << n << " programs to " << flags->out << "\n";
      ctx.exit_code = n > 0 ? kExitOk : kExitNo;
      return;
    }
    Result<strategy::Site> site = strategy::parse_site(flags->step);
    if (!site) {
      std::cerr << "steptp: " << site.error().render() << "\n";
      return;
    }
    const strategy::Strategy* s = strategy::find_strategy(site->strategy());
    if (s == nullptr) {
      std::cerr << "steptp: unknown strategy '" << site->strategy()
                << "' (see `steptp strategies`)\n";
      return;
    }
    if (strategy::Check known = strategy::known_parameters(*s, *program, *site); !known) {
      std::cerr << "steptp: infeasible: " << known.infeasible().render() << "\n";
      ctx.exit_code = kExitNo;
      return;
    }
    strategy::Outcome<leir::Program> out = s->apply(*program, *site);
    if (!out) {
      std::cerr << "steptp: infeasible: " << out.infeasible().render() << "\n";
      ctx.exit_code = kExitNo;
      return;
    }
    std::string text = leir::print_program(*out);
    if (flags->explain) text = as_comment(site->to_string(), s->explain(*program, *site)) + text;
    if (!emit(flags->out, text)) return;
    ctx.exit_code = kExitOk;
  });
}

}  // namespace steptp::cli
