// cli/bundled_data.cpp — the search order of bundled_data.h.
#include "cli/bundled_data.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace steptp::cli {
namespace {

namespace fs = std::filesystem;

// Data roots in search order; each holds workloads/ and python/ when it is a real root.
std::vector<fs::path> data_roots() {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("STEPTP_DATA_DIR"); env != nullptr && *env != '\0')
    roots.emplace_back(env);
  std::error_code ec;
  roots.push_back(fs::current_path(ec));
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path()) {
      roots.push_back(dir);
      roots.push_back(dir / "share" / "steptp");  // an install tree moved as a whole
    }
#ifdef STEPTP_INSTALL_DATADIR
  roots.emplace_back(STEPTP_INSTALL_DATADIR);
#endif
#ifdef STEPTP_SOURCE_DIR
  roots.emplace_back(STEPTP_SOURCE_DIR);
#endif
  return roots;
}

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

}  // namespace

std::string catalog_dir(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("STEPTP_WORKLOADS_DIR"); env != nullptr && *env != '\0')
    return env;
  for (const fs::path& root : data_roots())
    if (path_exists(root / "workloads" / "catalog.json")) return (root / "workloads").string();
  return "workloads";
}

std::string bundled_file(const std::string& flag_value, const std::string& relative) {
  if (!flag_value.empty()) return flag_value;
  for (const fs::path& root : data_roots())
    if (path_exists(root / relative)) return (root / relative).string();
  return relative;
}

}  // namespace steptp::cli
