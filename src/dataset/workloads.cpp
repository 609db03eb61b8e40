// dataset/workloads.cpp — catalog reading and unit discovery.
#include "dataset/workloads.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

#include "frontend/catalog.h"

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
  Result<frontend::Catalog> catalog = frontend::read_catalog(workloads_dir);
  if (!catalog.ok()) return std::move(catalog).error();
  std::vector<WorkUnit> units;
  for (const frontend::CatalogWorkload& w : catalog->workloads) {
    if (!matches_any(glob, w.name)) continue;
    const std::string small = catalog->graph_path(w.name, true);
    const std::string dflt = catalog->graph_path(w.name, false);
    if (fs::exists(small))
      units.push_back({w.name + ".small", w.name, w.level, "small", small, ""});
    if (include_default_shapes && fs::exists(dflt)) {
      const fs::path reduced = fs::path(dflt).parent_path() / (w.name + ".reduced.json");
      units.push_back({w.name + ".default", w.name, w.level, "default", dflt,
                       fs::exists(reduced) ? reduced.string() : std::string()});
    }
  }
  std::sort(units.begin(), units.end(),
            [](const WorkUnit& a, const WorkUnit& b) { return a.id < b.id; });
  return units;
}

}  // namespace steptp::dataset
