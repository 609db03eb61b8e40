// dataset/filter.cpp — de-duplication, split, single filter, multi draws.
#include "dataset/filter.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "dataset/seeded_random.h"
#include "leir/parser.h"

namespace steptp::dataset {
namespace {

// Structural equality of two records' programs; the hashes already agree when this is asked.
bool same_step(const StepRecord& a, const StepRecord& b) {
  auto program = [](const std::string& decls, const std::string& body) {
    return leir::parse_program(decls + body + "\n");
  };
  auto ao = program(a.declarations, a.original), bo = program(b.declarations, b.original);
  auto at = program(a.declarations, a.transformed), bt = program(b.declarations, b.transformed);
  if (!ao || !bo || !at || !bt)  // unparsable text cannot be compared structurally
    return a.declarations == b.declarations && a.original == b.original &&
           a.transformed == b.transformed;
  return *ao == *bo && *at == *bt;
}

const KeepRule& single_rule(const StepRecord& r, const FilterOptions& o) {
  if (r.difficulty == "very_easy") {
    for (const std::string& n : o.very_easy_second_names)
      if (n == r.strategy) return o.very_easy_second;
    return o.very_easy;
  }
  if (r.difficulty == "easy") return o.easy;
  return o.hard;
}

// `order` (positions into candidates) with default-shape and other records taking turns, each
// kept in its own relative order: a cap then splits about evenly between the shape classes
// instead of following how many records each class happened to produce.
std::vector<size_t> interleave_shape_classes(const std::vector<StepRecord>& records,
                                             const std::vector<size_t>& candidates,
                                             const std::vector<size_t>& order) {
  std::vector<size_t> at_default, others;
  for (size_t pos : order)
    (records[candidates[pos]].instance == "default" ? at_default : others).push_back(pos);
  std::vector<size_t> merged;
  merged.reserve(order.size());
  for (size_t i = 0; i < std::max(at_default.size(), others.size()); ++i) {
    if (i < at_default.size()) merged.push_back(at_default[i]);
    if (i < others.size()) merged.push_back(others[i]);
  }
  return merged;
}

// Candidates grouped by strategy (name order), each group in a seeded order (shape classes
// interleaved when asked).
std::map<std::string, std::vector<size_t>> seeded_groups(const std::vector<StepRecord>& records,
                                                         const std::vector<size_t>& candidates,
                                                         uint64_t seed, bool interleave = false) {
  std::map<std::string, std::vector<std::pair<uint64_t, size_t>>> keyed;
  for (size_t pos = 0; pos < candidates.size(); ++pos) {
    const StepRecord& r = records[candidates[pos]];
    keyed[r.strategy].push_back({stable_hash(record_identity(r), seed), pos});
  }
  std::map<std::string, std::vector<size_t>> groups;
  for (auto& [name, v] : keyed) {
    std::sort(v.begin(), v.end());
    for (const auto& [key, pos] : v) groups[name].push_back(pos);
    if (interleave) groups[name] = interleave_shape_classes(records, candidates, groups[name]);
  }
  return groups;
}

}  // namespace

int64_t split_cap(int64_t train_cap, std::string_view split, const FilterOptions& options) {
  if (train_cap < 0 || split != "test") return train_cap;
  const double f = std::clamp(options.test_fraction, 0.0, 0.99);
  const double scaled = static_cast<double>(train_cap) * f / (1.0 - f);
  return std::max<int64_t>(1, std::llround(scaled));
}

std::string record_identity(const StepRecord& r) {
  std::string s = r.unit;
  for (const std::string& p : r.provenance) s += "|" + p;
  return s + "|" + r.site;
}

std::vector<size_t> deduplicate(const std::vector<StepRecord>& records) {
  std::unordered_map<uint64_t, std::vector<size_t>> seen;
  std::vector<size_t> kept;
  for (size_t i = 0; i < records.size(); ++i) {
    const StepRecord& r = records[i];
    const uint64_t key = mix64(r.original_hash) ^ (r.transformed_hash * 0x9e3779b97f4a7c15ULL) ^
                         stable_hash(r.declarations);
    std::vector<size_t>& bucket = seen[key];
    bool duplicate = false;
    for (size_t j : bucket)
      if (same_step(records[j], r)) {
        duplicate = true;
        break;
      }
    if (duplicate) continue;
    bucket.push_back(i);
    kept.push_back(i);
  }
  return kept;
}

std::set<std::string> held_out_workloads(const std::vector<std::string>& workloads, double fraction,
                                         uint64_t seed) {
  std::vector<std::pair<uint64_t, std::string>> keyed;
  std::set<std::string> distinct(workloads.begin(), workloads.end());
  for (const std::string& w : distinct) keyed.push_back({stable_hash(w, seed ^ 0x5eed), w});
  std::sort(keyed.begin(), keyed.end());
  size_t n = static_cast<size_t>(std::ceil(fraction * static_cast<double>(keyed.size())));
  if (fraction > 0 && keyed.size() >= 2) n = std::max<size_t>(n, 1);
  n = std::min(n, keyed.size() >= 2 ? keyed.size() - 1 : size_t{0});  // train is never empty
  std::set<std::string> out;
  for (size_t i = 0; i < n; ++i) out.insert(keyed[i].second);
  return out;
}

std::string_view filter_verdict_name(FilterVerdict v) {
  switch (v) {
    case FilterVerdict::kKept:
      return "kept";
    case FilterVerdict::kProbability:
      return "dropped_probability";
    case FilterVerdict::kCap:
      return "dropped_cap";
  }
  return "?";
}

std::vector<FilterVerdict> filter_single(const std::vector<StepRecord>& records,
                                         const std::vector<size_t>& candidates,
                                         const FilterOptions& options, std::string_view split) {
  const uint64_t seed = stable_hash(split, options.seed ^ 0x51e6);
  const int64_t single_cap = split_cap(options.single_cap, split, options);
  std::vector<FilterVerdict> verdicts(candidates.size(), FilterVerdict::kCap);
  for (const auto& [name, positions] :
       seeded_groups(records, candidates, seed, options.interleave_shape_classes)) {
    SeededRandom rng(stable_hash(name, seed));
    int64_t kept = 0;
    for (size_t pos : positions) {
      const KeepRule& rule = single_rule(records[candidates[pos]], options);
      const int64_t rule_cap = split_cap(rule.cap, split, options);
      const bool capped =
          (rule_cap >= 0 && kept >= rule_cap) || (single_cap >= 0 && kept >= single_cap);
      if (capped) {
        verdicts[pos] = FilterVerdict::kCap;
        continue;
      }
      // Always draw, so a change of probability does not shift the later draws.
      const bool lucky = rng.unit() < rule.probability;
      verdicts[pos] = lucky ? FilterVerdict::kKept : FilterVerdict::kProbability;
      if (lucky) ++kept;
    }
    // A rare strategy whose few candidates all lost the draw still gets its first one, so that
    // every strategy with a verified step appears in the split.
    if (kept == 0 && options.keep_one_per_strategy && !positions.empty())
      verdicts[positions.front()] = FilterVerdict::kKept;
  }
  return verdicts;
}

std::vector<std::vector<size_t>> draw_multi(const std::vector<StepRecord>& records,
                                            const std::vector<size_t>& candidates,
                                            const FilterOptions& options, std::string_view split) {
  const uint64_t seed = stable_hash(split, options.seed ^ 0x3417);
  const int64_t easy_cap = split_cap(options.multi_easy.cap, split, options);
  // 1. Eligible labels: never very easy; easy with a probability and a cap; hard always. The
  //    cap is shared between the shape classes as in the single-answer filter.
  std::vector<bool> eligible(candidates.size(), false);
  for (const auto& [name, positions] :
       seeded_groups(records, candidates, seed, options.interleave_shape_classes)) {
    SeededRandom rng(stable_hash(name, seed));
    int64_t kept = 0;
    for (size_t pos : positions) {
      const StepRecord& r = records[candidates[pos]];
      if (r.difficulty == "very_easy") continue;
      if (r.difficulty == "hard") {
        eligible[pos] = true;
        continue;
      }
      const bool lucky = rng.unit() < options.multi_easy.probability;
      if (lucky && (easy_cap < 0 || kept < easy_cap)) {
        eligible[pos] = true;
        ++kept;
      }
    }
  }
  // 2. Group by original program (the unit plus the exact original text and declarations).
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> by_original;
  for (size_t pos = 0; pos < candidates.size(); ++pos) {
    if (!eligible[pos]) continue;
    const StepRecord& r = records[candidates[pos]];
    by_original[{r.unit, r.declarations + r.original}].push_back(candidates[pos]);
  }
  // 3. Draws per group.
  std::vector<std::vector<size_t>> samples;
  for (const auto& [key, labels] : by_original) {
    const int64_t L = static_cast<int64_t>(labels.size());
    if (L < 2) continue;
    SeededRandom rng(stable_hash(key.first + "\n" + key.second, seed));
    const int64_t max_n = std::min<int64_t>(L, options.multi_max_labels);
    if (max_n < 2) continue;
    const int64_t draws =
        rng.between(2, std::max<int64_t>(2, std::min<int64_t>(L, options.multi_max_draws)));
    std::set<std::vector<size_t>> seen;
    for (int64_t d = 0; d < draws; ++d) {
      const int64_t n = rng.between(2, max_n);
      std::vector<size_t> pool = labels;
      std::vector<size_t> chosen;
      for (int64_t k = 0; k < n; ++k) {
        size_t i = rng.below(pool.size());
        chosen.push_back(pool[i]);
        pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
      }
      std::sort(chosen.begin(), chosen.end());
      if (seen.insert(chosen).second) samples.push_back(std::move(chosen));
    }
  }
  return samples;
}

namespace {

nlohmann::json keep_rule_json(const KeepRule& r) {
  return {{"probability", r.probability}, {"cap", r.cap}};
}

KeepRule keep_rule_from_json(const nlohmann::json& j) {
  return KeepRule{j.at("probability").get<double>(), j.at("cap").get<int64_t>()};
}

}  // namespace

nlohmann::json to_json(const FilterOptions& o) {
  return {{"seed", o.seed},
          {"single_cap", o.single_cap},
          {"very_easy", keep_rule_json(o.very_easy)},
          {"very_easy_second", keep_rule_json(o.very_easy_second)},
          {"very_easy_second_names", o.very_easy_second_names},
          {"easy", keep_rule_json(o.easy)},
          {"hard", keep_rule_json(o.hard)},
          {"keep_one_per_strategy", o.keep_one_per_strategy},
          {"interleave_shape_classes", o.interleave_shape_classes},
          {"multi_easy", keep_rule_json(o.multi_easy)},
          {"multi_max_labels", o.multi_max_labels},
          {"multi_max_draws", o.multi_max_draws},
          {"test_fraction", o.test_fraction}};
}

Result<FilterOptions> filter_options_from_json(const nlohmann::json& j) {
  try {
    FilterOptions o;
    o.seed = j.at("seed").get<uint64_t>();
    o.single_cap = j.at("single_cap").get<int64_t>();
    o.very_easy = keep_rule_from_json(j.at("very_easy"));
    o.very_easy_second = keep_rule_from_json(j.at("very_easy_second"));
    o.very_easy_second_names = j.at("very_easy_second_names").get<std::vector<std::string>>();
    o.easy = keep_rule_from_json(j.at("easy"));
    o.hard = keep_rule_from_json(j.at("hard"));
    o.keep_one_per_strategy = j.at("keep_one_per_strategy").get<bool>();
    o.interleave_shape_classes = j.at("interleave_shape_classes").get<bool>();
    o.multi_easy = keep_rule_from_json(j.at("multi_easy"));
    o.multi_max_labels = j.at("multi_max_labels").get<int>();
    o.multi_max_draws = j.at("multi_max_draws").get<int>();
    o.test_fraction = j.at("test_fraction").get<double>();
    return o;
  } catch (const nlohmann::json::exception& e) {
    return Error::make("bad_input", std::string("filter options: ") + e.what());
  }
}

}  // namespace steptp::dataset
