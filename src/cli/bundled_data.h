// cli/bundled_data.h — where the files steptp ships beside its binary are found: the workload
// catalog (workloads/catalog.json, graphs/) and the Python helpers (python/torch_baseline.py).
//
// A flag the user passed always wins. Otherwise the first of these that holds the file:
//   1. $STEPTP_WORKLOADS_DIR (the catalog only) or $STEPTP_DATA_DIR (the folder above workloads/);
//   2. the working directory (a checkout run from its root);
//   3. the folders above the executable and their share/steptp (a build tree inside a checkout,
//      an install tree moved as a whole);
//   4. the installed data folder (`cmake --install`: PREFIX/share/steptp);
//   5. the source tree the binary was built from.
// So `steptp` finds its catalog wherever it is run from.
#pragma once

#include <string>

namespace steptp::cli {

// The catalog folder: `flag_value` when not empty, else the first candidate folder that holds
// catalog.json, else "workloads" (whose error message then names what is missing).
std::string catalog_dir(const std::string& flag_value);

// A bundled file by its path relative to the data root (e.g. "python/torch_baseline.py"):
// `flag_value` when not empty, else the first candidate that exists, else `relative` itself.
std::string bundled_file(const std::string& flag_value, const std::string& relative);

}  // namespace steptp::cli
