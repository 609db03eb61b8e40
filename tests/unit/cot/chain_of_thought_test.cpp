// Tests of the structural block diff and of the chain of thought of real strategy steps.
#include "cot/chain_of_thought.h"

#include <gtest/gtest.h>

#include <set>

#include "cot/block_diff.h"
#include "cot/strategy_notes.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "strategy/registry.h"

namespace steptp::cot {
namespace {

std::vector<leir::Block> body(std::string_view text) {
  auto b = leir::parse_body(text);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().render());
  return b.ok() ? *b : std::vector<leir::Block>{};
}

const char* kA = "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}*2;];";
const char* kB = "B^{4}_{tx=0}[D^{f64,g}_{tx}=C^{f64,g}_{tx}+1;];";
const char* kC = "B^{4}_{tx=0}[E^{f64,g}_{tx}=D^{f64,g}_{tx}*C^{f64,g}_{tx};];";
const char* kX = "B^{4}_{tx=0}[D^{f64,g}_{tx}=C^{f64,g}_{tx}+2;];";

std::string cat(std::initializer_list<const char*> parts) {
  std::string s;
  for (const char* p : parts) s += p;
  return s;
}

TEST(BlockDiff, ReplacedMiddleBlockIsOneRemovedAndOneAdded) {
  BlockDiff d = diff_blocks(body(cat({kA, kB, kC})), body(cat({kA, kX, kC})));
  EXPECT_EQ(d.removed, (std::vector<size_t>{1}));
  EXPECT_EQ(d.added, (std::vector<size_t>{1}));
  EXPECT_EQ(d.kept, 2u);
}

TEST(BlockDiff, SplitBlockListsEveryNewBlockInIrOrder) {
  BlockDiff d = diff_blocks(body(cat({kA, kC})), body(cat({kA, kB, kX, kC})));
  EXPECT_TRUE(d.removed.empty());
  EXPECT_EQ(d.added, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(d.kept, 2u);
}

TEST(BlockDiff, SwapKeepsTheEarliestBlock) {
  // LCS of [A,B] and [B,A] has length 1; the walk prefers removing the first block.
  BlockDiff d = diff_blocks(body(cat({kA, kB})), body(cat({kB, kA})));
  EXPECT_EQ(d.kept, 1u);
  EXPECT_EQ(d.removed.size(), 1u);
  EXPECT_EQ(d.added.size(), 1u);
}

TEST(BlockDiff, IdenticalListsAreEmpty) {
  EXPECT_TRUE(diff_blocks(body(cat({kA, kB})), body(cat({kA, kB}))).empty());
}

leir::Program program(std::string_view text) {
  auto p = leir::parse_program(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().render());
  return p.ok() ? *p : leir::Program{};
}

TEST(ChainOfThought, NamesRealBlocksTensorsAndTheSite) {
  const strategy::Strategy* split = strategy::find_strategy("loop_split");
  ASSERT_NE(split, nullptr);
  leir::Program before = program(
      "input A f64[4,8]\noutput C f64[4,8]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];\n");
  auto sites = strategy::feasible_sites(*split, before);
  ASSERT_FALSE(sites.empty());
  auto after = split->apply(before, sites.front());
  ASSERT_TRUE(after.ok());
  ChainOfThought c = explain_step(*split, before, sites.front(), *after);
  const std::string text = c.text();
  // (a) the real block and tensors
  EXPECT_NE(c.applicability.find("block #0"), std::string::npos) << c.applicability;
  EXPECT_NE(c.applicability.find("writes `C`"), std::string::npos) << c.applicability;
  EXPECT_NE(c.applicability.find("reads `A`"), std::string::npos) << c.applicability;
  EXPECT_NE(c.applicability.find("B^{4}_{tx=0}L^{8}_{a=0}"), std::string::npos);
  // (b) the printed site
  EXPECT_NE(c.decision.find(sites.front().to_string()), std::string::npos) << c.decision;
  // (c) the removed and added blocks, printed
  EXPECT_EQ(c.diff.removed, (std::vector<size_t>{0}));
  EXPECT_EQ(c.diff.added, (std::vector<size_t>{0}));
  EXPECT_NE(c.transition.find(leir::print(before.blocks[0])), std::string::npos);
  EXPECT_NE(c.transition.find(leir::print(after->blocks[0])), std::string::npos);
  // (d), (e) and the numbered layout
  EXPECT_EQ(text.find("1. Applicability: "), 0u);
  for (const char* part :
       {"\n2. Decision: ", "\n3. Transition: ", "\n4. Preservation: ", "\n5. Performance: "})
    EXPECT_NE(text.find(part), std::string::npos) << part;
  // Deterministic.
  EXPECT_EQ(text, explain_step(*split, before, sites.front(), *after).text());
}

TEST(StrategyNotes, EveryReferenceNameHasItsOwnSentences) {
  const StrategyNotes fallback = notes_for("not_a_strategy", strategy::Category::kGraph);
  std::set<std::string_view> effects;
  for (std::string_view name : strategy::reference_strategy_names()) {
    StrategyNotes n = notes_for(name, strategy::Category::kGraph);
    EXPECT_FALSE(n.purpose.empty()) << name;
    EXPECT_NE(n.purpose, fallback.purpose) << name;
    // Each strategy's effect phrase is its own, even without the name in front of it.
    EXPECT_TRUE(effects.insert(n.performance).second) << name << ": " << n.performance;
  }
}

}  // namespace
}  // namespace steptp::cot
