// Surgery helpers: fresh names never collide, substitution reaches values and subscripts.
#include "strategy/surgery.h"

#include <gtest/gtest.h>

#include "leir/parser.h"
#include "leir/printer.h"

namespace steptp::strategy::surgery {
namespace {

leir::Program program(const char* text) {
  Result<leir::Program> p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), "test program does not parse");
  return *p;
}

TEST(NameAllocator, SkipsNamesInUseAndReservedLetters) {
  leir::Program p = program(
      "input A f64[4,4]\noutput C f64[4,4]\n"
      "B^{4}_{tx=0}L^{2}_{a=0}L^{2}_{c=0}[C^{f64,g}_{tx,a*2+c}=A^{f64,g}_{tx,a*2+c};];");
  NameAllocator names(p);
  EXPECT_EQ(names.fresh_loop_var(), "d");  // a, c used; 'b' and 'e' never used
  EXPECT_EQ(names.fresh_loop_var(), "f");
  EXPECT_EQ(names.fresh_tensor(), "D");  // A, C used; B is a loop-kind letter
  EXPECT_EQ(names.fresh_tensor(), "E");
  EXPECT_EQ(names.fresh_binding_var('t', 'y', "a"), "tya");
  EXPECT_EQ(names.fresh_binding_var('t', 'y', "a"), "tyaa");
}

TEST(NameAllocator, GoesPastOneLetterNames) {
  NameAllocator names(leir::Program{});
  std::set<std::string> seen;
  for (int i = 0; i < 60; ++i) {
    std::string v = names.fresh_loop_var();
    EXPECT_TRUE(leir::is_index_var_name(v)) << v;
    EXPECT_NE(v[0], 'e');
    EXPECT_NE(v[0], 't');
    EXPECT_NE(v[0], 'b');
    EXPECT_TRUE(seen.insert(v).second) << v;
    std::string t = names.fresh_tensor();
    EXPECT_TRUE(leir::is_tensor_name(t)) << t;
    EXPECT_TRUE(seen.insert(t).second) << t;
  }
  EXPECT_TRUE(seen.count("aa"));
  EXPECT_TRUE(seen.count("Aa"));
}

TEST(Substitute, ReachesValuesAndSubscripts) {
  leir::Program p = program(
      "input A f64[6]\noutput C f64[6]\n"
      "L^{6}_{a=0}[C^{f64,g}_{a}=if_then_else(a<3,A^{f64,g}_{a},0);];");
  leir::Block b = substitute_var(p.blocks[0], "a", split_index("c", 2, "a"));
  EXPECT_EQ(leir::print(b),
            "L^{6}_{a=0}[C^{f64,g}_{c*2+a}=if_then_else(c*2+a<3,A^{f64,g}_{c*2+a},0);];");
  leir::Block r = rename_var(p.blocks[0], "a", "tya");
  EXPECT_EQ(leir::print(r),
            "L^{6}_{tya=0}[C^{f64,g}_{tya}=if_then_else(tya<3,A^{f64,g}_{tya},0);];");
}

}  // namespace
}  // namespace steptp::strategy::surgery
