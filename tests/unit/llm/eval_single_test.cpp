// Tests of single-step evaluation: reading records, scoring answers, and whole runs against the
// fake server (oracle → 100%, garbage → 0%, a scripted mix → exact counts by reason).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "llm/eval_single.h"
#include "llm/fake_server.h"
#include "llm/prompts.h"

namespace steptp::llm {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kDataPath = std::string(STEPTP_SOURCE_DIR) + "/tests/data/llm/single_step.jsonl";

std::vector<EvalRecord> load_records() {
  auto r = parse_eval_records(read_text(kDataPath), registered_strategy_names(), kDataPath);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().render());
  return r.ok() ? std::move(r).value() : std::vector<EvalRecord>{};
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

TEST(EvalRecords, ReadsTheTestDataset) {
  std::vector<EvalRecord> records = load_records();
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[0].id, "matmul-reorder");
  ASSERT_EQ(records[0].prompt.size(), 2u);  // system + user; the assistant is the reference
  EXPECT_EQ(records[0].prompt[0].role, "system");
  EXPECT_EQ(records[0].expected_strategies, std::vector<std::string>{"loop_reorder"});
  EXPECT_FALSE(records[0].multi);
  EXPECT_EQ(records[1].expected_strategies, std::vector<std::string>{"online_softmax"});
  EXPECT_TRUE(records[4].multi);
  EXPECT_EQ(records[4].expected_strategies,
            (std::vector<std::string>{"loop_reorder", "loop_split"}));
}

TEST(EvalRecords, RejectsBadRecordsNamingTheLine) {
  const StrategyNames known = registered_strategy_names();
  const std::string ok_messages = R"("messages":[{"role":"user","content":"q"}])";
  const std::string prog = R"("original_program":"input A f64[2]\noutput C f64[2]\nB^{2}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];")";
  for (std::string bad : {
           std::string("not json"),
           "{" + prog + ",\"expected_strategy\":\"loop_split\"}",                   // no messages
           "{" + ok_messages + ",\"expected_strategy\":\"loop_split\"}",            // no original
           "{" + ok_messages + "," + prog + "}",                                    // no expectation
           "{" + ok_messages + "," + prog + ",\"expected_strategy\":\"warp_magic\"}",
           "{" + ok_messages + R"(,"original_program":"B^{2}_{tx=0}[","expected_strategy":"loop_split"})",
           R"({"messages":[{"role":"assistant","content":"a"}],)" + prog +
               R"(,"expected_strategy":"loop_split"})",
       }) {
    auto r = parse_eval_records("\n" + bad + "\n", known, "d.jsonl");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().category, "bad_record");
    EXPECT_NE(r.error().message.find("d.jsonl:2"), std::string::npos) << r.error().message;
  }
}

TEST(ScoreAnswer, ReferenceAnswersPassEveryStage) {
  for (const EvalRecord& rec : load_records()) {
    RecordOutcome o = score_answer(rec, rec.reference_answer, options());
    EXPECT_TRUE(o.passed()) << rec.id << ": " << o.failure << " " << o.detail;
    EXPECT_TRUE(o.parsed && o.well_formed && o.equivalent && o.strategy_correct) << rec.id;
  }
}

TEST(ScoreAnswer, EachStageFailsWithItsReason) {
  std::vector<EvalRecord> records = load_records();
  const EvalRecord& relu = records[2];  // relu-split
  auto answer = [](std::string strategy, std::string ir) {
    return "<answer>{\"applied_strategy\":\"" + strategy + "\",\"transformed_IR\":\"" + ir +
           "\"}</answer>";
  };
  RecordOutcome o = score_answer(relu, "no idea", options());
  EXPECT_EQ(o.failure, "no_answer_block");
  EXPECT_FALSE(o.parsed);

  o = score_answer(relu, answer("loop_split", "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}="), options());
  EXPECT_EQ(o.failure, "parse_error");
  EXPECT_TRUE(o.parsed);
  EXPECT_FALSE(o.well_formed);

  o = score_answer(relu, answer("loop_split",
                                "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},1);];"),
                   options());
  EXPECT_EQ(o.failure, "mismatch");
  EXPECT_TRUE(o.well_formed);
  EXPECT_FALSE(o.equivalent);
  EXPECT_TRUE(o.strategy_correct);

  o = score_answer(relu, answer("loop_split",
                                "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];"),
                   options());
  EXPECT_EQ(o.failure, "unchanged");

  o = score_answer(relu, answer("loop_tiling",
                                "B^{16}_{tx=0}L^{8}_{g=0}L^{8}_{a=0}[C^{f64,g}_{tx,g*8+a}=max(A^{f64,g}_{tx,g*8+a},0);];"),
                   options());
  EXPECT_EQ(o.failure, "wrong_strategy");
  EXPECT_TRUE(o.equivalent);
  EXPECT_FALSE(o.strategy_correct);
}

TEST(ScoreAnswer, MultiAnswerRecordAcceptsAnyExpectedStrategyPerCandidate) {
  const std::vector<EvalRecord> records = load_records();
  const EvalRecord& multi = records[4];
  // The two reference candidates in the other order, as a JSON (not Python) list.
  auto parsed = parse_answer(multi.reference_answer, registered_strategy_names());
  ASSERT_TRUE(parsed.ok());
  nlohmann::json list = nlohmann::json::array();
  for (auto it = parsed->candidates.rbegin(); it != parsed->candidates.rend(); ++it)
    list.push_back({{"applied_strategy", it->applied_strategy}, {"transformed_IR", it->transformed_ir}});
  RecordOutcome o = score_answer(multi, "<answer>" + list.dump() + "</answer>", options());
  EXPECT_TRUE(o.passed()) << o.failure << " " << o.detail;
  EXPECT_EQ(o.named_strategies, (std::vector<std::string>{"loop_split", "loop_reorder"}));
  EXPECT_EQ(o.bucket, "(multi)");
}

TEST(EvalSingle, OracleServerScoresEveryRecord) {
  std::vector<EvalRecord> records = load_records();
  std::map<std::string, std::string> oracle;
  for (const EvalRecord& r : records) oracle[user_text(r.prompt)] = r.reference_answer;
  FakeServer server([&](const FakeRequest& req) {
    auto it = oracle.find(user_text(req.messages));
    return it == oracle.end() ? FakeReply::http_error(404) : FakeReply::text(it->second);
  });
  ASSERT_TRUE(server.start().ok());
  auto client = ChatClient::create(client_options(server));
  ASSERT_TRUE(client.ok());
  std::vector<std::pair<size_t, size_t>> progress;
  EvalReport report = evaluate_single_step(**client, records, options(),
                                           [&](size_t d, size_t t) { progress.push_back({d, t}); });
  EXPECT_EQ(report.overall.records, 5);
  EXPECT_EQ(report.overall.passed, 5);
  EXPECT_EQ(report.overall.equivalent, 5);
  EXPECT_TRUE(report.failures_by_reason.empty());
  EXPECT_EQ(report.per_strategy.at("loop_reorder").passed, 1);
  EXPECT_EQ(report.per_strategy.at("online_softmax").passed, 1);
  EXPECT_EQ(report.per_strategy.at("(multi)").passed, 1);
  EXPECT_EQ(report.usage.calls, 5);
  ASSERT_EQ(progress.size(), 5u);
  EXPECT_EQ(progress.back(), (std::pair<size_t, size_t>{5, 5}));
  EXPECT_DOUBLE_EQ(report.to_json(false)["overall"]["rates"]["passed"].get<double>(), 1.0);
  // The system message of a record is forwarded; records without one get none added.
  int with_system = 0;
  for (const FakeRequest& r : server.requests()) with_system += r.messages.front().role == "system";
  EXPECT_EQ(with_system, 1);
}

TEST(EvalSingle, GarbageServerScoresNothing) {
  FakeServer server([](const FakeRequest& req) {
    return FakeReply::text(req.index % 2 ? "<answer>{\"nope\": 1}</answer>" : "lorem ipsum");
  });
  ASSERT_TRUE(server.start().ok());
  auto client = ChatClient::create(client_options(server));
  ASSERT_TRUE(client.ok());
  EvalReport report = evaluate_single_step(**client, load_records(), options());
  EXPECT_EQ(report.overall.records, 5);
  EXPECT_EQ(report.overall.answered, 5);
  EXPECT_EQ(report.overall.parsed, 0);
  EXPECT_EQ(report.overall.passed, 0);
  int64_t failures = 0;
  for (const auto& [reason, n] : report.failures_by_reason) {
    EXPECT_TRUE(reason == "no_answer_block" || reason == "missing_key") << reason;
    failures += n;
  }
  EXPECT_EQ(failures, 5);
}

TEST(EvalSingle, MixedServerGivesExactCountsByReason) {
  std::vector<EvalRecord> records = load_records();
  // Per record (by id) what the server does.
  std::map<std::string, std::function<FakeReply(const EvalRecord&)>> script = {
      {"matmul-reorder", [](const EvalRecord& r) { return FakeReply::text(r.reference_answer); }},
      {"softmax-online", [](const EvalRecord&) { return FakeReply::http_error(400); }},
      {"relu-split",
       [](const EvalRecord&) {
         return FakeReply::text("<answer>{\"applied_strategy\":\"loop_split\",\"transformed_IR\":"
                                "\"B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},1);];\"}</answer>");
       }},
      {"relu-unroll",
       [](const EvalRecord& r) {
         std::string a = r.reference_answer;
         a.replace(a.find("loop_unrolling"), 14, "loop_vectorization");
         return FakeReply::text(a);
       }},
      {"matmul-multi", [](const EvalRecord&) { return FakeReply::raw("{\"choices\": [}"); }},
  };
  std::map<std::string, const EvalRecord*> by_user;
  for (const EvalRecord& r : records) by_user[user_text(r.prompt)] = &r;
  FakeServer server([&](const FakeRequest& req) {
    const EvalRecord* r = by_user.at(user_text(req.messages));
    return script.at(r->id)(*r);
  });
  ASSERT_TRUE(server.start().ok());
  auto client = ChatClient::create(client_options(server));
  ASSERT_TRUE(client.ok());
  EvalReport report = evaluate_single_step(**client, records, options());
  EXPECT_EQ(report.overall.records, 5);
  EXPECT_EQ(report.overall.answered, 3);
  EXPECT_EQ(report.overall.parsed, 3);
  EXPECT_EQ(report.overall.well_formed, 3);
  EXPECT_EQ(report.overall.equivalent, 2);        // reorder and the renamed unroll
  EXPECT_EQ(report.overall.strategy_correct, 2);  // reorder and the mismatching split
  EXPECT_EQ(report.overall.passed, 1);
  EXPECT_EQ(report.failures_by_reason,
            (std::map<std::string, int64_t>{{"llm_http", 1},
                                            {"mismatch", 1},
                                            {"wrong_strategy", 1},
                                            {"llm_bad_response", 1}}));
  EXPECT_EQ(report.records[1].failure, "llm_http");
  EXPECT_EQ(report.records[3].failure, "wrong_strategy");
  EXPECT_EQ(report.usage.failed, 2);
}

TEST(EvalSingle, LimitEvaluatesOnlyTheFirstRecords) {
  FakeServer server([](const FakeRequest&) { return FakeReply::text("x"); });
  ASSERT_TRUE(server.start().ok());
  auto client = ChatClient::create(client_options(server));
  ASSERT_TRUE(client.ok());
  EvalOptions o = options();
  o.limit = 2;
  o.default_system = "sys";
  EvalReport report = evaluate_single_step(**client, load_records(), o);
  EXPECT_EQ(report.overall.records, 2);
  EXPECT_EQ(server.requests_seen(), 2);
  for (const FakeRequest& r : server.requests()) EXPECT_EQ(r.messages.front().role, "system");
}

}  // namespace
}  // namespace steptp::llm
