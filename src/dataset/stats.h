// dataset/stats.h — the statistics of one dataset build: what was tried, verified, rejected (by
// reason), de-duplicated, filtered and exported, per strategy, category, difficulty and depth,
// the hard share, token lengths and the token budget's drops; rendered as JSON, Markdown and an
// SVG bar chart.
//
// Only deterministic figures live here (no wall times), so the files are byte-identical
// between runs with the same seed and inputs.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dataset/full_shape_check.h"

namespace steptp::dataset {

struct StrategyCounts {
  std::string category;
  std::string difficulty;
  int64_t verified = 0;      // verified records (before de-duplication)
  int64_t unique = 0;        // after de-duplication
  int64_t single_kept = 0;   // single-answer samples (train + test)
  int64_t multi_labels = 0;  // labels inside multi-answer samples (train + test)
};

// Token lengths of a set of samples; percentiles are nearest-rank (an element of the set).
struct LengthSummary {
  int64_t count = 0;
  int64_t mean = 0;
  int64_t median = 0;  // p50
  int64_t p90 = 0;
  int64_t p99 = 0;
  int64_t max = 0;
  int64_t over_4k = 0;  // samples longer than 4096, 8192 and 10240 tokens
  int64_t over_8k = 0;
  int64_t over_10k = 0;
};
LengthSummary summarize_lengths(std::vector<int64_t> lengths);
// {count, mean, p50, p90, p99, max, over_4k, over_8k, over_10k}
nlohmann::json to_json(const LengthSummary& l);

// What the token budget (dataset/token_budget.h) did to the samples the filters kept.
struct BudgetCounts {
  int64_t dropped_over_budget_single = 0;
  int64_t reduced_multi = 0;              // multi samples written with fewer labels
  int64_t labels_removed = 0;             // labels those samples lost
  int64_t dropped_over_budget_multi = 0;  // no >= 2 label subset fitted
  int64_t dropped_duplicate_multi = 0;    // a reduced sample equal to another written one
};

struct DatasetStats {
  int64_t units = 0;
  int64_t units_skipped = 0;  // import failures and over-budget instances
  int64_t states = 0;
  int64_t candidates = 0;
  int64_t verified = 0;
  int64_t unique = 0;
  int64_t duplicates = 0;
  std::map<std::string, int64_t> rejected;
  std::map<std::string, std::string> skipped_units;  // unit → reason
  std::map<std::string, StrategyCounts> per_strategy;
  std::map<std::string, int64_t> single_by_category;
  std::map<std::string, int64_t> single_by_difficulty;
  std::map<int, int64_t> single_by_depth;
  // Written samples by the shape class of their program: "small", "default" (verified at those
  // shapes) and "default, verified reduced" (replayed on the reduced instance); multi samples
  // by the class of their shared original.
  std::map<std::string, int64_t> single_by_shape_class, multi_by_shape_class;
  FullShapeCheck full_shape;  // the build's check of default-shape samples at full shape
  std::map<std::string, int64_t> filter_verdicts;
  int64_t single_train = 0, single_test = 0, multi_train = 0, multi_test = 0;
  std::vector<std::string> test_workloads;
  int64_t train_workloads = 0;
  double hard_share_single = 0;  // hard single samples / all single samples
  double hard_share_labels = 0;  // hard labels / all labels (single + multi), as the paper counts
  std::string token_counter;     // TokenCounter::description(): which tokenizer counted
  int64_t max_tokens = 0;        // the budget every written sample is within
  BudgetCounts budget;
  LengthSummary single_tokens, multi_tokens;    // written samples, both splits
  std::map<std::string, LengthSummary> tokens;  // per file: single_train, single_test, multi_...
  // The same files' prompts (system + user) and answers (the assistant's turn): tokens[f] is
  // their sum, sample by sample.
  std::map<std::string, LengthSummary> prompt_tokens, answer_tokens;
};

nlohmann::json to_json(const DatasetStats& s);
std::string to_markdown(const DatasetStats& s);
// A horizontal bar chart of single samples per strategy, coloured by difficulty.
std::string strategy_chart_svg(const DatasetStats& s);

}  // namespace steptp::dataset
