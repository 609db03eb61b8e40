// The llm policy: it asks with the llm module's multi-step prompt, reads answers with the llm
// module's parser (tested in tests/unit/llm), and model failures reach the engine as labelled
// rejections.
#include "search/llm_policy.h"

#include <gtest/gtest.h>

#include "leir/printer.h"
#include "scripted.h"
#include "search/algorithms.h"

namespace steptp::search {
namespace {

using testing::FakeEvaluator;
using testing::key_of;
using testing::program_of;

// Answers scripted per call.
class ScriptedSource final : public AnswerSource {
 public:
  std::vector<Result<std::vector<std::string>>> script;
  std::vector<std::string> prompts;
  Result<std::vector<std::string>> answers(const std::string& prompt, int) override {
    prompts.push_back(prompt);
    if (prompts.size() > script.size()) return std::vector<std::string>{};
    return script[prompts.size() - 1];
  }
};

std::string answer_for(int64_t v, const std::string& strategy) {
  return "<answer>{\"transformed_IR\": \"" + leir::print_body(program_of(v).blocks) +
         "\", \"applied_strategy\": \"" + strategy + "\"}</answer>";
}

TEST(LlmPolicy, TurnsAnswersIntoCandidatesAndLabelsEveryFailure) {
  ScriptedSource source;
  source.script.push_back(std::vector<std::string>{
      answer_for(3, "loop_tiling"), "I cannot help",
      "<answer>{\"transformed_IR\": \"B^{4}[\", \"applied_strategy\": \"loop_split\"}</answer>",
      answer_for(5, "loop_unrolling")});
  source.script.push_back(Error::make("llm_timeout", "no answer in 600 s"));
  LlmPolicy policy(source, "Toy");
  FakeEvaluator e;
  e.times = {{0, 100}, {3, 50}, {5, 200}};
  e.verdicts[5] = "mismatch";
  SearchOptions o;
  o.budget = {2, 10, 4};
  o.proposals = 4;
  auto engine = std::move(Engine::create(program_of(0), policy, e, o, "greedy")).value();
  run_greedy(*engine);
  const auto& f = engine->stats().failures;
  EXPECT_EQ(f.at("answer_parse_error"), 1);
  EXPECT_EQ(f.at("leir_parse_error"), 1);
  EXPECT_EQ(f.at("mismatch"), 1);
  EXPECT_EQ(f.at("llm_call_error"), 1);
  const Node& best = engine->node(engine->best());
  EXPECT_EQ(key_of(best.program), 3);
  EXPECT_EQ(best.trace, (std::vector<std::string>{"llm:loop_tiling"}));
  // The second prompt is for the new state and carries its history.
  ASSERT_EQ(source.prompts.size(), 2u);
  EXPECT_NE(source.prompts[1].find("1. llm:loop_tiling"), std::string::npos);
  EXPECT_NE(source.prompts[0].find("greedy search"), std::string::npos);
  EXPECT_NE(source.prompts[0].find("input A f64[4]"), std::string::npos);
}

TEST(LlmPolicy, AnAnswerNamingNoKnownStrategyIsRejectedBeforeParsingItsProgram) {
  ScriptedSource source;
  source.script.push_back(std::vector<std::string>{answer_for(3, "make_it_fast")});
  LlmPolicy policy(source, "Toy");
  FakeEvaluator e;
  SearchOptions o;
  o.budget = {1, 1, 4};
  auto engine = std::move(Engine::create(program_of(0), policy, e, o, "greedy")).value();
  run_greedy(*engine);
  EXPECT_EQ(engine->stats().failures.at("answer_parse_error"), 1);
  EXPECT_EQ(engine->best(), 0);
}

TEST(LlmPolicy, TheSecondPromptForAStateQuotesTheRealRejectionReasons) {
  ScriptedSource source;
  source.script.push_back(std::vector<std::string>{answer_for(5, "collect")});
  source.script.push_back(std::vector<std::string>{});
  LlmPolicy policy(source, "Toy");
  FakeEvaluator e;
  e.verdicts[5] = "race";
  SearchOptions o;
  o.budget = {5, 5, 4};
  auto engine = std::move(Engine::create(program_of(0), policy, e, o, "chain")).value();
  run_chain(*engine);
  ASSERT_EQ(source.prompts.size(), 2u);
  EXPECT_NE(source.prompts[1].find("llm:collect: race"), std::string::npos);
  EXPECT_EQ(engine->best(), 0);
}

}  // namespace
}  // namespace steptp::search
