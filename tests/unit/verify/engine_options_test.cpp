// The compiled engine is part of the verification options: two verifications in one process with
// two different engines each use their own, whichever was configured first.
#include <gtest/gtest.h>

#include <atomic>

#include "interp/interpreter.h"
#include "leir/parser.h"
#include "verify/verify.h"

namespace steptp::verify {
namespace {

constexpr const char* kRelu =
    "input A f64[4,8]\noutput C f64[4,8]\n"
    "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];\n";
constexpr const char* kSameRelu =
    "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];";

// An engine that computes the right values and counts its calls.
EngineFn counting_engine(std::atomic<int>& calls) {
  return [&calls](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
    ++calls;
    return interp::run_program(p, inputs, {});
  };
}

// An engine that counts its calls and adds 1 to every output element.
EngineFn off_by_one_engine(std::atomic<int>& calls) {
  return [&calls](
             const leir::Program& p,
             const std::vector<leir::TensorData>& inputs) -> Result<std::vector<leir::TensorData>> {
    ++calls;
    Result<std::vector<leir::TensorData>> out = interp::run_program(p, inputs, {});
    if (!out.ok()) return out;
    std::vector<leir::TensorData> shifted = std::move(out).value();
    for (leir::TensorData& t : shifted)
      for (double& v : t.values) v += 1.0;
    return shifted;
  };
}

TEST(VerifyEngineOptions, TwoCompiledEnginesInOneProcessAreBothHonoured) {
  std::atomic<int> right_calls = 0, wrong_calls = 0;
  VerifyOptions right;
  right.engine = Engine::kCompiled;
  right.compiled = counting_engine(right_calls);
  VerifyOptions wrong;
  wrong.engine = Engine::kCompiled;
  wrong.compiled = off_by_one_engine(wrong_calls);

  VerifyReport first = verify_text(kRelu, kSameRelu, right);
  VerifyReport second = verify_text(kRelu, kSameRelu, wrong);
  VerifyReport third = verify_text(kRelu, kSameRelu, right);

  EXPECT_TRUE(first.equivalent()) << first.render();
  EXPECT_EQ(second.status, Status::kMismatch) << second.render();
  EXPECT_EQ(second.engine, "compiled");
  EXPECT_TRUE(third.equivalent()) << third.render();
  // Each engine ran the candidate once per seed of its own verifications, and no more.
  EXPECT_EQ(right_calls, 2 * right.num_seeds);
  EXPECT_GE(wrong_calls, 1);
  EXPECT_LE(wrong_calls, wrong.num_seeds);
}

TEST(VerifyEngineOptions, BothEnginesRunTheGivenCompiledEngineBesideTheInterpreter) {
  std::atomic<int> wrong_calls = 0;
  VerifyOptions o;
  o.engine = Engine::kBoth;
  o.compiled = off_by_one_engine(wrong_calls);
  VerifyReport r = verify_text(kRelu, kSameRelu, o);
  EXPECT_EQ(r.status, Status::kMismatch) << r.render();
  EXPECT_EQ(r.engine, "compiled");
  EXPECT_GE(wrong_calls, 1);
}

TEST(VerifyEngineOptions, WithoutAnEngineTheCompiledOneIsTheCBackend) {
  VerifyOptions o;
  o.engine = Engine::kCompiled;
  VerifyReport r = verify_text(kRelu, kSameRelu, o);
  EXPECT_TRUE(r.equivalent()) << r.render();
  EXPECT_EQ(r.engine, "compiled");
}

// original_on_compiled: the expected values come from the compiled engine, not the interpreter,
// so an engine that is off by one everywhere agrees with itself; without it the interpreter's
// values expose it.
TEST(VerifyEngineOptions, TheOriginalRunsOnTheCompiledEngineWhenAsked) {
  std::atomic<int> calls = 0;
  VerifyOptions o;
  o.engine = Engine::kCompiled;
  o.compiled = off_by_one_engine(calls);
  o.original_on_compiled = true;
  VerifyReport self = verify_text(kRelu, kSameRelu, o);
  EXPECT_TRUE(self.equivalent()) << self.render();
  EXPECT_EQ(calls, 2 * o.num_seeds);  // the original and the candidate, per seed
  o.original_on_compiled = false;
  EXPECT_EQ(verify_text(kRelu, kSameRelu, o).status, Status::kMismatch);
}

}  // namespace
}  // namespace steptp::verify

namespace steptp::verify {
namespace {

// sized_for sends a program past the interpreter's work limit to the compiled engine, original
// included, with a budget for its size; small programs and the TVM engine are left alone.
TEST(SizedFor, MovesOnlyProgramsTooLargeForTheInterpreterToTheCompiledEngine) {
  auto small = leir::parse_program(kRelu);
  auto big = leir::parse_program(
      "input A f64[2048,4096]\noutput C f64[2048,4096]\n"
      "B^{2048}_{tx=0}L^{4096}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];\n");
  ASSERT_TRUE(small.ok() && big.ok());
  VerifyOptions base;
  base.run.work_budget = 1000;

  VerifyOptions s = sized_for(*small, base);
  EXPECT_EQ(s.engine, Engine::kInterpreter);
  EXPECT_FALSE(s.original_on_compiled);
  EXPECT_EQ(s.run.work_budget, 1000);

  VerifyOptions b = sized_for(*big, base);
  EXPECT_EQ(b.engine, Engine::kCompiled);
  EXPECT_TRUE(b.original_on_compiled);
  EXPECT_GE(b.run.work_budget, 4 * 2048 * 4096);

  base.engine = Engine::kBoth;
  EXPECT_EQ(sized_for(*big, base).engine, Engine::kCompiled);
  base.engine = Engine::kTvm;
  EXPECT_EQ(sized_for(*big, base).engine, Engine::kTvm);
}

}  // namespace
}  // namespace steptp::verify
