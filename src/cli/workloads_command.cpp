// cli/workloads_command.cpp — `steptp workloads [--level N] [--json]`: lists the bundled
// catalog (workloads/catalog.json: name, level, category, problem file, default shapes).
// The catalog directory: $STEPTP_WORKLOADS_DIR, else next to the executable, else the source tree.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"

namespace steptp::cli {
namespace {

namespace fs = std::filesystem;

fs::path find_catalog() {
  std::error_code ec;
  if (const char* env = std::getenv("STEPTP_WORKLOADS_DIR"))
    if (fs::exists(fs::path(env) / "catalog.json", ec)) return fs::path(env) / "catalog.json";
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path())
      if (fs::exists(dir / "workloads" / "catalog.json", ec))
        return dir / "workloads" / "catalog.json";
  fs::path src = fs::path(__FILE__).parent_path().parent_path().parent_path() / "workloads";
  if (fs::exists(src / "catalog.json", ec)) return src / "catalog.json";
  return {};
}

}  // namespace

void setup_workloads_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    int level = 0;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("workloads", "List the bundled workload catalog");
  cmd->add_option("--level", flags->level, "only workloads of this KernelBench level")
      ->check(CLI::Range(1, 3));
  cmd->add_flag("--json", flags->json, "Machine-readable output (one JSON array)");
  cmd->callback([flags, &ctx] {
    ctx.exit_code = kExitBadInput;
    const fs::path path = find_catalog();
    if (path.empty()) {
      std::cerr << "steptp: cannot find workloads/catalog.json (set STEPTP_WORKLOADS_DIR)\n";
      return;
    }
    std::string text;
    if (!read_file(path.string(), text)) return;
    nlohmann::json cat = nlohmann::json::parse(text, nullptr, false);
    if (cat.is_discarded() || !cat.contains("workloads") || !cat["workloads"].is_array()) {
      std::cerr << "steptp: " << path.string() << " is not a workload catalog\n";
      return;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& w : cat["workloads"]) {
      if (flags->level != 0 && w.value("level", 0) != flags->level) continue;
      nlohmann::json e = w;
      e["file"] = (path.parent_path() / w.value("file", "")).string();
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
