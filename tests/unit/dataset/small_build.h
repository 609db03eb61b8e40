// tests/unit/dataset/small_build.h — the small build the dataset tests share: four small-shape
// catalog workloads, a budget that takes well under a second, and the files a build writes.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dataset/pipeline.h"

namespace steptp::dataset::small_build {

inline const char* const kOutputs[] = {
    "single_train.jsonl", "single_test.jsonl", "multi_train.jsonl",
    "multi_test.jsonl",   "archive.jsonl",     "stats.json",
    "stats.md",           "strategies.svg",    "dataset_info.json"};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ELU, GELU, FrobeniusNorm and Argmax_over_a_dimension, small shapes only, in id order.
inline std::vector<WorkUnit> test_units() {
  auto units = discover_units(std::string(STEPTP_SOURCE_DIR) + "/workloads",
                              "ELU,GELU,FrobeniusNorm,Argmax_over_a_dimension", false);
  EXPECT_TRUE(units.ok());
  if (!units) return {};
  EXPECT_EQ(units->size(), 4u);
  return *units;
}

inline BuildOptions options_for(const std::filesystem::path& out, int jobs) {
  BuildOptions o;
  o.out_dir = out.string();
  o.jobs = jobs;
  o.progress = false;
  o.generate.seed = 7;
  o.generate.max_depth = 1;
  o.generate.max_sites_per_strategy = 3;
  o.generate.chain_width = 1;
  o.filter.seed = 7;
  o.filter.test_fraction = 0.25;
  return o;
}

}  // namespace steptp::dataset::small_build
