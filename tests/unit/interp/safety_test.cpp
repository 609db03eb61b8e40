// Safety checks of record: each error category, with the facts its message must name.
#include <gtest/gtest.h>

#include <chrono>

#include "program_fixture.h"

namespace steptp::interp::testing {
namespace {

void expect_error(const Error& e, const std::string& category,
                  const std::vector<std::string>& fragments) {
  EXPECT_EQ(e.category, category) << e.render();
  for (const auto& f : fragments) EXPECT_NE(e.message.find(f), std::string::npos) << e.message;
}

TEST(InterpSafety, OutOfBoundsReadOfAnInputNamesTheElement) {
  auto p =
      parse_or_die("input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a+1};];");
  expect_error(run_error(p, seeded_inputs(p)), "out_of_bounds",
               {"block 0", "statement 0", "read of A[4]", "shape [4]"});
}

TEST(InterpSafety, OutOfBoundsWriteOfADeclaredOutput) {
  auto p =
      parse_or_die("input A f64[4]\noutput C f64[3]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a};];");
  expect_error(run_error(p, seeded_inputs(p)), "out_of_bounds", {"write of C[3]", "C^{f64,g}_{a}"});
}

TEST(InterpSafety, OutOfBoundsGather) {
  auto p = parse_or_die(
      "input A f64[4]\ninput J i64[2]\noutput C f64[2]\n"
      "L^{2}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{J^{i64,g}_{a}};];");
  auto in = seeded_inputs(p);
  in[1].values = {1, 5};
  expect_error(run_error(p, in), "out_of_bounds", {"read of A[5]"});
}

TEST(InterpSafety, IndexDivisionByZero) {
  auto p = parse_or_die(
      "input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a//(a-a)};];");
  expect_error(run_error(p, seeded_inputs(p)), "out_of_bounds", {"index division by zero"});
}

TEST(InterpSafety, UninitializedReadOfAnIntermediate) {
  auto p = parse_or_die(
      "input A f64[4]\noutput C f64[7]\n"
      "L^{4}_{a=0}[X^{f64,g}_{a*2}=A^{f64,g}_{a};];L^{7}_{a=0}[C^{f64,g}_{a}=X^{f64,g}_{a};];");
  expect_error(run_error(p, seeded_inputs(p)), "uninitialized_read",
               {"block 1", "statement 1", "X[1]", "never written"});
}

TEST(InterpSafety, SelfReferenceMatchingNoPatternIsUninitialized) {
  auto p = parse_or_die(
      "input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}-C^{f64,g}_{a};];");
  expect_error(run_error(p, seeded_inputs(p)), "uninitialized_read", {"C[0]"});
}

TEST(InterpSafety, IncompleteOutput) {
  auto p =
      parse_or_die("input A f64[5]\noutput C f64[5]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a};];");
  expect_error(run_error(p, seeded_inputs(p)), "incomplete_output", {"C", "[4]", "4 of 5"});
}

TEST(InterpSafety, BoundLoopWritingOneElementIsARace) {
  auto p =
      parse_or_die("input A f64[8]\noutput C f64[1]\nB^{8}_{tx=0}[C^{f64,g}_{0}=A^{f64,g}_{tx};];");
  expect_error(run_error(p, seeded_inputs(p)), "race", {"C[0]", "block 0"});
}

TEST(InterpSafety, RecurrenceAlongABoundLoopIsARace) {
  auto p = parse_or_die(
      "input D f64[4]\noutput H f64[4]\n"
      "B^{4}_{tx=0}[H^{f64,g}_{tx}=max(if_then_else(tx-1<0,-inf,H^{f64,g}_{tx-1}),D^{f64,g}_{tx});]"
      ";");
  expect_error(run_error(p, seeded_inputs(p)), "race", {"H[0]"});
}

TEST(InterpSafety, RecurrenceAlongASerialLoopUnderABoundLoopIsFine) {
  auto p = parse_or_die(
      "input D f64[8,4]\noutput H f64[8,4]\n"
      "B^{8}_{tx=0}L^{4}_{a=0}[H^{f64,g}_{tx,a}=max(if_then_else(a-1<0,-inf,H^{f64,g}_{tx,a-1}),"
      "D^{f64,g}_{tx,a});];");
  run_ok(p, seeded_inputs(p));
}

TEST(InterpSafety, CrossThreadReductionIsRecognised) {
  auto p = parse_or_die(
      "input F f64[128,4]\noutput H "
      "f64[]\nB^{128}_{tx=0}L^{4}_{a=0}[H^{f64,g}=H^{f64,g}+F^{f64,g}_{tx,a};];");
  run_ok(p, seeded_inputs(p));
}

TEST(InterpSafety, ChecksOffSkipsRaceAndCoverage) {
  auto p =
      parse_or_die("input A f64[8]\noutput C f64[2]\nB^{8}_{tx=0}[C^{f64,g}_{0}=A^{f64,g}_{tx};];");
  RunOptions off;
  off.check_safety = false;
  auto out = run_ok(p, seeded_inputs(p), off);
  EXPECT_EQ(out["C"].values[0], seeded_inputs(p)[0].values[7]);
}

TEST(InterpSafety, HugeIterationSpaceFailsBeforeRunning) {
  auto p = parse_or_die(
      "input A f64[1]\noutput C f64[1]\n"
      "L^{1000000}_{a=0}L^{1000000}_{c=0}[C^{f64,g}_{0}=C^{f64,g}_{0}+A^{f64,g}_{0};];");
  auto start = std::chrono::steady_clock::now();
  auto r = Interpreter::compile(p);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  expect_error(r.error(), "budget_exceeded", {"1000000000000", "work budget"});
  EXPECT_LT(elapsed, std::chrono::seconds(1));  // generous: it must not iterate
}

TEST(InterpSafety, MemoryBudget) {
  auto p = parse_or_die(
      "input A f64[1000,1000]\noutput C f64[1]\nB^{1}_{tx=0}[C^{f64,g}_{0}=A^{f64,g}_{0,0};];");
  RunOptions small;
  small.memory_budget_bytes = 1 << 20;
  auto r = Interpreter::compile(p, small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "budget_exceeded");
}

TEST(InterpSafety, BadInputs) {
  auto p =
      parse_or_die("input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a};];");
  expect_error(run_error(p, {}), "bad_input", {"missing input A"});
  std::vector<leir::TensorData> wrong = {
      {"A", leir::DType::kF64, {5}, std::vector<double>(5, 0.0)}};
  expect_error(run_error(p, wrong), "bad_input", {"A", "[4]", "[5]"});
}

TEST(InterpSafety, WriteToAnInputIsIllFormed) {
  auto p = parse_or_die(
      "input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[A^{f64,g}_{a}=1;C^{f64,g}_{a}=1;];");
  auto r = Interpreter::compile(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "ill_formed");
}

TEST(InterpSafety, CompileOnceRunManyReportsWork) {
  auto p = parse_or_die(
      "input A f64[4,3]\noutput C "
      "f64[4]\nB^{4}_{tx=0}L^{3}_{a=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,a};];");
  auto interp = Interpreter::compile(p);
  ASSERT_TRUE(interp.ok());
  for (uint64_t seed = 1; seed < 4; ++seed) {
    auto in = seeded_inputs(p, seed);
    RunStats stats;
    auto out = interp->run(in, &stats);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(stats.statement_executions, 12);
    double s0 = 0;
    for (int a = 0; a < 3; ++a) s0 = s0 + in[0].values[a];
    EXPECT_EQ(out.value()[0].values[0], s0);
  }
}

}  // namespace
}  // namespace steptp::interp::testing
