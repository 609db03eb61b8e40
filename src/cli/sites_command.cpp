// cli/sites_command.cpp — `steptp sites FILE [--strategy NAME] [--json] [--explain]`: every
// feasible step of a program, one replayable step per line (strategy order, then site order).
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "strategy/registry.h"

namespace steptp::cli {

void setup_sites_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    std::string strategy;
    bool json = false;
    bool explain = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "sites", "List every feasible step (strategy and parameters) of a LEIR program");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_option("--strategy", flags->strategy, "Only this strategy");
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  cmd->add_flag("--explain", flags->explain, "Also say what each step does");
  cmd->callback([flags, &ctx] {
    std::vector<const strategy::Strategy*> chosen;
    if (flags->strategy.empty()) {
      chosen = strategy::all_strategies();
    } else if (const strategy::Strategy* s = strategy::find_strategy(flags->strategy)) {
      chosen.push_back(s);
    } else {
      std::cerr << "steptp: unknown strategy '" << flags->strategy
                << "' (see `steptp strategies`)\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    auto program = load_program(flags->file);
    if (!program) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    nlohmann::json j = nlohmann::json::array();
    size_t count = 0;
    for (const strategy::Strategy* s : chosen) {
      for (const strategy::Site& site : strategy::feasible_sites(*s, *program)) {
        ++count;
        std::string explanation = flags->explain || flags->json ? s->explain(*program, site) : "";
        if (flags->json) {
          j.push_back({{"strategy", s->name()},
                       {"step", site.to_string()},
                       {"difficulty", strategy::difficulty_name(s->difficulty())},
                       {"explain", explanation}});
        } else {
          std::cout << site.to_string() << "\n";
          if (flags->explain) std::cout << "    " << explanation << "\n";
        }
      }
    }
    if (flags->json) std::cout << j.dump(2) << "\n";
    ctx.exit_code = count > 0 ? kExitOk : kExitNo;
  });
}

}  // namespace steptp::cli
