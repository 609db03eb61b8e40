// The llm policy: it asks with the prompt module's prompt, reads answers with the llm module's
// parser (tested in tests/unit/llm), identifies the registered step an answer's program is,
// model failures reach the engine as labelled rejections, and endpoint failures stop the search.
#include "search/llm_policy.h"

#include <gtest/gtest.h>

#include <set>

#include "leir/printer.h"
#include "scripted.h"
#include "search/algorithms.h"
#include "strategy/registry.h"

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
  Result<std::vector<std::string>> answers(const prompt::PromptInput& question, int) override {
    prompts.push_back(prompt::user_message(question));
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
  source.script.push_back(Error::make("llm_too_large", "the response exceeded 64 MiB"));
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
  // No registered step turns A*0 into A*3: the trace keeps the model's claim.
  EXPECT_EQ(best.trace, (std::vector<std::string>{"llm:loop_tiling"}));
  EXPECT_EQ(best.claim, "");
  // The second prompt is for the new state and carries its history.
  ASSERT_EQ(source.prompts.size(), 2u);
  EXPECT_NE(source.prompts[1].find("Steps applied so far (oldest first):\n- llm:loop_tiling\n"),
            std::string::npos);
  EXPECT_NE(source.prompts[0].find("input A f64[4]"), std::string::npos);
  EXPECT_EQ(source.prompts[0].find("Steps applied so far"), std::string::npos);
}

TEST(LlmPolicy, AnAnswerThatIsARegisteredStepIsProposedAsThatStepBesideTheClaim) {
  auto p = leir::parse_program(
      "input A f64[4,8]\noutput C f64[4,8]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];");
  ASSERT_TRUE(p.ok());
  const strategy::Strategy* unroll = strategy::find_strategy("loop_unrolling");
  ASSERT_NE(unroll, nullptr);
  std::vector<strategy::Site> sites = strategy::feasible_sites(*unroll, *p);
  ASSERT_FALSE(sites.empty());
  auto after = unroll->apply(*p, sites.front());
  ASSERT_TRUE(after.ok());
  ScriptedSource source;
  // The model calls it a loop_split: the policy finds the unrolling site all the same.
  source.script.push_back(
      std::vector<std::string>{"<answer>{\"transformed_IR\": \"" + leir::print_body(after->blocks) +
                               "\", \"applied_strategy\": \"loop_split\"}</answer>"});
  LlmPolicy policy(source, "Toy");
  std::vector<std::string> trace, failures;
  std::set<std::string> tried;
  PolicyRequest request{*p, *p, trace, 0, 1.0, tried, failures, 1, "greedy"};
  std::vector<Proposal> proposals = policy.propose(request);
  ASSERT_EQ(proposals.size(), 1u);
  EXPECT_EQ(proposals[0].step, sites.front().to_string());
  EXPECT_EQ(proposals[0].claim, "llm:loop_split");
}

TEST(LlmPolicy, AnUnusableEndpointStopsTheSearchAndIsReported) {
  ScriptedSource source;
  source.script.push_back(Error::make("llm_connection", "connection refused"));
  source.script.push_back(std::vector<std::string>{answer_for(3, "loop_tiling")});
  LlmPolicy policy(source, "Toy");
  FakeEvaluator e;
  e.times = {{0, 100}, {3, 50}};
  SearchOptions o;
  o.budget = {5, 5, 4};
  auto engine = std::move(Engine::create(program_of(0), policy, e, o, "greedy")).value();
  run_greedy(*engine);
  ASSERT_TRUE(policy.fatal_error().has_value());
  EXPECT_EQ(policy.fatal_error()->category, "llm_connection");
  EXPECT_EQ(source.prompts.size(), 1u);  // no call after the failure
  EXPECT_EQ(engine->best(), 0);
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

}  // namespace
}  // namespace steptp::search
