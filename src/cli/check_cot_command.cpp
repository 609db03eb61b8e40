// cli/check_cot_command.cpp — `steptp check-cot DIR [--sample N] [--seed S] [--json]`: the
// chain-of-thought checker over a seeded sample of a build's archive.jsonl.
//
// Only flag translation and rendering; the checks are dataset::audit_archive_cot.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "dataset/cot_audit.h"

namespace steptp::cli {

void setup_check_cot_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string dir;
    int64_t sample = 1000;
    uint64_t seed = 0;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "check-cot",
      "Check the chain of thought of a seeded sample of a dataset's steps: every backticked name "
      "is in the program before or after, every block #N exists, the modelled cost cited and its "
      "direction match the cost model, and no two strategies share an effect phrase. Exit 1 on "
      "any violation");
  cmd->add_option("dir", flags->dir, "A build-dataset output folder (with archive.jsonl)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--sample", flags->sample, "Records to check (0: all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", flags->seed, "Seed of the sample")->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print the summary as JSON");
  cmd->callback([flags, &ctx] {
    const std::string archive = (std::filesystem::path(flags->dir) / "archive.jsonl").string();
    auto audit = dataset::audit_archive_cot(archive, flags->sample, flags->seed);
    if (!audit) {
      std::cerr << "steptp: " << audit.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    if (flags->json) {
      nlohmann::json j = {
          {"records", audit->records},       {"checked", audit->checked},
          {"failed", audit->failed},         {"failures", audit->failures},
          {"strategies", audit->strategies}, {"shared_effects", audit->shared_effects},
          {"passed", audit->passed()}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << "check-cot: " << audit->checked << " of " << audit->records
                << " records checked, " << audit->failed << " failed, " << audit->strategies
                << " strategies, " << audit->shared_effects.size() << " shared effect phrases\n";
      for (const std::string& f : audit->failures) std::cout << "  " << f << "\n";
      for (const auto& [sentence, names] : audit->shared_effects)
        std::cout << "  shared by " << names << ": " << sentence << "\n";
    }
    if (!audit->passed()) ctx.exit_code = kExitNo;
  });
}

}  // namespace steptp::cli
