// dataset/filter.h — what of the verified records goes into the training files: structural
// de-duplication, the held-out split by workload, the difficulty-aware single-answer filter
// (caps and keep-probabilities, strategies_spec §7) and the multi-answer draws.
//
// Every random choice is a pure function of the seed and the records, so the selection does
// not depend on how (or in what order of threads) the records were produced.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "dataset/record.h"
#include "support/error.h"

namespace steptp::dataset {

struct KeepRule {
  double probability = 1.0;  // each candidate is kept with this probability ...
  int64_t cap = -1;          // ... while fewer than `cap` are kept (-1: no cap)
};

// Every cap below is for the train split. The held-out split is about
// test_fraction/(1-test_fraction) as large, so its caps are scaled by that ratio (at least 1):
// otherwise a 10% held-out split would fill the same per-strategy caps as train and end up nearly
// as big.
struct FilterOptions {
  uint64_t seed = 0;
  int64_t single_cap = 250;  // per strategy, on top of the difficulty rules
  KeepRule very_easy{0.5, 50};
  KeepRule very_easy_second{0.3, 10};  // the reference's second, stricter list
  std::vector<std::string> very_easy_second_names = {
      "expand_factorization", "expand_cancellation", "apart",         "together",
      "expand_powsimp",       "expand_log",          "expand_collect"};
  KeepRule easy{1.0, -1};
  KeepRule hard{1.0, -1};
  // Keep one single sample of a strategy whose candidates all lost their draw.
  bool keep_one_per_strategy = true;
  // A strategy's single candidates are drawn with default-shape and smaller-instance records
  // taking turns, so that under its cap the real shapes are not outnumbered by the toy ones.
  bool interleave_shape_classes = true;
  // Multi-answer labels: very easy never, easy with this probability up to the cap per strategy,
  // hard always. A record needs at least two labels sharing exactly its original program. The
  // reference keeps easy labels with 0.5; our generation verifies more easy steps per state than
  // its sampler, and 0.2 brings the share of hard labels to the ~87% the paper reports.
  KeepRule multi_easy{0.2, 2000};
  // Per original program with L eligible labels: uniform(2, min(L, multi_max_draws)) draws (the
  // reference draws up to L times) of uniform(2, min(L, multi_max_labels)) labels each.
  int multi_max_labels = 6;
  int multi_max_draws = 64;
  double test_fraction = 0.1;  // share of workloads held out (at least one when there are two)
  // A new field belongs in to_json / filter_options_from_json below too: shard manifests carry
  // these options to merge-dataset, which must filter exactly as the one-process build does.
};

// The options as JSON and back (all fields). Errors: "bad_input" naming the missing or
// mistyped field.
nlohmann::json to_json(const FilterOptions& options);
Result<FilterOptions> filter_options_from_json(const nlohmann::json& j);

// A cap of the train split as it applies to `split` (see FilterOptions); -1 stays -1.
int64_t split_cap(int64_t train_cap, std::string_view split, const FilterOptions& options);

// Indices of the records to keep, in order: the first of every group of records whose original
// and transformed programs (with declarations) are structurally equal.
std::vector<size_t> deduplicate(const std::vector<StepRecord>& records);

// The held-out workloads: ceil(fraction · N) of the distinct workloads, chosen by seeded hash.
std::set<std::string> held_out_workloads(const std::vector<std::string>& workloads, double fraction,
                                         uint64_t seed);

enum class FilterVerdict { kKept, kProbability, kCap };
std::string_view filter_verdict_name(
    FilterVerdict v);  // "kept" "dropped_probability" "dropped_cap"

// The single-answer filter over `candidates` (indices into records); returns one verdict per
// candidate, in the same order.
std::vector<FilterVerdict> filter_single(const std::vector<StepRecord>& records,
                                         const std::vector<size_t>& candidates,
                                         const FilterOptions& options, std::string_view split);

// Multi-answer samples over `candidates`: each is a list of record indices (ascending) that
// share one original program, 2..multi_max_labels labels, no two samples with the same list.
std::vector<std::vector<size_t>> draw_multi(const std::vector<StepRecord>& records,
                                            const std::vector<size_t>& candidates,
                                            const FilterOptions& options, std::string_view split);

// The stable identity of a record used to order the seeded draws.
std::string record_identity(const StepRecord& r);

}  // namespace steptp::dataset
