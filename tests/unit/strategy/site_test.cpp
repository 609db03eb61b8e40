// Site text form: printing, parsing, typed reads, and the errors of malformed steps.
#include <gtest/gtest.h>

#include "strategy/registry.h"
#include "strategy/strategy.h"

namespace steptp::strategy {
namespace {

TEST(Site, PrintsParametersInOrder) {
  Site s("loop_tiling");
  s.set_block(BlockPath{2, {}}).set("loops", std::vector<std::string>{"a", "c"});
  s.set_ints("factors", {32, 16});
  EXPECT_EQ(s.to_string(), "loop_tiling(block=2, loops=a,c, factors=32,16)");
}

TEST(Site, ParsesItsOwnText) {
  Result<Site> s = parse_site("loop_tiling(block=2, loops=a,c, factors=32,16)");
  ASSERT_TRUE(s.ok()) << s.error().render();
  EXPECT_EQ(s->strategy(), "loop_tiling");
  EXPECT_EQ(*s->integer("block"), 2);
  EXPECT_EQ(s->values("loops"), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(*s->integers("factors"), (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(s->to_string(), "loop_tiling(block=2, loops=a,c, factors=32,16)");
}

TEST(Site, ToleratesSpacesAndNoParameters) {
  Result<Site> s = parse_site("  loop_split ( block = 0 ,loop= a , factor =4 ) ");
  ASSERT_TRUE(s.ok()) << s.error().render();
  EXPECT_EQ(s->to_string(), "loop_split(block=0, loop=a, factor=4)");
  Result<Site> none = parse_site("dead_code_elimination()");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->params().empty());
}

TEST(Site, NestedBlockPath) {
  Result<Site> s = parse_site("loop_unrolling(block=1.0.2, loop=h)");
  ASSERT_TRUE(s.ok());
  Outcome<BlockPath> path = s->block();
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path->top, 1u);
  EXPECT_EQ(path->nested, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(path->to_string(), "1.0.2");
}

TEST(Site, RejectsMalformedText) {
  for (const char* bad :
       {"", "loop_tiling", "loop_tiling(", "loop_tiling(block)", "loop_tiling(block=)",
        "loop_tiling(block=1,)", "loop_tiling(block=1", "loop_tiling(block=1) x",
        "loop_tiling(block=1, block=2)", "Loop(block=1)", "loop_tiling(block=1;loop=a)"}) {
    Result<Site> s = parse_site(bad);
    EXPECT_FALSE(s.ok()) << "accepted: " << bad;
    if (!s.ok()) {
      EXPECT_EQ(s.error().category, "bad_site");
    }
  }
  Result<Site> s = parse_site("loop_tiling(block=2 loops=a)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("column"), std::string::npos) << s.error().message;
}

TEST(Site, TypedReadsAreInfeasibleNotErrors) {
  Site s = *parse_site("loop_split(block=x, loop=a,b, factor=4)");
  EXPECT_EQ(s.block().infeasible().code, "site.bad_parameter");
  EXPECT_EQ(s.name("loop").infeasible().code, "site.bad_parameter");
  EXPECT_EQ(s.integer("missing").infeasible().code, "site.bad_parameter");
  EXPECT_EQ(*s.integer("factor"), 4);
}

TEST(Registry, ReferenceOrderAndUniqueNames) {
  const auto& names = reference_strategy_names();
  ASSERT_EQ(names.size(), 44u);
  EXPECT_EQ(names[9], "loop_reorder");
  EXPECT_EQ(names[17], "reduction_factorization");
  EXPECT_EQ(names[43], "normal_matmul_to_prefix_matmul_based_on_online_softmax");
  size_t last = 0;
  for (const Strategy* s : all_strategies()) {
    auto it = std::find(names.begin(), names.end(), s->name());
    ASSERT_NE(it, names.end()) << s->name();
    size_t index = static_cast<size_t>(it - names.begin());
    EXPECT_TRUE(index >= last) << s->name() << " out of order";
    last = index;
    EXPECT_EQ(find_strategy(s->name()), s);
    EXPECT_FALSE(s->summary().empty());
  }
  EXPECT_EQ(find_strategy("no_such_strategy"), nullptr);
  for (const char* n :
       {"loop_reorder", "loop_tiling", "loop_split", "loop_fusion", "loop_unrolling",
        "loop_parallelization", "loop_vectorization", "loop_binding", "reduction_factorization"}) {
    const Strategy* s = find_strategy(n);
    ASSERT_NE(s, nullptr) << n;
    EXPECT_EQ(s->category(), Category::kOperator);
  }
  EXPECT_EQ(find_strategy("loop_tiling")->difficulty(), Difficulty::kHard);
  EXPECT_EQ(find_strategy("loop_unrolling")->difficulty(), Difficulty::kEasy);
}

TEST(Registry, WrongStrategySiteIsInfeasible) {
  const Strategy* s = find_strategy("loop_unrolling");
  leir::Program p;
  Site other = *parse_site("loop_split(block=0, loop=a, factor=2)");
  Check c = s->check(p, other);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.infeasible().code, "site.wrong_strategy");
}

}  // namespace
}  // namespace steptp::strategy
