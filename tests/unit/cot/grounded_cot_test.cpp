// Tests of the chain of thought's grounding in the step (names, factors, modelled cost and its
// direction) and of the checker that reads a CoT back against its programs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "cost/cost_model.h"
#include "cot/chain_of_thought.h"
#include "cot/cot_check.h"
#include "cot/effect.h"
#include "cot/strategy_notes.h"
#include "leir/parser.h"
#include "strategy/registry.h"

namespace steptp::cot {
namespace {

leir::Program program(std::string_view text) {
  auto p = leir::parse_program(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().render());
  return p.ok() ? *p : leir::Program{};
}

struct Step {
  leir::Program before;
  strategy::Site site;
  leir::Program after;
  ChainOfThought cot;
};

// The feasible site of `name` on `text` that `pick` selects, applied and explained.
Step step(std::string_view name, std::string_view text,
          const std::function<bool(const strategy::Site&)>& pick) {
  const strategy::Strategy* s = strategy::find_strategy(name);
  EXPECT_NE(s, nullptr) << name;
  Step st;
  st.before = program(text);
  if (!s) return st;
  for (const strategy::Site& site : strategy::feasible_sites(*s, st.before)) {
    if (!pick(site)) continue;
    auto after = s->apply(st.before, site);
    EXPECT_TRUE(after.ok()) << site.to_string();
    if (!after.ok()) continue;
    st.site = site;
    st.after = *after;
    st.cot = explain_step(*s, st.before, site, st.after);
    return st;
  }
  ADD_FAILURE() << "no site of " << name << " picked";
  return st;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> checked(std::string_view name, const Step& st) {
  return check_cot(name, st.before, st.after, st.cot.text(),
                   {st.cot.cost_before, st.cot.cost_after});
}

const char* kStaged =
    "input A f64[64,64]\noutput C f64[64]\n"
    "B^{64}_{tx=0}L^{64}_{a=0}[T^{f64,{}}_{tx,a}=A^{f64,g}_{tx,a}*2;];\n"
    "B^{64}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+T^{f64,{}}_{tx,a};];\n";

std::string staged(char scope) {
  std::string s = kStaged;
  for (size_t at = s.find("{}"); at != std::string::npos; at = s.find("{}"))
    s.replace(at, 2, std::string(1, scope));
  return s;
}

auto scope_is(char scope) {
  return [scope](const strategy::Site& s) {
    return s.values("tensor") == std::vector<std::string>{"T"} &&
           s.values("scope") == std::vector<std::string>{std::string(1, scope)};
  };
}

TEST(GroundedCot, StorageScopeSaysWhichWayTheTensorMoved) {
  Step to_local = step("set_storage_scope", staged('g'), scope_is('l'));
  Step to_global = step("set_storage_scope", staged('l'), scope_is('g'));
  EXPECT_TRUE(contains(to_local.cot.performance, "`T` moves from global to local memory"))
      << to_local.cot.performance;
  EXPECT_TRUE(contains(to_global.cot.performance, "`T` moves from local to global memory"))
      << to_global.cot.performance;
  // The two directions have opposite modelled effects, and each text follows its own figure.
  EXPECT_LT(to_local.cot.cost_after, to_local.cot.cost_before);
  EXPECT_TRUE(contains(to_local.cot.performance, "lowers the modelled cost"));
  EXPECT_GT(to_global.cot.cost_after, to_global.cot.cost_before);
  EXPECT_TRUE(contains(to_global.cot.performance, "raises the modelled cost"));
  EXPECT_FALSE(contains(to_global.cot.text(), "lower latency"));
  EXPECT_TRUE(checked("set_storage_scope", to_local).empty());
  EXPECT_TRUE(checked("set_storage_scope", to_global).empty());
}

TEST(GroundedCot, PerformanceCitesTheCostModelsFigures) {
  Step st = step("set_storage_scope", staged('g'), scope_is('l'));
  EXPECT_DOUBLE_EQ(st.cot.cost_before, cost::estimated_cost(st.before));
  EXPECT_DOUBLE_EQ(st.cot.cost_after, cost::estimated_cost(st.after));
  const std::string from =
      fmt::format("from {:.0f} to {:.0f} (", st.cot.cost_before, st.cot.cost_after);
  EXPECT_TRUE(contains(st.cot.performance, from)) << st.cot.performance << "\n" << from;
}

TEST(GroundedCot, SplitNamesTheLoopAndItsFactor) {
  Step st = step(
      "loop_split",
      "input A f64[4,64]\noutput C f64[4,64]\nB^{4}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}="
      "A^{f64,g}_{tx,a}*2;];\n",
      [](const strategy::Site& s) { return s.values("factor") == std::vector<std::string>{"8"}; });
  const std::string text = st.cot.text();
  EXPECT_TRUE(contains(st.cot.decision, "8")) << st.cot.decision;
  EXPECT_TRUE(contains(st.cot.applicability,
                       "block #0 (loops B^{4}_{tx=0}L^{64}_{a=0}) writes "
                       "`C` and reads `A`"))
      << st.cot.applicability;
  // The split loop's new extent 8 shows in the printed result block.
  EXPECT_TRUE(contains(st.cot.transition, "^{8}")) << st.cot.transition;
  EXPECT_TRUE(st.cot.performance.starts_with("loop_split aims at")) << st.cot.performance;
  EXPECT_TRUE(checked("loop_split", st).empty());
}

TEST(GroundedCot, FusionNamesBothNestsAndOmitsEmptyClauses) {
  Step st = step("operator_fusion",
                 "input A f64[64]\noutput D f64[64]\n"
                 "B^{64}_{tx=0}[T^{f64,g}_{tx}=A^{f64,g}_{tx}*2;];\n"
                 "B^{64}_{tx=0}[D^{f64,g}_{tx}=T^{f64,g}_{tx}+1;];\n",
                 [](const strategy::Site&) { return true; });
  EXPECT_TRUE(contains(st.cot.transition, "2 of 2 top-level blocks are removed: #0 "))
      << st.cot.transition;
  EXPECT_TRUE(contains(st.cot.transition, "; #1 ")) << st.cot.transition;
  EXPECT_TRUE(contains(st.cot.transition, "1 block is added: #0 ")) << st.cot.transition;
  // Nothing was kept: no "other 0 blocks" filler.
  EXPECT_FALSE(contains(st.cot.transition, "other")) << st.cot.transition;
  EXPECT_FALSE(contains(st.cot.text(), " 0 blocks")) << st.cot.text();
  EXPECT_TRUE(checked("operator_fusion", st).empty());
}

TEST(GroundedCot, NeutralStepSaysSoAndWhatItEnables) {
  Step st =
      step("loop_binding",
           "input A f64[64]\noutput C f64[64]\nL^{64}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}*2;];\n",
           [](const strategy::Site&) { return true; });
  ASSERT_DOUBLE_EQ(st.cot.cost_before, st.cot.cost_after) << st.site.to_string();
  EXPECT_TRUE(contains(st.cot.performance, "leaves the modelled cost unchanged at"))
      << st.cot.performance;
  EXPECT_TRUE(contains(st.cot.performance, "its value is what it enables: a GPU mapping"));
  EXPECT_FALSE(contains(st.cot.performance, "lowers"));
  EXPECT_TRUE(checked("loop_binding", st).empty());
}

TEST(CotCheck, RejectsANameInNeitherProgram) {
  Step st = step("set_storage_scope", staged('g'), scope_is('l'));
  std::string text = st.cot.text();
  text.replace(text.find("`T`"), 3, "`Q`");
  auto v = check_cot("set_storage_scope", st.before, st.after, text,
                     {st.cot.cost_before, st.cot.cost_after});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(contains(v[0], "`Q` is neither")) << v[0];
}

TEST(CotCheck, RejectsLowersWhenTheFigureRises) {
  Step st = step("set_storage_scope", staged('l'), scope_is('g'));
  std::string text = st.cot.text();
  const size_t at = text.find("raises the modelled cost");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 6, "lowers");
  auto v = check_cot("set_storage_scope", st.before, st.after, text,
                     {st.cot.cost_before, st.cot.cost_after});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(contains(v[0], "claims \"lowers\"")) << v[0];
}

TEST(CotCheck, RejectsAWrongFigureAndAMissingBlock) {
  Step st = step("set_storage_scope", staged('g'), scope_is('l'));
  auto v = check_cot("set_storage_scope", st.before, st.after, st.cot.text() + " #7",
                     {st.cot.cost_before * 2, st.cot.cost_after});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(contains(v[0], "block #7 does not exist")) << v[0];
  EXPECT_TRUE(contains(v[1], "as the cost before")) << v[1];
}

TEST(StrategyNotes, NoTwoStrategiesShareAnEffectSentence) {
  const leir::Program p =
      program("input A f64[4]\noutput C f64[4]\nB^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];\n");
  std::set<std::string> seen;
  for (const strategy::Strategy* s : strategy::all_strategies()) {
    const StrategyNotes n = notes_for(s->name(), s->category());
    // The effect sentence without the figures (the same for every step of the strategy).
    std::string effect = performance_part(s->name(), n, p, p, 1, 1);
    effect = effect.substr(0, effect.find(". This step"));
    EXPECT_TRUE(seen.insert(effect).second) << effect;
  }
}

}  // namespace
}  // namespace steptp::cot
