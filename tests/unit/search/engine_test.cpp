// The engine: baseline measurement, de-duplication, failure reasons, budget charging.
#include "search/engine.h"

#include <gtest/gtest.h>

#include "scripted.h"

namespace steptp::search {
namespace {

using testing::Children;
using testing::FakeEvaluator;
using testing::key_of;
using testing::program_of;
using testing::ScriptedPolicy;

SearchOptions big_budget() {
  SearchOptions o;
  o.budget = {100, 100, 8};
  return o;
}

TEST(Engine, MeasuresTheBaselineWithoutChargingTheBudget) {
  ScriptedPolicy p(Children{});
  FakeEvaluator e;
  e.times[0] = 42;
  auto engine = Engine::create(program_of(0), p, e, big_budget(), "chain");
  ASSERT_TRUE(engine.ok());
  EXPECT_DOUBLE_EQ((*engine)->baseline_ms(), 42);
  EXPECT_EQ((*engine)->stats().candidates, 0);
  EXPECT_EQ((*engine)->stats().policy_calls, 0);
  EXPECT_EQ(e.measure_calls, 1);
}

TEST(Engine, AnUnmeasurableInitialProgramIsAnError) {
  ScriptedPolicy p(Children{});
  FakeEvaluator e;
  e.compile_errors.insert(0);
  auto engine = Engine::create(program_of(0), p, e, big_budget(), "chain");
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.error().category, "compile_error");
}

TEST(Engine, LabelsEveryRejectedCandidateWithItsReason) {
  // 0 proposes: 1 (mismatch), 2 (race), 3 (compile error), -1 (unparsable), 0 (the same
  // program), 4 (fine).
  ScriptedPolicy p(Children{{0, {1, 2, 3, -1, 0, 4}}});
  FakeEvaluator e;
  e.verdicts = {{1, "mismatch"}, {2, "race"}};
  e.compile_errors = {3};
  e.times = {{0, 100}, {4, 25}};
  auto engine = std::move(Engine::create(program_of(0), p, e, big_budget(), "greedy")).value();
  std::vector<int> children = engine->expand(0, 10);
  ASSERT_EQ(children.size(), 1u);
  EXPECT_EQ(key_of(engine->node(children[0]).program), 4);
  EXPECT_DOUBLE_EQ(engine->node(children[0]).speedup, 4.0);
  EXPECT_EQ(engine->node(children[0]).trace, (std::vector<std::string>{"s4"}));
  const auto& f = engine->stats().failures;
  EXPECT_EQ(f.at("mismatch"), 1);
  EXPECT_EQ(f.at("race"), 1);
  EXPECT_EQ(f.at("compile_error"), 1);
  EXPECT_EQ(f.at("leir_parse_error"), 1);
  EXPECT_EQ(f.at("unchanged"), 1);
  EXPECT_EQ(f.size(), 5u);
  // Parse failures and the unchanged program never reach the verifier.
  EXPECT_EQ(engine->stats().candidates, 4);
  EXPECT_EQ(e.verify_calls, 4);
  EXPECT_EQ(engine->stats().accepted, 1);
  EXPECT_EQ(engine->node(0).failures.front(), "s1: mismatch");
  EXPECT_EQ(engine->best(), children[0]);
}

TEST(Engine, AProgramIsEvaluatedOnceInTheWholeSearch) {
  // 1 and 2 both propose 5; 1 and 2 also propose the rejected 6.
  ScriptedPolicy p(Children{{0, {1, 2}}, {1, {5, 6}}, {2, {5, 6}}});
  FakeEvaluator e;
  e.verdicts[6] = "mismatch";
  auto engine = std::move(Engine::create(program_of(0), p, e, big_budget(), "bfs")).value();
  engine->expand(0, 2);
  engine->expand(1, 2);
  std::vector<int> again = engine->expand(2, 2);
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(engine->stats().failures.at("duplicate"), 2);
  EXPECT_EQ(engine->stats().failures.at("mismatch"), 1);
  EXPECT_EQ(e.verify_calls, 4);  // 1, 2, 5, 6
}

TEST(Engine, StopsEvaluatingWhenTheCandidateBudgetIsSpent) {
  ScriptedPolicy p(Children{{0, {1, 2, 3, 4}}});
  FakeEvaluator e;
  SearchOptions o = big_budget();
  o.budget.candidates = 3;
  auto engine = std::move(Engine::create(program_of(0), p, e, o, "greedy")).value();
  EXPECT_EQ(engine->expand(0, 4).size(), 3u);
  EXPECT_TRUE(engine->exhausted());
  EXPECT_TRUE(engine->expand(0, 4).empty());
  EXPECT_EQ(engine->stats().policy_calls, 1);  // no call once the budget is spent
  EXPECT_EQ(e.verify_calls, 3);
}

TEST(Engine, APolicyWithNothingLeftMakesTheNodeDead) {
  ScriptedPolicy p(Children{{0, {1}}});
  FakeEvaluator e;
  auto engine = std::move(Engine::create(program_of(0), p, e, big_budget(), "chain")).value();
  EXPECT_EQ(engine->expand(0, 1).size(), 1u);
  EXPECT_TRUE(engine->expandable(0));
  EXPECT_TRUE(engine->expand(0, 1).empty());
  EXPECT_FALSE(engine->expandable(0));
  EXPECT_EQ(p.calls, (std::vector<int64_t>{0, 0}));
}

TEST(Engine, DepthLimitMakesNodesUnexpandable) {
  ScriptedPolicy p(Children{{0, {1}}, {1, {11}}});
  FakeEvaluator e;
  SearchOptions o = big_budget();
  o.budget.max_depth = 1;
  auto engine = std::move(Engine::create(program_of(0), p, e, o, "chain")).value();
  std::vector<int> c = engine->expand(0, 1);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(engine->expandable(c[0]));
  EXPECT_TRUE(engine->expand(c[0], 1).empty());
  EXPECT_EQ(engine->stats().policy_calls, 1);
}

}  // namespace
}  // namespace steptp::search
