// frontend/catalog.cpp — reading catalog.json.
#include "frontend/catalog.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace steptp::frontend {

namespace fs = std::filesystem;

const CatalogWorkload* Catalog::find(std::string_view name) const {
  for (const CatalogWorkload& w : workloads)
    if (w.name == name) return &w;
  return nullptr;
}

std::string Catalog::graph_path(std::string_view name, bool small) const {
  return (fs::path(dir) / "graphs" / (std::string(name) + (small ? ".small.json" : ".json")))
      .string();
}

std::string Catalog::problem_path(const CatalogWorkload& w) const {
  return w.file.empty() ? std::string() : (fs::path(dir) / w.file).string();
}

Result<Catalog> read_catalog(const std::string& dir) {
  const std::string path = (fs::path(dir) / "catalog.json").string();
  std::ifstream in(path);
  if (!in)
    return Error::make("io_error", "cannot read " + path +
                                       " (run from the repository root, or pass --catalog DIR: "
                                       "the folder with catalog.json and graphs/)");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("workloads") ||
      !json["workloads"].is_array())
    return Error::make("bad_catalog", path + " is not a catalog (no \"workloads\" array)");
  Catalog catalog;
  catalog.dir = dir;
  for (const nlohmann::json& entry : json["workloads"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) continue;
    CatalogWorkload w;
    w.name = entry["name"].get<std::string>();
    if (entry.contains("level") && entry["level"].is_number_integer())
      w.level = entry["level"].get<int>();
    if (entry.contains("category") && entry["category"].is_string())
      w.category = entry["category"].get<std::string>();
    if (entry.contains("file") && entry["file"].is_string())
      w.file = entry["file"].get<std::string>();
    w.record = entry;
    catalog.workloads.push_back(std::move(w));
  }
  return catalog;
}

}  // namespace steptp::frontend
