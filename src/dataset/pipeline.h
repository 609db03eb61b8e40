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

#include "dataset/checkpoint.h"
#include "dataset/filter.h"
#include "dataset/full_shape_check.h"
#include "dataset/generate.h"
#include "dataset/stats.h"
#include "dataset/token_budget.h"
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
  // Default-shape samples verified on their reduced instance and checked again at full shape
  // in the build (`samples` of them; the seed and threads are the build's).
  FullShapeCheckOptions full_shape_check;
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

// The two halves of build_dataset_from_units, also used by shard builds and merge-dataset
// (dataset/shard.h), so that a merge of parts runs exactly the code of a one-process build.
//
// Generates every unit without a valid checkpoint in options.out_dir/checkpoints, in parallel,
// writing each checkpoint as soon as it is done. Returns how many units were resumed.
Result<size_t> generate_checkpoints(const std::vector<WorkUnit>& units,
                                    const BuildOptions& options);
// The results of `units` from the checkpoints generate_checkpoints just wrote, in that order.
// Errors: "io_error" naming a unit whose checkpoint vanished or changed since.
Result<std::vector<UnitResult>> load_generated_checkpoints(const std::vector<WorkUnit>& units,
                                                           const BuildOptions& options);
// The token counter options.tokenizer_path names (the estimate when empty). Errors: those of
// TokenCounter::from_file.
Result<TokenCounter> token_counter_for(const BuildOptions& options);
// The generation counts of `results` alone (units, skips, states, candidates, verified,
// rejections, verified per strategy): what a shard can report before any merge.
DatasetStats count_units(const std::vector<UnitResult>& results);
// The deterministic merge: `results` in unit order (the order discover_units gives) become the
// chat files, the archive and the statistics in options.out_dir. Only options.filter,
// max_tokens, jobs and out_dir are read; the bytes do not depend on jobs.
Result<BuildSummary> merge_unit_results(std::vector<UnitResult> results,
                                        const TokenCounter& counter, const BuildOptions& options);

}  // namespace steptp::dataset
