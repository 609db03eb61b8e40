// cli/workloads_command.cpp — `steptp workloads [--level N] [--json]`: lists the bundled
// catalog (workloads/catalog.json: name, level, category, problem file, default shapes).
// The catalog folder: --catalog, else found as cli/bundled_data.h says.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/bundled_data.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "frontend/catalog.h"

namespace steptp::cli {

namespace fs = std::filesystem;

void setup_workloads_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    int level = 0;
    bool json = false;
    std::string catalog;
    bool print_path = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("workloads", "List the bundled workload catalog");
  cmd->add_option("--level", flags->level, "only workloads of this KernelBench level")
      ->check(CLI::Range(1, 3));
  cmd->add_flag("--json", flags->json, "Machine-readable output (one JSON array)");
  cmd->add_option("--catalog", flags->catalog,
                  "Folder with catalog.json and graphs/ (default: found beside the checkout or "
                  "install, or $STEPTP_WORKLOADS_DIR)");
  cmd->add_flag("--path", flags->print_path, "Print the catalog folder steptp uses, nothing else");
  cmd->callback([flags, &ctx] {
    ctx.exit_code = kExitBadInput;
    const fs::path dir = catalog_dir(flags->catalog);
    const fs::path path = dir / "catalog.json";
    if (flags->print_path) {
      std::error_code ec;
      if (!fs::exists(path, ec)) {
        std::cerr << "steptp: no catalog.json in " << dir.string() << "\n";
        return;
      }
      std::cout << fs::absolute(dir, ec).string() << "\n";
      ctx.exit_code = kExitOk;
      return;
    }
    Result<frontend::Catalog> catalog = frontend::read_catalog(dir.string());
    if (!catalog.ok()) {
      std::cerr << "steptp: " << catalog.error().message << "\n";
      return;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const frontend::CatalogWorkload& w : catalog->workloads) {
      if (flags->level != 0 && w.level != flags->level) continue;
      nlohmann::json e = w.record;
      e["file"] = catalog->problem_path(w);
      out.push_back(e);
    }
    if (flags->json) {
      std::cout << out.dump(1) << "\n";
    } else {
      for (const auto& w : out)
        std::cout << w.value("level", 0) << "  " << w.value("name", "") << "  ("
                  << w.value("category", "") << ")\n";
      std::cout << out.size() << " workloads\n";
    }
    ctx.exit_code = kExitOk;
  });
}

}  // namespace steptp::cli
