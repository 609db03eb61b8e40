// Each algorithm's visiting order and result on a scripted tree, pinned by hand; MCTS branches;
// every algorithm respects the same budget.
#include "search/algorithms.h"

#include <gtest/gtest.h>

#include <limits>

#include "scripted.h"

namespace steptp::search {
namespace {

using testing::Children;
using testing::FakeEvaluator;
using testing::key_of;
using testing::program_of;
using testing::ScriptedPolicy;

// root 0 (100 ms) → 1 (80), 2 (50), 3 (90); 1 → 11 (70), 12 (60); 2 → 21 (40), 22 (45);
// 3 → 31 (85); 11 → 111 (65); 21 → 211 (20).
ScriptedPolicy tree_policy() {
  return ScriptedPolicy(
      Children{{0, {1, 2, 3}}, {1, {11, 12}}, {2, {21, 22}}, {3, {31}}, {11, {111}}, {21, {211}}});
}

FakeEvaluator tree_times() {
  FakeEvaluator e;
  e.times = {{0, 100}, {1, 80},  {2, 50},  {3, 90},   {11, 70}, {12, 60},
             {21, 40}, {22, 45}, {31, 85}, {111, 65}, {211, 20}};
  return e;
}

struct SearchRun {
  std::vector<int64_t> expanded;  // keys of the expanded states, in order
  int64_t best = 0;
  double best_speedup = 0;
  std::unique_ptr<Engine> engine;
};

SearchRun run_on(Algorithm a, Policy& policy, Evaluator& evaluator, SearchOptions options) {
  auto engine =
      Engine::create(program_of(0), policy, evaluator, options, std::string(algorithm_name(a)));
  EXPECT_TRUE(engine.ok());
  SearchRun r;
  r.engine = std::move(engine).value();
  run(a, *r.engine);
  for (const Event& e : r.engine->events())
    r.expanded.push_back(key_of(r.engine->node(e.node).program));
  r.best = key_of(r.engine->node(r.engine->best()).program);
  r.best_speedup = r.engine->node(r.engine->best()).speedup;
  return r;
}

SearchOptions options(int proposals, int budget = 50) {
  SearchOptions o;
  o.budget.policy_calls = budget;
  o.budget.candidates = budget;
  o.budget.max_depth = 8;
  o.proposals = proposals;
  o.beam_width = 2;
  return o;
}

TEST(Chain, FollowsEveryVerifiedChildUntilThePolicyRunsDry) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchRun r = run_on(Algorithm::kChain, p, e, options(3));
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 1, 11, 111}));
  EXPECT_EQ(r.best, 111);
  EXPECT_DOUBLE_EQ(r.best_speedup, 100.0 / 65.0);
}

TEST(Chain, RetriesTheSameNodeAfterARejectedProposal) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  e.verdicts[1] = "mismatch";
  SearchRun r = run_on(Algorithm::kChain, p, e, options(3));
  // 1 is rejected, the next proposal from the root is 2, then 21 and 211.
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 0, 2, 21, 211}));
  EXPECT_EQ(r.best, 211);
  EXPECT_EQ(r.engine->stats().failures.at("mismatch"), 1);
}

TEST(Greedy, MovesToTheFastestChildOnlyWhenItImproves) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchRun r = run_on(Algorithm::kGreedy, p, e, options(2));
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 2, 21, 211}));
  EXPECT_EQ(r.best, 211);
  EXPECT_DOUBLE_EQ(r.best_speedup, 5.0);
}

TEST(Greedy, AsksTheCurrentNodeAgainWhenNoChildIsFaster) {
  ScriptedPolicy p(Children{{0, {1, 2, 3}}});
  FakeEvaluator e;
  e.times = {{0, 100}, {1, 120}, {2, 130}, {3, 90}};
  SearchRun r = run_on(Algorithm::kGreedy, p, e, options(2));
  // 1 and 2 are slower: stay at 0, get 3 (faster), move there, 3 has nothing: stop.
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 0, 3}));
  EXPECT_EQ(r.best, 3);
}

TEST(Beam, KeepsTheBestWidthChildrenOfEachRound) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchRun r = run_on(Algorithm::kBeam, p, e, options(2));
  // beam {0} → children {1,2} (3 is not proposed: k = 2) → {21,22} (of 12, 11, 21, 22) → {211}:
  // 22 and 211 have nothing more, so the search ends.
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 2, 1, 21, 22, 211}));
  EXPECT_EQ(r.best, 211);
}

TEST(Beam, MovesThroughSlowerChildrenToTheFasterProgramsBehindThem) {
  // A plateau: both children of the root are slower, the grandchild is the fastest program.
  ScriptedPolicy p(Children{{0, {1, 2}}, {1, {11}}});
  FakeEvaluator e;
  e.times = {{0, 100}, {1, 150}, {2, 200}, {11, 50}};
  SearchOptions o = options(2);
  o.beam_width = 1;
  SearchRun r = run_on(Algorithm::kBeam, p, e, o);
  // The beam moves to 1 (the faster child) although it is slower than 0, and finds 11 there.
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 1, 11}));
  EXPECT_EQ(r.best, 11);
  EXPECT_DOUBLE_EQ(r.best_speedup, 2.0);
}

TEST(Beam, RanksChildrenByMeasuredSpeedupTimesTheirPromise) {
  // 2 measures slower than 1 and 3 but promises a 3x follow-up (1.25x * 3 > 2x); 3 promises
  // less than it would need. With width 1 the beam takes 2 and finds 21 behind it; the promise
  // lasts one round (21 promises nothing and is ranked by what it measures).
  const Children tree{{0, {1, 2, 3}}, {1, {11}}, {2, {21}}, {3, {31}}};
  ScriptedPolicy p(tree);
  p.promises = {{2, 3.0}, {3, 1.1}};
  FakeEvaluator e;
  e.times = {{0, 100}, {1, 50}, {2, 80}, {3, 55}, {11, 45}, {21, 10}, {31, 40}};
  SearchOptions o = options(3);
  o.beam_width = 1;
  SearchRun r = run_on(Algorithm::kBeam, p, e, o);
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 2, 21}));
  EXPECT_EQ(r.best, 21);
  EXPECT_DOUBLE_EQ(r.best_speedup, 10.0);
  // Without the promise the beam follows the measured best, 1, and never sees 21.
  ScriptedPolicy without_promises(tree);
  SearchRun plain = run_on(Algorithm::kBeam, without_promises, e, o);
  EXPECT_EQ(plain.expanded, (std::vector<int64_t>{0, 1, 11}));
}

TEST(Beam, APromiseBelowOneOrNotFiniteIsIgnored) {
  ScriptedPolicy p(Children{{0, {1, 2, 3}}});
  p.promises = {{1, 0.01},
                {2, std::numeric_limits<double>::quiet_NaN()},
                {3, std::numeric_limits<double>::infinity()}};
  FakeEvaluator e;
  e.times = {{0, 100}, {1, 50}, {2, 60}, {3, 70}};
  SearchRun r = run_on(Algorithm::kBeam, p, e, options(3));
  for (int id = 1; id <= 3; ++id) EXPECT_EQ(r.engine->node(id).promise, 1.0) << id;
}

TEST(Beam, ARoundWithoutChildrenAsksTheSameBeamAgain) {
  // 0's first proposal fails verification; the beam stays {0}, asks again and gets 2.
  ScriptedPolicy p(Children{{0, {1, 2}}});
  FakeEvaluator e;
  e.times = {{0, 100}, {2, 50}};
  e.verdicts = {{1, "mismatch"}};
  SearchOptions o = options(1);
  o.beam_width = 1;
  SearchRun r = run_on(Algorithm::kBeam, p, e, o);
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 0, 2}));
  EXPECT_EQ(r.best, 2);
}

TEST(Dfs, ExploresTheFirstChildFirst) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchRun r = run_on(Algorithm::kDfs, p, e, options(2));
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 1, 11, 111, 12, 2, 21, 211, 22}));
  EXPECT_EQ(r.best, 211);
}

TEST(Dfs, StopsAtTheDepthLimit) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchOptions o = options(2);
  o.budget.max_depth = 1;
  SearchRun r = run_on(Algorithm::kDfs, p, e, o);
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0}));
  EXPECT_EQ(r.best, 2);
}

TEST(Bfs, ExpandsLevelByLevel) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchRun r = run_on(Algorithm::kBfs, p, e, options(2));
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 1, 2, 11, 12, 21, 22, 111, 211}));
  EXPECT_EQ(r.best, 211);
}

TEST(Mcts, SelectsByUctAndWidensNodesIntoATree) {
  ScriptedPolicy p = tree_policy();
  FakeEvaluator e = tree_times();
  SearchOptions o = options(2);
  o.budget.policy_calls = 6;
  SearchRun r = run_on(Algorithm::kMcts, p, e, o);
  // Worked by hand (uct_c 1, widening ceil(visits^0.5), max backup, Q normalised by the best):
  //  1. root (1 visit, 0 children) expands → 1, 2            root visits 3
  //  2. root full (2 of 2): UCT 1: 0.625+1.048, 2: 1+1.048 → 2 expands → 21, 22
  //  3. root has 5 visits → 3 children allowed → root expands again → 3
  //  4. root full (3 of 3), ln 6: 1 → 0.5+1.339, 2 → 1+0.773, 3 → 0.444+1.339 → 1 expands
  //  5. ln 8: 1 → 0.667+0.832, 2 → 1+0.832, 3 → 0.444+1.442 → 3 expands → 31
  //  6. ln 9: 1 → 0.667+0.856, 2 → 1+0.856, 3 → 0.471+1.048 → 2; below it 21 (2.5) beats 22
  //     → 21 expands → 211
  EXPECT_EQ(r.expanded, (std::vector<int64_t>{0, 2, 0, 1, 3, 21}));
  EXPECT_EQ(r.best, 211);
  const Engine& g = *r.engine;
  EXPECT_EQ(g.node(0).children.size(), 3u);  // branching > 1 at the root ...
  int two = g.node(0).children[1];
  EXPECT_EQ(key_of(g.node(two).program), 2);
  EXPECT_EQ(g.node(two).children.size(), 2u);  // ... and below it
  // Visits: every accepted child backs up once along its path.
  EXPECT_EQ(g.node(0).visits, 1 + 9);
  EXPECT_DOUBLE_EQ(g.node(0).value_max, 5.0);
}

TEST(Mcts, MeanBackupAveragesTheSubtreeRewards) {
  ScriptedPolicy p(Children{{0, {1, 2}}});
  FakeEvaluator e;
  e.times = {{0, 100}, {1, 50}, {2, 25}};
  SearchOptions o = options(2);
  o.backup = Backup::kMean;
  o.budget.policy_calls = 1;
  SearchRun r = run_on(Algorithm::kMcts, p, e, o);
  const Node& root = r.engine->node(0);
  EXPECT_EQ(root.visits, 3);
  EXPECT_DOUBLE_EQ(root.value_sum, 1.0 + 2.0 + 4.0);
  EXPECT_EQ(r.best, 2);
}

TEST(Budget, EveryAlgorithmSpendsTheSameStatedBudgetAndNoMore) {
  for (Algorithm a : all_algorithms()) {
    for (int budget : {1, 7, 12}) {
      ScriptedPolicy p = ScriptedPolicy::generated(3);
      FakeEvaluator e;
      SearchOptions o = options(3, budget);
      o.budget.max_depth = 100;
      SearchRun r = run_on(a, p, e, o);
      const SearchStats& s = r.engine->stats();
      SCOPED_TRACE(std::string(algorithm_name(a)) + " budget " + std::to_string(budget));
      EXPECT_LE(s.policy_calls, budget);
      EXPECT_LE(s.candidates, budget);
      EXPECT_TRUE(r.engine->exhausted());  // the tree is unbounded: only the budget stops it
      EXPECT_EQ(static_cast<int>(p.calls.size()), s.policy_calls);
      EXPECT_EQ(e.verify_calls, s.candidates);
      EXPECT_EQ(e.measure_calls, 1 + s.accepted);  // the baseline, then each accepted child
    }
  }
}

}  // namespace
}  // namespace steptp::search
