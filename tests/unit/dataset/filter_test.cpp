// Tests of de-duplication, the workload split, the single-answer filter and the multi draws,
// on synthetic records whose expected outcome is counted by hand.
#include "dataset/filter.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace steptp::dataset {
namespace {

StepRecord make(std::string strategy, std::string difficulty, int k, std::string unit = "W.small",
                std::string original = "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];") {
  StepRecord r;
  r.unit = unit;
  r.workload = unit.substr(0, unit.find('.'));
  r.strategy = std::move(strategy);
  r.difficulty = std::move(difficulty);
  r.site = r.strategy + "(k=" + std::to_string(k) + ")";
  r.declarations = "input A f64[4]\noutput C f64[4]\n";
  r.original = std::move(original);
  r.transformed = "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}*" + std::to_string(k + 1) + ";];";
  r.original_hash = 1;
  r.transformed_hash = static_cast<uint64_t>(k) + 100;
  return r;
}

std::vector<size_t> all(const std::vector<StepRecord>& r) {
  std::vector<size_t> v(r.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

int64_t kept(const std::vector<FilterVerdict>& v) {
  int64_t n = 0;
  for (FilterVerdict x : v) n += x == FilterVerdict::kKept;
  return n;
}

TEST(Filter, VeryEasyIsCappedAtFifty) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 300; ++k) r.push_back(make("factorization", "very_easy", k));
  FilterOptions o;
  auto v = filter_single(r, all(r), o, "train");
  // p = 0.5 over 300 draws: reaching 50 kept is all but certain; the cap then stops it.
  EXPECT_EQ(kept(v), 50);
}

TEST(Filter, SecondVeryEasyListIsCappedAtTen) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 300; ++k) r.push_back(make("together", "very_easy", k));
  EXPECT_EQ(kept(filter_single(r, all(r), FilterOptions{}, "train")), 10);
}

TEST(Filter, HardIsKeptUpToTheStrategyCap) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 40; ++k) r.push_back(make("loop_tiling", "hard", k));
  FilterOptions o;
  EXPECT_EQ(kept(filter_single(r, all(r), o, "train")), 40);
  o.single_cap = 25;
  auto v = filter_single(r, all(r), o, "train");
  EXPECT_EQ(kept(v), 25);
  int64_t capped = 0;
  for (FilterVerdict x : v) capped += x == FilterVerdict::kCap;
  EXPECT_EQ(capped, 15);
}

// 30 default-shape and 90 small records of one hard strategy under a cap of 40: taking turns,
// the default-shape ones get 20 of the 40 places (a draw in proportion would give them about
// 10); without interleaving the share follows the seeded order.
TEST(Filter, UnderACapDefaultShapeAndSmallRecordsTakeTurns) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 120; ++k) {
    r.push_back(make("loop_tiling", "hard", k, k < 30 ? "W.default" : "W.small"));
    r.back().instance = k < 30 ? "default" : "small";
  }
  FilterOptions o;
  o.single_cap = 40;
  auto default_kept = [&](const std::vector<FilterVerdict>& v) {
    int64_t n = 0;
    for (size_t i = 0; i < v.size(); ++i) n += v[i] == FilterVerdict::kKept && i < 30;
    return n;
  };
  const auto v = filter_single(r, all(r), o, "train");
  EXPECT_EQ(kept(v), 40);
  EXPECT_EQ(default_kept(v), 20);
  o.interleave_shape_classes = false;
  const auto plain = filter_single(r, all(r), o, "train");
  EXPECT_EQ(kept(plain), 40);
  EXPECT_LT(default_kept(plain), 20);
}

TEST(Filter, HeldOutCapsAreScaledByTheHeldOutShare) {
  FilterOptions o;
  o.test_fraction = 0.1;  // test : train = 1 : 9
  EXPECT_EQ(split_cap(250, "train", o), 250);
  EXPECT_EQ(split_cap(250, "test", o), 28);  // 250 / 9 = 27.8
  EXPECT_EQ(split_cap(10, "test", o), 1);
  EXPECT_EQ(split_cap(2, "test", o), 1);  // never 0
  EXPECT_EQ(split_cap(-1, "test", o), -1);
  o.test_fraction = 0.5;
  EXPECT_EQ(split_cap(250, "test", o), 250);

  std::vector<StepRecord> r;
  for (int k = 0; k < 400; ++k) r.push_back(make("loop_tiling", "hard", k));
  o.test_fraction = 0.2;  // 250 / 4
  EXPECT_EQ(kept(filter_single(r, all(r), o, "train")), 250);
  EXPECT_EQ(kept(filter_single(r, all(r), o, "test")), 63);
}

TEST(Filter, ProbabilityZeroKeepsNothingAndOneKeepsEverything) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 20; ++k) r.push_back(make("loop_unrolling", "easy", k));
  FilterOptions o;
  o.keep_one_per_strategy = false;
  o.easy = {0.0, -1};
  EXPECT_EQ(kept(filter_single(r, all(r), o, "train")), 0);
  o.easy = {1.0, -1};
  EXPECT_EQ(kept(filter_single(r, all(r), o, "train")), 20);
}

TEST(Filter, AStrategyWhoseCandidatesAllLoseTheDrawKeepsOne) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 5; ++k) r.push_back(make("logsimp", "very_easy", k));
  for (int k = 5; k < 9; ++k) r.push_back(make("loop_unrolling", "easy", k));
  FilterOptions o;
  o.very_easy = {0.0, 50};  // every draw fails
  o.easy = {0.0, -1};
  auto v = filter_single(r, all(r), o, "train");
  EXPECT_EQ(kept(v), 2);  // one per strategy
  int64_t kept_logsimp = 0;
  for (size_t i = 0; i < 5; ++i) kept_logsimp += v[i] == FilterVerdict::kKept;
  EXPECT_EQ(kept_logsimp, 1);
}

TEST(Filter, ProbabilityIsRoughlyHonoured) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 2000; ++k) r.push_back(make("loop_unrolling", "easy", k));
  FilterOptions o;
  o.easy = {0.3, -1};
  o.single_cap = -1;
  const int64_t n = kept(filter_single(r, all(r), o, "train"));
  EXPECT_GT(n, 480);  // 600 expected, sd ≈ 20
  EXPECT_LT(n, 720);
}

TEST(Filter, SeededAndReproducible) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 200; ++k) r.push_back(make("factorization", "very_easy", k));
  FilterOptions a, b;
  b.seed = 99;
  EXPECT_EQ(filter_single(r, all(r), a, "train"), filter_single(r, all(r), a, "train"));
  EXPECT_NE(filter_single(r, all(r), a, "train"), filter_single(r, all(r), b, "train"));
}

TEST(Filter, DeduplicateKeepsTheFirstOfStructurallyEqualSteps) {
  std::vector<StepRecord> r = {make("loop_split", "hard", 1), make("loop_tiling", "hard", 1),
                               make("loop_split", "hard", 2)};
  EXPECT_EQ(deduplicate(r), (std::vector<size_t>{0, 2}));
}

TEST(Filter, DeduplicateComparesStructureNotOnlyHashes) {
  std::vector<StepRecord> r = {make("loop_split", "hard", 1), make("loop_split", "hard", 2)};
  r[1].transformed_hash = r[0].transformed_hash;  // forced collision, different programs
  EXPECT_EQ(deduplicate(r), (std::vector<size_t>{0, 1}));
}

TEST(Filter, HeldOutWorkloadsAreAFractionAndNeverAll) {
  std::vector<std::string> w;
  for (int i = 0; i < 20; ++i) w.push_back("W" + std::to_string(i));
  w.push_back("W3");  // duplicates count once
  std::set<std::string> test = held_out_workloads(w, 0.1, 0);
  EXPECT_EQ(test.size(), 2u);
  EXPECT_EQ(held_out_workloads(w, 0.1, 0), test);
  EXPECT_EQ(held_out_workloads({"A", "B"}, 0.9, 0).size(), 1u);
  EXPECT_TRUE(held_out_workloads({"A"}, 0.5, 0).empty());
}

TEST(Filter, MultiSamplesShareOneOriginalAndSkipVeryEasy) {
  std::vector<StepRecord> r;
  for (int k = 0; k < 6; ++k) r.push_back(make("loop_tiling", "hard", k, "W.small", "orig1"));
  for (int k = 6; k < 9; ++k)
    r.push_back(make("factorization", "very_easy", k, "W.small", "orig1"));
  for (int k = 9; k < 12; ++k) r.push_back(make("loop_split", "hard", k, "W.small", "orig2"));
  r.push_back(make("loop_split", "hard", 12, "V.small", "orig3"));  // alone: no sample
  FilterOptions o;
  auto samples = draw_multi(r, all(r), o, "train");
  ASSERT_FALSE(samples.empty());
  std::set<std::vector<size_t>> distinct;
  for (const auto& s : samples) {
    EXPECT_GE(s.size(), 2u);
    EXPECT_LE(s.size(), static_cast<size_t>(o.multi_max_labels));
    EXPECT_TRUE(distinct.insert(s).second);
    for (size_t i : s) {
      EXPECT_NE(r[i].difficulty, "very_easy");
      EXPECT_EQ(r[i].original, r[s.front()].original);
      EXPECT_NE(i, 12u);
    }
  }
  EXPECT_EQ(samples, draw_multi(r, all(r), o, "train"));
}

TEST(Filter, MultiDrawsPerOriginalAreBetweenTwoAndTheDrawCap) {
  // 20 hard labels on one original: C(20, n) is huge, so no draw repeats and the count of
  // samples is exactly the number of draws, uniform in [2, multi_max_draws].
  std::vector<StepRecord> r;
  for (int k = 0; k < 20; ++k) r.push_back(make("loop_tiling", "hard", k, "W.small", "orig"));
  FilterOptions o;
  o.multi_max_draws = 5;
  std::set<size_t> counts;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    o.seed = seed;
    size_t n = draw_multi(r, all(r), o, "train").size();
    EXPECT_GE(n, 2u);
    EXPECT_LE(n, 5u);
    counts.insert(n);
  }
  EXPECT_EQ(counts, (std::set<size_t>{2, 3, 4, 5}));
  // Two labels allow one distinct sample only.
  std::vector<StepRecord> two = {make("loop_tiling", "hard", 0, "W.small", "o"),
                                 make("loop_split", "hard", 1, "W.small", "o")};
  EXPECT_EQ(draw_multi(two, all(two), o, "train"), (std::vector<std::vector<size_t>>{{0, 1}}));
}

}  // namespace
}  // namespace steptp::dataset
