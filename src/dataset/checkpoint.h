// dataset/checkpoint.h — the per-unit checkpoint of a dataset build: one JSON file per work unit
// (checkpoints/<unit id>.json) holding the unit's result and the fingerprint of what made it.
//
// A checkpoint is trusted only under the same fingerprint (settings, strategy menu and the
// steptp executable's bytes); anything else reads as "no checkpoint" and is regenerated. Files
// are written atomically, so a killed build leaves whole checkpoints or none.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dataset/generate.h"
#include "dataset/record.h"
#include "support/error.h"

namespace steptp::dataset {

// Everything that changes what a unit generates, as JSON ({"format", "executable", "seed", ...}).
nlohmann::json checkpoint_fingerprint(const GenerateOptions& options);

// The running executable's identity (a hash of /proc/self/exe; "unknown" where unreadable).
const std::string& executable_identity();

// <out>/checkpoints/<unit_id>.json
std::filesystem::path checkpoint_path(const std::filesystem::path& out, const std::string& unit_id);

// The result stored at `path` if the file is a whole checkpoint made under `fingerprint`.
std::optional<UnitResult> load_checkpoint(const std::filesystem::path& path,
                                          const nlohmann::json& fingerprint);

// Errors: "io_error".
Result<void> write_checkpoint(const std::filesystem::path& path, const nlohmann::json& fingerprint,
                              const UnitResult& result);

// Writes `contents` to `path` through a temporary file in the same folder and a rename.
Result<void> write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace steptp::dataset
