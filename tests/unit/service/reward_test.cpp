// Tests of the reward: the scalar formula at its corners, and that a reward carries exactly
// eval-single's verdict (the same rules, not a second copy of them).
#include "service/reward.h"

#include <gtest/gtest.h>

#include <cmath>

#include "leir/parser.h"

namespace steptp::service {
namespace {

const char* kProgram =
    "input A f64[4,6]\noutput C f64[4,6]\n"
    "B^{4}_{tx=0}L^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];\n";
const char* kUnrolled = "B^{4}_{tx=0}U^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];";
const char* kWrong = "B^{4}_{tx=0}U^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*3;];";

std::string answer(const std::string& strategy, const std::string& ir) {
  return "<think>why</think><answer>{\"applied_strategy\": \"" + strategy +
         "\", \"transformed_IR\": \"" + ir + "\"}</answer>";
}

llm::EvalQuestion question() { return question_for(*leir::parse_program(kProgram)); }

TEST(ScalarReward, IsZeroWithoutAReadableAnswer) {
  EXPECT_EQ(scalar_reward(false, false, std::nullopt, 0.5), 0.0);
}

TEST(ScalarReward, IsATenthForAReadableWrongStep) {
  EXPECT_EQ(scalar_reward(true, false, 4.0, 0.5), 0.1);
}

TEST(ScalarReward, GrowsWithLog2OfTheSpeedupClampedToOneDoubling) {
  EXPECT_EQ(scalar_reward(true, true, 1.0, 0.5), 1.0);
  EXPECT_EQ(scalar_reward(true, true, 2.0, 0.5), 1.5);
  EXPECT_EQ(scalar_reward(true, true, 8.0, 0.5), 1.5);
  EXPECT_EQ(scalar_reward(true, true, 0.5, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(scalar_reward(true, true, std::sqrt(2.0), 0.5), 1.25);
  EXPECT_EQ(scalar_reward(true, true, std::nullopt, 0.5), 1.0);
}

TEST(Reward, ALegalEquivalentStepIsCorrectWithAModelledSpeedup) {
  RewardResult r = reward(question(), answer("loop_unrolling", kUnrolled));
  EXPECT_TRUE(r.format_ok);
  EXPECT_TRUE(r.legal);
  EXPECT_TRUE(r.equivalent);
  EXPECT_TRUE(r.correct);
  EXPECT_FALSE(r.matched.has_value());  // no references: matching is not asked
  ASSERT_TRUE(r.modelled_speedup.has_value());
  EXPECT_EQ(r.outcome.candidates.at(0).step, "loop_unrolling(block=0, loop=a)");
  EXPECT_EQ(r.reward, scalar_reward(true, true, r.modelled_speedup, 0.5));
}

TEST(Reward, ANonEquivalentStepIsNeitherLegalNorEquivalentWorthATenth) {
  RewardResult r = reward(question(), answer("loop_unrolling", kWrong));
  EXPECT_TRUE(r.format_ok);
  EXPECT_FALSE(r.legal);
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.outcome.failure, "illegal_step");
  EXPECT_EQ(r.reward, 0.1);
}

TEST(Reward, TheWrongStrategyNameIsAnIllegalStep) {
  RewardResult r = reward(question(), answer("loop_tiling", kUnrolled));
  EXPECT_FALSE(r.legal);
  EXPECT_TRUE(r.equivalent);
  EXPECT_EQ(r.outcome.failure, "illegal_step");
}

TEST(Reward, WithReferencesTheStepMustMatchOne) {
  llm::EvalQuestion q = question();
  leir::Program other = *leir::parse_program(kProgram);
  q.references.push_back({"loop_tiling", other});
  RewardResult r = reward(q, answer("loop_unrolling", kUnrolled));
  ASSERT_TRUE(r.matched.has_value());
  EXPECT_FALSE(*r.matched);
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.outcome.failure, "no_match");
  EXPECT_GT(r.reward, 0.5);  // still a legal, equivalent step: the scalar does not need a match
}

TEST(Reward, AnUnreadableAnswerIsZero) {
  RewardResult r = reward(question(), "I would unroll the loop.");
  EXPECT_FALSE(r.format_ok);
  EXPECT_EQ(r.reward, 0.0);
  EXPECT_EQ(r.outcome.failure, "no_answer_block");
}

TEST(Reward, MeasuringTimesBothPrograms) {
  RewardOptions options;
  options.measure = true;
  options.timing.repeats = 3;
  RewardResult r = reward(question(), answer("loop_unrolling", kUnrolled), options);
  ASSERT_TRUE(r.measured_speedup.has_value()) << r.measure_error;
  EXPECT_GT(*r.measured_speedup, 0.0);
  EXPECT_EQ(r.reward, scalar_reward(true, true, r.measured_speedup, 0.5));
}

}  // namespace
}  // namespace steptp::service
