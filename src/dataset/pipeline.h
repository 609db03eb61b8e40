// dataset/pipeline.h — `build-dataset` as a library call: discover units, generate each one in
// parallel (oneTBB) with a per-unit checkpoint written atomically, then merge all checkpoints
// deterministically into the chat files, the archive and the statistics.
//
// Crash-safe and resumable: a rerun reuses every complete checkpoint made with the same
// settings. The merge only reads checkpoints, so the output bytes depend on the seed, the inputs
// and the token budget alone, never on --jobs or on which units were resumed. No written sample
// is longer than max_tokens (dataset/token_budget.h).
#pragma once

#include <string>
#include <vector>

#include "dataset/filter.h"
#include "dataset/generate.h"
#include "dataset/stats.h"
#include "dataset/workloads.h"
#include "support/error.h"

namespace steptp::dataset {

struct BuildOptions {
  std::string workloads_dir = "workloads";
  std::string glob = "*";
  std::string out_dir = "dataset";
  int jobs = 0;                        // 0: all cores
  bool include_default_shapes = true;  // under GenerateOptions::instance_work_budget
  bool progress = true;
  // A Hugging Face tokenizer.json counting every sample's tokens; empty: the bytes / 4 estimate.
  std::string tokenizer_path;
  int64_t max_tokens = 10240;  // the trainer's max length; samples over it are reduced or dropped
  GenerateOptions generate;
  FilterOptions filter;
};

struct BuildSummary {
  DatasetStats stats;
  size_t units = 0;
  size_t resumed_units = 0;
  double wall_seconds = 0;
  std::vector<std::string> files;  // written, relative to out_dir
};

Result<BuildSummary> build_dataset(const BuildOptions& options);
// The same, over an explicit unit list (tests).
Result<BuildSummary> build_dataset_from_units(const std::vector<WorkUnit>& units,
                                              const BuildOptions& options);

// Writes `contents` to `path` through a temporary file in the same folder and a rename.
Result<void> write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace steptp::dataset
