// dataset/shard.h — a dataset build split over processes or machines: `build-dataset --shard K/N`
// generates the checkpoints of one share of the work units plus a manifest (shard.json), and
// merge_shards checks that a set of such parts was made with one setting and covers every unit
// exactly once, then runs the one-process merge (merge_unit_results) over their checkpoints.
// The merged files are therefore byte-identical to build_dataset's with the same seed and options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dataset/pipeline.h"

namespace steptp::dataset {

struct ShardSpec {
  int index = 0;  // K, 0-based
  int count = 1;  // N
};

// "K/N", two decimal numbers with 0 <= K < N. Errors: "bad_input" quoting the text.
Result<ShardSpec> parse_shard(std::string_view text);
std::string to_string(const ShardSpec& shard);  // "K/N"

// The shard of every unit id, in the order given. The ids are ordered by stable_hash(id) (ties
// by id) and the one at position i of that order goes to shard i % count: each shard gets
// floor(U/N) or ceil(U/N) units, and a workload's "small" and "default" units, adjacent in id
// order, are not dealt to alternate shards (which would give every default shape to one shard).
std::vector<int> shard_assignment(const std::vector<std::string>& unit_ids, int count);

inline constexpr const char* kShardManifest = "shard.json";

struct ShardSummary {
  ShardSpec shard;
  size_t total_units = 0;  // of the whole build
  size_t units = 0;        // of this shard
  size_t resumed_units = 0;
  DatasetStats stats;  // count_units over this shard's units
  double wall_seconds = 0;
};

// Discovers the units as build_dataset does, generates this shard's checkpoints into
// options.out_dir/checkpoints (resuming like a full build), then writes options.out_dir/shard.json:
// the shard, the settings that change the merged bytes, the whole build's unit ids and this
// shard's. No chat files, archive or statistics are written. The manifest is removed first and
// written last, so a folder holding one is a finished part.
Result<ShardSummary> build_shard(const BuildOptions& options, ShardSpec shard);
// The same over an explicit unit list, the whole build's (tests).
Result<ShardSummary> build_shard_from_units(const std::vector<WorkUnit>& units,
                                            const BuildOptions& options, ShardSpec shard);

struct MergeOptions {
  std::vector<std::string> parts;  // folders written by build_shard
  std::string out_dir;
  int jobs = 0;  // merge threads (0: all cores); never changes the bytes
  // Where the tokenizer.json the parts counted with is on this machine; empty: the path the
  // parts recorded. Its content must be the one they used.
  std::string tokenizer_path;
};

struct MergeSummary {
  BuildSummary build;
  BuildOptions options;  // the build's options as the parts recorded them, with out_dir and jobs
};

// Errors ("bad_input" unless an output cannot be written), each naming the part or unit at
// fault: a folder without a readable manifest; parts built with other settings, another unit
// list, another shard count or another steptp executable than the first part; a unit in two
// parts; a unit in no part (a missing shard); a listed unit without a valid checkpoint; a
// tokenizer whose content differs from the one the parts counted with.
Result<MergeSummary> merge_shards(const MergeOptions& options);

}  // namespace steptp::dataset
