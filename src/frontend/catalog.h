// frontend/catalog.h — the workload catalog (catalog.json and the traced graphs beside it): the
// one reader every C++ caller uses to list workloads, find their graphs and their problem files.
//
// Only reading: the catalog is built by python/steptp_catalog_gen.py, and what a caller does
// with a workload (import, generate, time) is the caller's business.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace steptp::frontend {

struct CatalogWorkload {
  std::string name;
  int level = 0;
  std::string category;
  std::string file;       // the KernelBench problem file, relative to the catalog folder ("")
  nlohmann::json record;  // the whole entry as written (shape variables and all)
};

struct Catalog {
  std::string dir;  // the folder holding catalog.json and graphs/
  std::vector<CatalogWorkload>
      workloads;  // in the file's order; entries without a name are left out

  // The workload of that name, or nullptr.
  const CatalogWorkload* find(std::string_view name) const;
  // graphs/<name>.json (the default shapes) or graphs/<name>.small.json; it may not exist.
  std::string graph_path(std::string_view name, bool small) const;
  // The problem file's path under `dir`, or "" when the entry names none.
  std::string problem_path(const CatalogWorkload& w) const;
};

// Reads `dir`/catalog.json. Errors: "io_error" (no readable file), "bad_catalog" (not JSON, or
// no "workloads" array).
Result<Catalog> read_catalog(const std::string& dir);

}  // namespace steptp::frontend
