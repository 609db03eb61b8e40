// dataset/workloads.cpp — catalog reading and unit discovery.
#include "dataset/workloads.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace steptp::dataset {

namespace {

// True when `name` matches one of the comma-separated fnmatch patterns of `globs`.
bool matches_any(const std::string& globs, const std::string& name) {
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = globs.find(',', start);
    const std::string pattern = globs.substr(start, comma - start);
    if (!pattern.empty() && fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
    if (comma == std::string::npos) return false;
    start = comma + 1;
  }
}

}  // namespace

Result<std::vector<WorkUnit>> discover_units(const std::string& workloads_dir,
                                             const std::string& glob, bool include_default_shapes) {
  namespace fs = std::filesystem;
  const fs::path root(workloads_dir);
  std::ifstream in(root / "catalog.json");
  if (!in)
    return Error::make("io_error", "cannot read " + (root / "catalog.json").string() +
                                       " (run from the repository root, or pass --catalog DIR: "
                                       "the folder with catalog.json and graphs/)");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json catalog = nlohmann::json::parse(text.str(), nullptr, false);
  if (catalog.is_discarded() || !catalog.contains("workloads") || !catalog["workloads"].is_array())
    return Error::make("bad_catalog", (root / "catalog.json").string() +
                                          " is not a catalog (no \"workloads\" array)");
  std::vector<WorkUnit> units;
  for (const nlohmann::json& w : catalog["workloads"]) {
    if (!w.contains("name") || !w["name"].is_string()) continue;
    const std::string name = w["name"].get<std::string>();
    if (!matches_any(glob, name)) continue;
    const int level = w.value("level", 0);
    const fs::path small = root / "graphs" / (name + ".small.json");
    const fs::path dflt = root / "graphs" / (name + ".json");
    if (fs::exists(small)) units.push_back({name + ".small", name, level, "small", small.string()});
    if (include_default_shapes && fs::exists(dflt))
      units.push_back({name + ".default", name, level, "default", dflt.string()});
  }
  std::sort(units.begin(), units.end(),
            [](const WorkUnit& a, const WorkUnit& b) { return a.id < b.id; });
  return units;
}

}  // namespace steptp::dataset
