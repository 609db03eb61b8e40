// After the search: the finalists are measured again and the fastest is kept, then confirmed in
// fresh rounds against the baseline.
#include "search/selection.h"

#include <gtest/gtest.h>

#include "scripted.h"

namespace steptp::search {
namespace {

using testing::Children;
using testing::FakeEvaluator;
using testing::key_of;
using testing::program_of;
using testing::ScriptedPolicy;

// The root (key 0, 100 ms) and three children measured during the search at 50, 40 and 45 ms:
// the search's best is key 2 (2.5×), then key 3, then key 1.
struct Searched {
  ScriptedPolicy policy{Children{{0, {1, 2, 3}}}};
  FakeEvaluator evaluator;
  std::unique_ptr<Engine> engine;
  Searched() {
    evaluator.times = {{0, 100}, {1, 50}, {2, 40}, {3, 45}};
    SearchOptions o;
    o.budget = {10, 10, 8};
    auto created = Engine::create(program_of(0), policy, evaluator, o, "greedy");
    STEPTP_CHECK(created.ok(), "engine");
    engine = std::move(created).value();
    engine->expand(0, 3);
    STEPTP_CHECK(key_of(engine->node(engine->best()).program) == 2, "search best");
  }
  int64_t key(int id) const { return key_of(engine->node(id).program); }
};

TEST(Selection, KeepsTheFinalistThatIsFastestWhenMeasuredAgain) {
  Searched s;
  // Measured again, the search's best was a lucky measurement: key 1 is really the fastest.
  s.evaluator.times = {{0, 100}, {1, 48}, {2, 60}, {3, 55}};
  const int before = s.evaluator.measure_calls;
  Selection sel = select_best(*s.engine, s.evaluator, 3, 3);
  EXPECT_EQ(s.key(sel.best), 1);
  EXPECT_EQ(sel.rounds, 3);
  ASSERT_EQ(sel.finalists.size(), 3u);
  // In the search's order, with their search speedups and their medians measured again.
  EXPECT_EQ(s.key(sel.finalists[0].id), 2);
  EXPECT_DOUBLE_EQ(sel.finalists[0].search_speedup, 2.5);
  EXPECT_DOUBLE_EQ(sel.finalists[0].median_ms, 60);
  EXPECT_EQ(s.key(sel.finalists[1].id), 3);
  EXPECT_EQ(s.key(sel.finalists[2].id), 1);
  EXPECT_DOUBLE_EQ(sel.finalists[2].median_ms, 48);
  // Three selection rounds of three finalists, then three confirmation rounds of two programs.
  EXPECT_EQ(s.evaluator.measure_calls - before, 3 * 3 + 3 * 2);
  ASSERT_TRUE(sel.confirmation.has_value());
  EXPECT_EQ(sel.confirmation->rounds, 3);
  EXPECT_DOUBLE_EQ(sel.confirmation->speedup(), 100.0 / 48);
}

TEST(Selection, TakesOnlyAsManyFinalistsAsAsked) {
  Searched s;
  s.evaluator.times = {{0, 100}, {1, 10}, {2, 60}, {3, 55}};
  // Key 1 would win, but it is only the third fastest of the search.
  Selection sel = select_best(*s.engine, s.evaluator, 2, 3);
  ASSERT_EQ(sel.finalists.size(), 2u);
  EXPECT_EQ(s.key(sel.best), 3);
}

TEST(Selection, OneFinalistKeepsTheSearchBestAndOnlyConfirmsIt) {
  Searched s;
  s.evaluator.times = {{0, 100}, {1, 10}, {2, 80}, {3, 10}};
  const int before = s.evaluator.measure_calls;
  Selection sel = select_best(*s.engine, s.evaluator, 1, 3);
  EXPECT_EQ(s.key(sel.best), 2);
  EXPECT_EQ(sel.rounds, 0);
  EXPECT_EQ(s.evaluator.measure_calls - before, 3 * 2);
  ASSERT_TRUE(sel.confirmation.has_value());
  EXPECT_DOUBLE_EQ(sel.confirmation->speedup(), 100.0 / 80);
}

TEST(Selection, NoRoundsMeasuresNothing) {
  Searched s;
  const int before = s.evaluator.measure_calls;
  Selection sel = select_best(*s.engine, s.evaluator, 3, 0);
  EXPECT_EQ(sel.best, s.engine->best());
  EXPECT_FALSE(sel.confirmation.has_value());
  EXPECT_EQ(s.evaluator.measure_calls, before);
}

TEST(Selection, AFinalistThatFailsToMeasureIsOut) {
  Searched s;
  s.evaluator.times = {{0, 100}, {1, 48}, {2, 60}, {3, 55}};
  s.evaluator.compile_errors.insert(1);
  Selection sel = select_best(*s.engine, s.evaluator, 3, 3);
  EXPECT_EQ(s.key(sel.best), 3);
  EXPECT_DOUBLE_EQ(sel.finalists[2].median_ms, 0);
}

// The confirmation's fresh rounds are the unbiased measurement: when the kept program is slower
// than the baseline there, the run reports the initial program and names the one it dropped.
TEST(Selection, AKeptProgramSlowerThanTheBaselineWhenConfirmedGivesBackTheInitialProgram) {
  Searched s;
  s.evaluator.times = {{0, 100}, {1, 130}, {2, 105}, {3, 120}};
  Selection sel = select_best(*s.engine, s.evaluator, 3, 3);
  EXPECT_EQ(sel.best, 0);
  EXPECT_EQ(s.key(sel.unconfirmed), 2);
  ASSERT_TRUE(sel.confirmation.has_value());
  EXPECT_DOUBLE_EQ(sel.confirmation->speedup(), 100.0 / 105);
  // As fast as the baseline is not slower: the program stays.
  Searched tie;
  tie.evaluator.times = {{0, 100}, {1, 130}, {2, 100}, {3, 120}};
  Selection kept = select_best(*tie.engine, tie.evaluator, 3, 3);
  EXPECT_EQ(tie.key(kept.best), 2);
  EXPECT_EQ(kept.unconfirmed, 0);
}

TEST(Selection, NothingBeatTheBaselineMeansNothingToSelect) {
  ScriptedPolicy policy(Children{});
  FakeEvaluator evaluator;
  evaluator.times[0] = 100;
  auto engine = Engine::create(program_of(0), policy, evaluator, SearchOptions{}, "greedy");
  ASSERT_TRUE(engine.ok());
  const int before = evaluator.measure_calls;
  Selection sel = select_best(**engine, evaluator, 3, 3);
  EXPECT_EQ(sel.best, 0);
  EXPECT_TRUE(sel.finalists.empty());
  EXPECT_FALSE(sel.confirmation.has_value());
  EXPECT_EQ(evaluator.measure_calls, before);
}

}  // namespace
}  // namespace steptp::search
