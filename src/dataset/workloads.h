// dataset/workloads.h — the work units of a dataset build: one per (catalog workload, traced
// shape instance), read from workloads/catalog.json and the graphs beside it.
//
// Only discovery: whether an instance is affordable to verify is decided when it is generated.
#pragma once

#include <string>
#include <vector>

#include "support/error.h"

namespace steptp::dataset {

struct WorkUnit {
  std::string id;  // "<workload>.<instance>", unique, the checkpoint file name
  std::string workload;
  int level = 0;
  std::string instance;    // "small" (the small-shape graph) or "default" (the default shapes)
  std::string graph_path;  // the graph JSON to import
  // Default instance only: the workload's reduced instance (graphs/<name>.reduced.json, made by
  // python/steptp_catalog_reduced.py), on which steps too expensive to verify at the default
  // shapes are replayed and verified; empty when the catalog has none.
  std::string reduced_graph_path;
};

// Units of every catalog workload whose name matches `glob` (fnmatch patterns, comma-separated:
// a name matching any of them is taken), sorted by id.
// `workloads_dir` holds catalog.json and graphs/. Errors: "io_error", "bad_catalog".
Result<std::vector<WorkUnit>> discover_units(const std::string& workloads_dir,
                                             const std::string& glob, bool include_default_shapes);

}  // namespace steptp::dataset
