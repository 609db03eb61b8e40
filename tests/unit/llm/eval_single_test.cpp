// Single-step evaluation: reading questions (records that share a prompt are one question),
// scoring answers stage by stage (parsed, legal step, verified equivalent, matched), and whole
// runs against the fake server (oracle 100%, garbage 0%, a dead endpoint an error).
#include "llm/eval_single.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "codegen/c_engine.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "llm/fake_server.h"
#include "llm/registered_names.h"
#include "strategy/registry.h"

namespace steptp::llm {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kDataPath = std::string(STEPTP_SOURCE_DIR) + "/tests/data/llm/single_step.jsonl";

std::vector<EvalQuestion> load_questions() {
  auto r = read_eval_questions(read_text(kDataPath), registered_strategy_names(), kDataPath);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().render());
  return r.ok() ? std::move(r).value() : std::vector<EvalQuestion>{};
}

EvalOptions options() {
  EvalOptions o;
  o.known = registered_strategy_names();
  o.verify.num_seeds = 2;
  return o;
}

std::string user_text(const std::vector<ChatMessage>& messages) {
  for (const ChatMessage& m : messages)
    if (m.role == "user") return m.content;
  return "";
}

ClientOptions client_options(const FakeServer& s) {
  ClientOptions o;
  o.base_url = s.base_url();
  o.model = "fake";
  o.concurrency = 3;
  o.max_retries = 0;
  return o;
}

std::string answer(const std::string& strategy, const std::string& ir) {
  nlohmann::json a = {{"applied_strategy", strategy}, {"transformed_IR", ir}};
  return "<answer>" + a.dump() + "</answer>";
}

TEST(EvalQuestions, ReadsTheTestDataset) {
  std::vector<EvalQuestion> qs = load_questions();
  ASSERT_EQ(qs.size(), 5u);
  EXPECT_EQ(qs[0].id, "matmul-reorder");
  ASSERT_EQ(qs[0].prompt.size(), 2u);  // system + user; the assistant is the reference
  EXPECT_EQ(qs[0].prompt[0].role, "system");
  ASSERT_EQ(qs[0].references.size(), 1u);
  EXPECT_EQ(qs[0].references[0].strategy, "loop_reorder");
  EXPECT_EQ(qs[0].asked, 1);
  EXPECT_EQ(qs[4].asked, 2);  // its reference answer is a list of two
  ASSERT_EQ(qs[4].references.size(), 2u);
}

TEST(EvalQuestions, RecordsWithTheSamePromptAreOneQuestionWithEveryReference) {
  std::string text = read_text(kDataPath);
  std::string first = text.substr(0, text.find('\n') + 1);
  // The same prompt again with another legal answer (a loop split of the same program).
  nlohmann::json j = nlohmann::json::parse(first);
  auto original = leir::parse_program(j["original_program"].get<std::string>());
  ASSERT_TRUE(original.ok());
  const strategy::Strategy* split = strategy::find_strategy("loop_split");
  auto sites = strategy::feasible_sites(*split, *original);
  ASSERT_FALSE(sites.empty());
  auto after = split->apply(*original, sites.front());
  ASSERT_TRUE(after.ok());
  j["messages"].back()["content"] = answer("loop_split", leir::print_body(after->blocks));
  auto qs = read_eval_questions(first + j.dump() + "\n", registered_strategy_names());
  ASSERT_TRUE(qs.ok()) << qs.error().render();
  ASSERT_EQ(qs->size(), 1u);
  EXPECT_EQ((*qs)[0].records, 2);
  EXPECT_EQ((*qs)[0].references.size(), 2u);
  // Either reference answer is right.
  for (const std::string& ref : (*qs)[0].reference_answers)
    EXPECT_TRUE(score_answer((*qs)[0], ref, options()).correct);
}

TEST(EvalQuestions, RejectsBadRecordsNamingTheLine) {
  const StrategyNames known = registered_strategy_names();
  const std::string ok_messages = R"("messages":[{"role":"user","content":"q"}])";
  const std::string prog =
      R"("original_program":"input A f64[2]\noutput C f64[2]\nB^{2}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];")";
  for (const std::string& bad : {
           std::string("not json"),
           "{" + prog + "}",         // no messages
           "{" + ok_messages + "}",  // a prompt that is not steptp's, and no original_program
           "{" + ok_messages + R"(,"original_program":"B^{2}_{tx=0}[")" + "}",
           R"({"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"junk"}],)" +
               prog + "}",  // unreadable reference
           R"({"messages":[{"role":"assistant","content":"a"}],)" + prog + "}",  // no user
       }) {
    auto r = read_eval_questions("\n" + bad + "\n", known, "d.jsonl");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().category, "bad_record");
    EXPECT_NE(r.error().message.find("d.jsonl:2"), std::string::npos) << r.error().message;
  }
}

TEST(ScoreAnswer, ReferenceAnswersAreCorrect) {
  for (const EvalQuestion& q : load_questions()) {
    QuestionOutcome o = score_answer(q, q.reference_answers.front(), options());
    EXPECT_TRUE(o.correct) << q.id << ": " << o.failure << " " << o.detail;
    EXPECT_TRUE(o.parsed && o.legal && o.equivalent && o.matched) << q.id;
  }
}

TEST(ScoreAnswer, EachStageFailsWithItsReason) {
  std::vector<EvalQuestion> qs = load_questions();
  const EvalQuestion& relu = qs[2];  // relu-split
  QuestionOutcome o = score_answer(relu, "no idea", options());
  EXPECT_EQ(o.failure, "no_answer_block");
  EXPECT_FALSE(o.parsed);

  o = score_answer(relu, answer("loop_split", "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}="),
                   options());
  EXPECT_EQ(o.failure, "leir_parse_error");
  EXPECT_TRUE(o.parsed);
  EXPECT_FALSE(o.legal);

  o = score_answer(
      relu,
      answer("loop_split", "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},1);];"),
      options());
  EXPECT_EQ(o.failure, "illegal_step");
  EXPECT_FALSE(o.legal);
  EXPECT_FALSE(o.equivalent);

  o = score_answer(relu, answer("loop_split", leir::print_body(relu.original.blocks)), options());
  EXPECT_EQ(o.failure, "unchanged");

  // The reference program under another strategy's name is not a step of that strategy.
  const std::string reference_ir = leir::print_body(relu.references[0].program.blocks);
  o = score_answer(relu, answer("loop_tiling", reference_ir), options());
  EXPECT_EQ(o.failure, "illegal_step");
  EXPECT_TRUE(o.equivalent);
  EXPECT_FALSE(o.matched);

  // A legal, equivalent step that is not a reference answer.
  const strategy::Strategy* split = strategy::find_strategy("loop_split");
  for (const strategy::Site& site : strategy::feasible_sites(*split, relu.original)) {
    auto after = split->apply(relu.original, site);
    ASSERT_TRUE(after.ok());
    if (*after == relu.references[0].program) continue;
    o = score_answer(relu, answer("loop_split", leir::print_body(after->blocks)), options());
    EXPECT_EQ(o.failure, "no_match") << site.to_string();
    EXPECT_TRUE(o.legal && o.equivalent);
    EXPECT_EQ(o.candidates.at(0).step, site.to_string());
    break;
  }
}

// A question at default shapes (here a ReLU of 2^23 elements, past the interpreter's work
// limit) is verified on the compiled engine, the original included: the interpreter is never
// asked, and a wrong answer is still caught.
TEST(ScoreAnswer, AQuestionTooLargeForTheInterpreterIsVerifiedOnTheCompiledEngine) {
  auto big = leir::parse_program(
      "input A f64[2048,4096]\noutput C f64[2048,4096]\n"
      "B^{2048}_{tx=0}L^{4096}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];\n");
  ASSERT_TRUE(big.ok()) << big.error().render();
  EvalQuestion q;
  q.id = "big-relu";
  q.original = *big;
  const strategy::Strategy* split = strategy::find_strategy("loop_split");
  std::vector<strategy::Site> sites = strategy::feasible_sites(*split, q.original);
  ASSERT_FALSE(sites.empty());
  auto after = split->apply(q.original, sites.front());
  ASSERT_TRUE(after.ok());
  int compiled_runs = 0;
  EvalOptions o = options();
  o.require_match = false;
  o.verify.compiled = [&](const leir::Program& p, const std::vector<leir::TensorData>& in) {
    ++compiled_runs;
    return codegen::run_compiled(p, in);
  };
  QuestionOutcome good = score_answer(q, answer("loop_split", leir::print_body(after->blocks)), o);
  EXPECT_TRUE(good.legal && good.equivalent) << good.failure << " " << good.detail;
  EXPECT_EQ(compiled_runs, 4);  // original and answer on 2 seeds

  std::string wrong = leir::print_body(after->blocks);
  wrong.replace(wrong.find(",0)"), 3, ",1)");
  QuestionOutcome bad = score_answer(q, answer("loop_split", wrong), o);
  EXPECT_FALSE(bad.equivalent);

  // A small question stays on the interpreter.
  compiled_runs = 0;
  const EvalQuestion relu = load_questions().at(2);
  EXPECT_TRUE(score_answer(relu, relu.reference_answers.front(), o).correct);
  EXPECT_EQ(compiled_runs, 0);
}

TEST(ScoreAnswer, AMultiAnswerQuestionNeedsEnoughMatchingCandidatesInAnyOrder) {
  const std::vector<EvalQuestion> qs = load_questions();
  const EvalQuestion& multi = qs[4];
  nlohmann::json list = nlohmann::json::array();
  for (auto it = multi.references.rbegin(); it != multi.references.rend(); ++it)
    list.push_back({{"applied_strategy", it->strategy},
                    {"transformed_IR", leir::print_body(it->program.blocks)}});
  QuestionOutcome o = score_answer(multi, "<answer>" + list.dump() + "</answer>", options());
  EXPECT_TRUE(o.correct) << o.failure << " " << o.detail;
  list.erase(1);
  o = score_answer(multi, "<answer>" + list.dump() + "</answer>", options());
  EXPECT_EQ(o.failure, "too_few");
  EXPECT_FALSE(o.correct);
}

TEST(EvalSingle, OracleServerAnswersEveryQuestionCorrectly) {
  std::vector<EvalQuestion> qs = load_questions();
  std::map<std::string, std::string> oracle;
  for (const EvalQuestion& q : qs) oracle[user_text(q.prompt)] = q.reference_answers.front();
  FakeServer server([&](const FakeRequest& req) {
    auto it = oracle.find(user_text(req.messages));
    return it == oracle.end() ? FakeReply::http_error(404) : FakeReply::text(it->second);
  });
  ASSERT_TRUE(server.start().ok());
  auto client = ChatClient::create(client_options(server));
  ASSERT_TRUE(client.ok());
  std::vector<size_t> progress;
  auto report = evaluate_single_step(**client, qs, options(),
                                     [&](size_t d, size_t, int64_t) { progress.push_back(d); });
  ASSERT_TRUE(report.ok()) << report.error().render();
  nlohmann::json j = report->to_json(true);
  EXPECT_EQ(j["questions"], 5);
  EXPECT_EQ(j["correct"], 5);
  EXPECT_DOUBLE_EQ(j["accuracy"].get<double>(), 1.0);
  EXPECT_EQ(j["per_question"].size(), 5u);
  EXPECT_EQ(report->per_strategy.at("loop_split").matched, 2);
  EXPECT_EQ(report->usage.calls, 5);
  EXPECT_EQ(progress.size(), 5u);
  // The system message of a record is forwarded; records without one get none added.
  int with_system = 0;
  for (const FakeRequest& r : server.requests()) with_system += r.messages.front().role == "system";
  EXPECT_EQ(with_system, 1);
}

TEST(EvalSingle, GarbageAnswersAreCountedNotErrors) {
  FakeServer server([](const FakeRequest& req) {
    return FakeReply::text(req.index % 2 ? "<answer>{\"nope\": 1}</answer>" : "lorem ipsum");
  });
  ASSERT_TRUE(server.start().ok());
  auto client = ChatClient::create(client_options(server));
  ASSERT_TRUE(client.ok());
  auto report = evaluate_single_step(**client, load_questions(), options());
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->overall.total, 5);
  EXPECT_EQ(report->overall.parsed, 0);
  EXPECT_EQ(report->overall.correct, 0);
  int64_t failures = 0;
  for (const auto& [reason, n] : report->failures_by_reason) {
    EXPECT_TRUE(reason == "no_answer_block" || reason == "missing_key") << reason;
    failures += n;
  }
  EXPECT_EQ(failures, 5);
}

TEST(EvalSingle, AServerErrorEndsTheRunWithAnErrorNamingTheEndpoint) {
  FakeServer server([](const FakeRequest&) { return FakeReply::http_error(500); });
  ASSERT_TRUE(server.start().ok());
  ClientOptions o = client_options(server);
  o.max_retries = 1;
  o.backoff_initial_s = 0.01;
  auto client = ChatClient::create(o);
  ASSERT_TRUE(client.ok());
  auto report = evaluate_single_step(**client, load_questions(), options());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().category, "llm_http");
  EXPECT_NE(report.error().message.find(server.base_url()), std::string::npos)
      << report.error().message;
}

}  // namespace
}  // namespace steptp::llm
