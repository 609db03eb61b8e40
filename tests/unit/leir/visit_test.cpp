// for_each_stmt: every statement in program order, with all its enclosing loops (across nested
// blocks), its own nest, its top-level block and its ordinal.
#include "leir/visit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "leir/parser.h"

namespace steptp::leir {
namespace {

TEST(ForEachStmt, GivesEachStatementItsLoopsNestAndPosition) {
  Result<Program> p = parse_program(
      "input A f64[4,8]\noutput C f64[4]\noutput D f64[4]\n"
      "B^{4}_{tx=0}[L^{8}_{a=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,a};];"
      "D^{f64,g}_{tx}=C^{f64,g}_{tx}*2;];"
      "L^{4}_{c=0}[D^{f64,g}_{c}=D^{f64,g}_{c}+1;];",
      "visit.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  struct Seen {
    std::string loops;
    const Block* nest;
    size_t top_block;
    size_t ordinal;
  };
  std::vector<Seen> seen;
  for_each_stmt(p->blocks, [&](const Stmt&, const StmtContext& ctx) {
    std::string loops;
    for (const Loop* l : ctx.loops) loops += l->var;
    seen.push_back({loops, ctx.nest, ctx.top_block, ctx.stmt_ordinal});
  });
  ASSERT_EQ(seen.size(), 3u);
  const Block& outer = p->blocks[0];
  const Block& inner = *outer.body[0].block;
  EXPECT_EQ(seen[0].loops, "txa");
  EXPECT_EQ(seen[0].nest, &inner);
  EXPECT_EQ(seen[1].loops, "tx");
  EXPECT_EQ(seen[1].nest, &outer);
  EXPECT_EQ(seen[2].loops, "c");
  EXPECT_EQ(seen[2].nest, &p->blocks[1]);
  EXPECT_EQ(seen[0].top_block, 0u);
  EXPECT_EQ(seen[1].top_block, 0u);
  EXPECT_EQ(seen[2].top_block, 1u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].ordinal, i);
}

}  // namespace
}  // namespace steptp::leir
