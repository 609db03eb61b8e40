// Dependence queries of one loop nest, against cases worked out by hand.
#include "analysis/dependence.h"

#include <gtest/gtest.h>

#include "analysis/access.h"
#include "leir/parser.h"

namespace steptp::analysis {
namespace {

leir::Block block(const char* text) {
  Result<std::vector<leir::Block>> body = leir::parse_body(text);
  STEPTP_CHECK(body.ok() && body->size() == 1, "test block does not parse");
  return body->front();
}

const char* kGemm =
    "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{"
    "f64,"
    "g}_{c,a};];";

TEST(Accumulation, RecognisedForms) {
  auto stmt_of = [](const char* text) { return *block(text).body[0].stmt; };
  auto op = [&](const char* text) { return match_accumulation(stmt_of(text)); };
  EXPECT_EQ(op("L^{2}_{a=0}[X^{f64,g}=X^{f64,g}+A^{f64,g}_{a};];")->op, AccumulateOp::kSum);
  EXPECT_EQ(op("L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}+X^{f64,g};];")->op, AccumulateOp::kSum);
  EXPECT_EQ(op("L^{2}_{a=0}[X^{f64,g}=X^{f64,g}+A^{f64,g}_{a}-1;];")->op, AccumulateOp::kSum);
  EXPECT_EQ(op("L^{2}_{a=0}[X^{f64,g}=X^{f64,g}*A^{f64,g}_{a};];")->op, AccumulateOp::kProduct);
  EXPECT_EQ(op("L^{2}_{a=0}[X^{f64,g}=max(A^{f64,g}_{a},X^{f64,g});];")->op, AccumulateOp::kMax);
  EXPECT_EQ(op("L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}/X^{f64,g};];")->op, AccumulateOp::kDivideBy);
  EXPECT_FALSE(op("L^{2}_{a=0}[X^{f64,g}=X^{f64,g}*2+A^{f64,g}_{a};];"));
  EXPECT_FALSE(op("L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}-X^{f64,g};];"));
  EXPECT_FALSE(op("L^{2}_{a=0}[X^{f64,g}=X^{f64,g}+X^{f64,g};];"));
  EXPECT_FALSE(op("L^{2}_{a=0}[X^{f64,g}_{a}=X^{f64,g}_{a-1}+1;];"));
}

TEST(Slicing, PositionFixedByALoopIsWhereEveryAccessIsExactlyItsVariable) {
  // F is written as F[tx,a] and read as F[tx,c]: tx fixes position 0 for both, a only in the
  // write, and the read's shifted twin G[tx,a+1] is fixed by tx alone.
  leir::Block b = block(
      "B^{4}_{tx=0}[L^{8}_{a=0}[F^{f64,g}_{tx,a}=A^{f64,g}_{a,tx};G^{f64,g}_{tx,a+1}=1;];"
      "L^{8}_{c=0}[C^{f64,g}_{tx,c}=F^{f64,g}_{tx,c}+G^{f64,g}_{tx,c};];];");
  std::map<std::string, std::vector<Access>> by = accesses_by_tensor(b);
  EXPECT_EQ(position_fixed_by(by["F"], "tx"), std::optional<size_t>(0));
  EXPECT_EQ(position_fixed_by(by["F"], "a"), std::nullopt);
  EXPECT_EQ(position_fixed_by(by["G"], "tx"), std::optional<size_t>(0));
  EXPECT_EQ(position_fixed_by(by["A"], "tx"), std::optional<size_t>(1));
  EXPECT_EQ(position_fixed_by({}, "tx"), std::nullopt);
}

TEST(Injective, MixedRadix) {
  leir::VarRanges r{{"a", {0, 3}}, {"c", {0, 7}}, {"tx", {0, 15}}};
  auto inj = [&](const char* e) { return is_injective_index(**leir::parse_expr(e), r); };
  EXPECT_TRUE(inj("a"));
  EXPECT_TRUE(inj("a*8+c"));   // c spans 0..7 < 8
  EXPECT_FALSE(inj("a*4+c"));  // 1*4+0 == 0*4+4
  EXPECT_TRUE(inj("c-a*8"));
  EXPECT_TRUE(inj("3"));
  EXPECT_FALSE(inj("a//2"));
}

TEST(Separation, GemmSpatialAndReductionLoops) {
  leir::Block b = block(kGemm);
  EXPECT_TRUE(separates(b, "tx", "E"));
  EXPECT_TRUE(separates(b, "a", "E"));
  EXPECT_FALSE(separates(b, "c", "E"));
  EXPECT_TRUE(is_independent_loop(b, "a"));
  EXPECT_FALSE(is_independent_loop(b, "c"));
  EXPECT_TRUE(is_pure_reduction(b, "E"));
}

TEST(Separation, ShiftedReadIsNotSeparatedByItsLoop) {
  leir::Block b = block(
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=if_then_else(a<1,0,C^{f64,g}_{tx,a-1})+"
      "A^{f64,g}_{tx,a};];");
  EXPECT_TRUE(separates(b, "tx", "C"));
  EXPECT_FALSE(separates(b, "a", "C"));
  EXPECT_FALSE(is_pure_reduction(b, "C"));
  EXPECT_EQ(reorder_violation(b, {"a", "tx"}), "");  // only 'a' carries it
}

TEST(Reorder, ReductionsReorderFreelyRecurrencesDoNot) {
  leir::Block gemm = block(kGemm);
  EXPECT_EQ(reorder_violation(gemm, {"c", "a", "tx"}), "");
  leir::Block horner = block(
      "B^{1}_{tx=0}L^{2}_{a=0}L^{3}_{c=0}[X^{f64,g}_{tx}=X^{f64,g}_{tx}*2+A^{f64,g}_{a,c};];");
  EXPECT_EQ(reorder_violation(horner, {"tx", "c", "a"}), "X");
  EXPECT_EQ(reorder_violation(horner, {"a", "tx", "c"}), "");
}

TEST(LaunchLimits, HardwareAxesAndThreads) {
  EXPECT_EQ(hardware_axis("tx"), (HardwareAxis{'t', 'x'}));
  EXPECT_EQ(hardware_axis("bza"), (HardwareAxis{'b', 'z'}));
  EXPECT_FALSE(hardware_axis("a"));
  EXPECT_FALSE(hardware_axis("tw"));
  EXPECT_EQ(axis_limit({'t', 'z'}), 64);
  EXPECT_EQ(axis_limit({'b', 'y'}), 65535);
  leir::Block b = block("B^{16}_{tx=0}B^{8}_{tya=0}B^{100}_{bxa=0}[C^{f64,g}_{tx,tya,bxa}=1;];");
  EXPECT_EQ(threads_per_block(b), 128);
}

}  // namespace
}  // namespace steptp::analysis
