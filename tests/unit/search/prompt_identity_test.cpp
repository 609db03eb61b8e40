// One prompt on three paths: the dataset export, single-step evaluation (reading the exported
// line) and the search's llm policy ask a model about the same program and step history with
// byte-identical system and user messages, as a server receives them.
#include <gtest/gtest.h>

#include <set>

#include "dataset/chat_format.h"
#include "leir/parser.h"
#include "llm/eval_single.h"
#include "llm/fake_server.h"
#include "llm/registered_names.h"
#include "search/chat_answer_source.h"
#include "search/llm_policy.h"

namespace steptp::search {
namespace {

constexpr const char* kDecls = "input A f64[4,8]\noutput C f64[4,8]\n";
constexpr const char* kBody = "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];";

dataset::StepRecord record(int n_history) {
  dataset::StepRecord r;
  r.workload = "Toy";
  r.declarations = kDecls;
  r.original = kBody;
  r.transformed = "B^{4}_{tx=0}U^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];";
  r.strategy = "loop_unrolling";
  r.cot = "unroll";
  // Dead-code injection is augmentation, not a step: it never reaches the prompt.
  r.provenance = {"inject_dead_code(block=0, at=0)"};
  for (int i = 0; i < n_history; ++i) r.provenance.push_back("dead_code_elimination(block=1)");
  return r;
}

std::vector<llm::ChatMessage> received_by_server(const std::function<void(const std::string&)>& ask,
                                                 llm::FakeServer& server) {
  ask(server.base_url());
  std::vector<llm::FakeRequest> requests = server.requests();
  EXPECT_FALSE(requests.empty());
  return requests.empty() ? std::vector<llm::ChatMessage>{} : requests.back().messages;
}

class PromptIdentity : public ::testing::TestWithParam<int> {};

TEST_P(PromptIdentity, ExportEvaluationAndSearchSendTheSameMessages) {
  const dataset::StepRecord r = record(GetParam());
  const std::string line =
      dataset::chat_line(dataset::user_prompt(r, 1), dataset::assistant_single(r));
  nlohmann::json exported = nlohmann::json::parse(line);
  const std::vector<llm::ChatMessage> from_export = {{"system", exported["messages"][0]["content"]},
                                                     {"user", exported["messages"][1]["content"]}};

  llm::FakeServer server([](const llm::FakeRequest&) { return llm::FakeReply::text("no"); });
  ASSERT_TRUE(server.start().ok());
  llm::ClientOptions client;
  client.model = "m";
  client.max_retries = 0;

  auto from_eval = received_by_server(
      [&](const std::string& url) {
        client.base_url = url;
        auto questions = llm::read_eval_questions(line, llm::registered_strategy_names());
        ASSERT_TRUE(questions.ok()) << questions.error().render();
        auto c = llm::ChatClient::create(client);
        ASSERT_TRUE(c.ok());
        llm::EvalOptions o;
        o.known = llm::registered_strategy_names();
        ASSERT_TRUE(llm::evaluate_single_step(**c, *questions, o).ok());
      },
      server);

  auto from_search = received_by_server(
      [&](const std::string& url) {
        client.base_url = url;
        auto c = llm::ChatClient::create(client);
        ASSERT_TRUE(c.ok());
        ChatAnswerSource source(std::move(c).value(), {});
        LlmPolicy policy(source, "Toy");
        auto program = leir::parse_program(std::string(kDecls) + kBody);
        ASSERT_TRUE(program.ok());
        std::vector<std::string> trace(GetParam(), "dead_code_elimination(block=1)");
        std::vector<std::string> failures;
        std::set<std::string> tried;
        PolicyRequest request{*program, *program, trace, GetParam(), 1.0,
                              tried,    failures, 1,     "beam"};
        policy.propose(request);
      },
      server);

  ASSERT_EQ(from_eval.size(), 2u);
  ASSERT_EQ(from_search.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(from_export[i].role, from_eval[i].role);
    EXPECT_EQ(from_export[i].content, from_eval[i].content);
    EXPECT_EQ(from_export[i].role, from_search[i].role);
    EXPECT_EQ(from_export[i].content, from_search[i].content);
  }
  EXPECT_EQ(from_export[1].content.find("inject_dead_code"), std::string::npos);
  EXPECT_EQ(from_export[1].content.find("Steps applied so far") != std::string::npos,
            GetParam() > 0);
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutHistory, PromptIdentity, ::testing::Values(0, 2));

TEST(PromptRoundTrip, TheUserMessageReadsBack) {
  prompt::PromptInput in{"Toy", kDecls, kBody, {"loop_split(block=0, loop=a, factor=2)"}, 3};
  auto back = prompt::parse_user_message(prompt::user_message(in));
  ASSERT_TRUE(back.ok()) << back.error().render();
  EXPECT_EQ(back->task, in.task);
  EXPECT_EQ(back->declarations, in.declarations);
  EXPECT_EQ(back->program, in.program);
  EXPECT_EQ(back->history, in.history);
  EXPECT_EQ(back->num_answers, 3);
  EXPECT_FALSE(prompt::parse_user_message("Model: X\nsomething else").ok());
}

}  // namespace
}  // namespace steptp::search
