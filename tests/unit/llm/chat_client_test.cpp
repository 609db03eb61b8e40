// Tests of ChatClient against the scripted FakeServer: success, retries on 429/5xx, timeouts,
// malformed and huge bodies, empty choices, concurrency bounds and usage accounting.
#include "llm/chat_client.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "llm/fake_server.h"

namespace steptp::llm {
namespace {

using std::chrono::milliseconds;

ClientOptions fast_options(const FakeServer& server) {
  ClientOptions o;
  o.base_url = server.base_url();
  o.model = "test-model";
  o.backoff_initial_s = 0.001;  // retries are tested for their count, not their wait
  o.backoff_max_s = 0.002;
  o.read_timeout_s = 5;
  o.connect_timeout_s = 5;
  o.max_retries = 2;
  return o;
}

std::unique_ptr<ChatClient> make_client(ClientOptions o) {
  auto c = ChatClient::create(std::move(o));
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().render());
  return std::move(c).value();
}

const std::vector<ChatMessage> kHello = {{"system", "be brief"}, {"user", "hi"}};

TEST(ChatClient, ReturnsContentAndCountsTokens) {
  auto server = FakeServer::scripted({FakeReply::completion({"hello there"}, 7, 3)});
  ASSERT_TRUE(server->start().ok());
  auto client = make_client(fast_options(*server));
  auto r = client->complete(kHello, {});
  ASSERT_TRUE(r.ok()) << r.error().render();
  ASSERT_EQ(r->choices.size(), 1u);
  EXPECT_EQ(r->choices[0].content, "hello there");
  EXPECT_EQ(r->choices[0].finish_reason, "stop");
  EXPECT_EQ(r->prompt_tokens, 7);
  EXPECT_EQ(r->completion_tokens, 3);
  Usage u = client->usage();
  EXPECT_EQ(u.calls, 1);
  EXPECT_EQ(u.requests, 1);
  EXPECT_EQ(u.retries, 0);
  EXPECT_EQ(u.prompt_tokens, 7);
  EXPECT_EQ(u.completion_tokens, 3);
}

TEST(ChatClient, SendsModelMessagesAndSamplingParameters) {
  auto server = FakeServer::scripted({FakeReply::completion({"a", "b", "c"})});
  ASSERT_TRUE(server->start().ok());
  ClientOptions o = fast_options(*server);
  o.api_key = "sk-secret";
  auto client = make_client(o);
  SamplingParams p;
  p.n = 3;
  p.temperature = 0.7;
  p.max_tokens = 123;
  auto r = client->complete(kHello, p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->choices.size(), 3u);
  auto reqs = server->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].authorization, "Bearer sk-secret");
  EXPECT_EQ(reqs[0].body["model"], "test-model");
  EXPECT_EQ(reqs[0].body["n"], 3);
  EXPECT_EQ(reqs[0].body["max_tokens"], 123);
  EXPECT_DOUBLE_EQ(reqs[0].body["temperature"].get<double>(), 0.7);
  ASSERT_EQ(reqs[0].messages.size(), 2u);
  EXPECT_EQ(reqs[0].messages[0].role, "system");
  EXPECT_EQ(reqs[0].messages[1].content, "hi");
}

TEST(ChatClient, BaseUrlWithoutV1AndFullPathBothReachTheEndpoint) {
  auto server = FakeServer::scripted({FakeReply::text("x"), FakeReply::text("y")});
  ASSERT_TRUE(server->start().ok());
  for (const std::string& url :
       {fmt::format("http://127.0.0.1:{}", server->port()),
        fmt::format("http://127.0.0.1:{}/v1/chat/completions/", server->port())}) {
    ClientOptions o = fast_options(*server);
    o.base_url = url;
    auto client = make_client(o);
    EXPECT_TRUE(client->complete(kHello).ok()) << url;
  }
  for (const FakeRequest& r : server->requests()) EXPECT_EQ(r.path, "/v1/chat/completions");
}

TEST(ChatClient, RetriesServerErrorsAndRateLimitsThenSucceeds) {
  auto server = FakeServer::scripted(
      {FakeReply::http_error(500), FakeReply::http_error(429), FakeReply::text("finally")});
  ASSERT_TRUE(server->start().ok());
  auto client = make_client(fast_options(*server));
  auto r = client->complete(kHello);
  ASSERT_TRUE(r.ok()) << r.error().render();
  EXPECT_EQ(r->choices[0].content, "finally");
  EXPECT_EQ(r->attempts, 3);
  Usage u = client->usage();
  EXPECT_EQ(u.requests, 3);
  EXPECT_EQ(u.retries, 2);
  EXPECT_EQ(u.succeeded, 1);
  EXPECT_EQ(u.failed, 0);
  EXPECT_EQ(u.retries_by_reason.at("llm_http"), 2);
}

TEST(ChatClient, GivesUpAfterMaxRetriesWithHttpError) {
  auto server = FakeServer::scripted({FakeReply::http_error(503), FakeReply::http_error(503),
                                      FakeReply::http_error(503), FakeReply::text("too late")});
  ASSERT_TRUE(server->start().ok());
  auto client = make_client(fast_options(*server));  // max_retries = 2 → 3 attempts
  auto r = client->complete(kHello);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_http");
  EXPECT_NE(r.error().message.find("503"), std::string::npos);
  EXPECT_EQ(server->requests_seen(), 3);
  Usage u = client->usage();
  EXPECT_EQ(u.failed, 1);
  EXPECT_EQ(u.failures_by_reason.at("llm_http"), 1);
}

TEST(ChatClient, DoesNotRetryClientErrors) {
  auto server = FakeServer::scripted({FakeReply::http_error(400), FakeReply::text("unused")});
  ASSERT_TRUE(server->start().ok());
  auto client = make_client(fast_options(*server));
  auto r = client->complete(kHello);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_http");
  EXPECT_EQ(server->requests_seen(), 1);
}

TEST(ChatClient, SlowResponseIsATimeoutAndIsRetried) {
  auto server = FakeServer::scripted(
      {FakeReply::text("slow").after(milliseconds(3000)), FakeReply::text("quick")});
  ASSERT_TRUE(server->start().ok());
  ClientOptions o = fast_options(*server);
  o.read_timeout_s = 0.2;
  auto client = make_client(o);
  auto r = client->complete(kHello);
  ASSERT_TRUE(r.ok()) << r.error().render();
  EXPECT_EQ(r->choices[0].content, "quick");
  Usage u = client->usage();
  EXPECT_EQ(u.retries_by_reason.at("llm_timeout"), 1);
}

TEST(ChatClient, TimeoutOnEveryAttemptFailsWithLlmTimeout) {
  auto server = FakeServer::scripted({FakeReply::text("a").after(milliseconds(3000)),
                                      FakeReply::text("b").after(milliseconds(3000))});
  ASSERT_TRUE(server->start().ok());
  ClientOptions o = fast_options(*server);
  o.read_timeout_s = 0.2;
  o.max_retries = 1;
  auto client = make_client(o);
  auto r = client->complete(kHello);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_timeout");
  EXPECT_EQ(client->usage().failures_by_reason.at("llm_timeout"), 1);
}

TEST(ChatClient, MalformedBodiesAreTypedBadResponses) {
  const std::vector<std::string> bodies = {
      "not json at all",
      "{\"choices\": [",
      "[]",
      "{\"choices\": []}",
      "{\"choices\": {}}",
      "{\"choices\": [42]}",
      "{\"choices\": [{\"text\": \"legacy\"}]}",
      "{\"choices\": [{\"message\": {\"content\": 17}}]}",
      std::string(100000, '[') + std::string(100000, ']'),
      "",
  };
  for (const std::string& body : bodies) {
    auto server = FakeServer::scripted({FakeReply::raw(body)});
    ASSERT_TRUE(server->start().ok());
    auto client = make_client(fast_options(*server));
    auto r = client->complete(kHello);
    ASSERT_FALSE(r.ok()) << body.substr(0, 40);
    EXPECT_EQ(r.error().category, "llm_bad_response") << body.substr(0, 40);
    EXPECT_EQ(server->requests_seen(), 1) << "bad bodies are not retried";
  }
}

TEST(ChatClient, NullContentIsAnEmptyString) {
  auto server = FakeServer::scripted({FakeReply::raw(
      R"({"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"hm"}}]})")});
  ASSERT_TRUE(server->start().ok());
  auto client = make_client(fast_options(*server));
  auto r = client->complete(kHello);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->choices[0].content, "");
  EXPECT_EQ(r->choices[0].reasoning_content, "hm");
}

TEST(ChatClient, HugeBodyIsCutOffAtTheLimit) {
  std::string huge = FakeReply::text(std::string(4u << 20, 'x')).body;
  auto server = FakeServer::scripted({FakeReply::raw(huge)});
  ASSERT_TRUE(server->start().ok());
  ClientOptions o = fast_options(*server);
  o.max_response_bytes = 1u << 20;
  auto client = make_client(o);
  auto r = client->complete(kHello);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_too_large");
}

TEST(ChatClient, ConnectionRefusedIsATypedConnectionError) {
  int port = 0;
  {
    auto server = FakeServer::scripted({});
    ASSERT_TRUE(server->start().ok());
    port = server->port();
  }  // stopped: nothing listens there now
  ClientOptions o;
  o.base_url = fmt::format("http://127.0.0.1:{}", port);
  o.model = "m";
  o.max_retries = 1;
  o.backoff_initial_s = 0.001;
  auto client = make_client(o);
  auto r = client->complete(kHello);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_connection");
  EXPECT_EQ(client->usage().requests, 2);
}

TEST(ChatClient, BatchKeepsOrderAndNeverExceedsConcurrency) {
  auto server = std::make_unique<FakeServer>([](const FakeRequest& r) {
    return FakeReply::text("echo:" + (r.messages.empty() ? "" : r.messages.back().content));
  });
  server->hold_until_in_flight(3, milliseconds(5000));
  ASSERT_TRUE(server->start().ok());
  ClientOptions o = fast_options(*server);
  o.concurrency = 3;
  auto client = make_client(o);
  std::vector<std::vector<ChatMessage>> convs;
  for (int i = 0; i < 12; ++i) convs.push_back({{"user", std::to_string(i)}});
  std::atomic<int> done{0};
  auto results =
      client->complete_batch(convs, {}, [&](size_t, const Result<Completion>&) { ++done; });
  ASSERT_EQ(results.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(results[i].ok());
    EXPECT_EQ(results[i]->choices[0].content, "echo:" + std::to_string(i));
  }
  EXPECT_EQ(done.load(), 12);
  EXPECT_EQ(server->max_in_flight(), 3);  // reached (the hold waits for 3) and never exceeded
  EXPECT_EQ(client->usage().calls, 12);
  EXPECT_EQ(client->usage().prompt_tokens, 12 * 10);
}

TEST(ChatClient, RejectsBadConfiguration) {
  for (std::string url :
       {"localhost:8000", "ftp://h/v1", "http://", "http://h:99999", "http://user:pw@h:80"}) {
    ClientOptions o;
    o.base_url = url;
    o.model = "m";
    auto c = ChatClient::create(o);
    ASSERT_FALSE(c.ok()) << url;
    EXPECT_EQ(c.error().category, "llm_config");
  }
  ClientOptions o;
  o.base_url = "http://127.0.0.1:1";
  auto c = ChatClient::create(o);  // no model
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().category, "llm_config");
}

TEST(ChatClient, ErrorMessagesNeverContainTheApiKey) {
  auto server = FakeServer::scripted({FakeReply::http_error(401, "{\"error\":\"bad key\"}")});
  ASSERT_TRUE(server->start().ok());
  ClientOptions o = fast_options(*server);
  o.api_key = "sk-do-not-print-me";
  auto client = make_client(o);
  auto r = client->complete(kHello);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().render().find("sk-do-not-print-me"), std::string::npos);
  EXPECT_EQ(client->endpoint().find("sk-do"), std::string::npos);
}

TEST(ChatClient, ApiKeyComesFromStepTpVariableFirst) {
  ::setenv("OPENAI_API_KEY", "openai-key", 1);
  ::unsetenv("STEPTP_API_KEY");
  EXPECT_EQ(api_key_from_environment(), "openai-key");
  ::setenv("STEPTP_API_KEY", "steptp-key", 1);
  EXPECT_EQ(api_key_from_environment(), "steptp-key");
  ::unsetenv("STEPTP_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
  EXPECT_EQ(api_key_from_environment(), "");
}

}  // namespace
}  // namespace steptp::llm

namespace steptp::llm {
namespace {

TEST(ChatClientEndpoint, AServedModelPassesAndAnUnknownOneIsNamed) {
  FakeServer server([](const FakeRequest&) { return FakeReply::text("ok"); });
  ASSERT_TRUE(server.start().ok());
  ClientOptions o;
  o.base_url = server.base_url();
  o.model = "fake";
  EXPECT_TRUE((*ChatClient::create(o))->check_endpoint().ok());
  o.model = "gpt-9";
  Result<void> r = (*ChatClient::create(o))->check_endpoint();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_unknown_model");
  EXPECT_NE(r.error().message.find("it serves: fake"), std::string::npos) << r.error().message;
}

TEST(ChatClientEndpoint, NothingListeningFailsWithinSecondsAfterBoundedRetries) {
  ClientOptions o;
  o.base_url = "http://127.0.0.1:1";
  o.model = "m";
  o.max_retries = 2;
  o.backoff_initial_s = 0.05;
  auto start = std::chrono::steady_clock::now();
  Result<void> r = (*ChatClient::create(o))->check_endpoint();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_connection");
  EXPECT_NE(r.error().message.find("after 3 attempts"), std::string::npos) << r.error().message;
  EXPECT_TRUE(is_endpoint_failure(r.error()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(ChatClientTranscript, OneLinePerRequestWithTokenCounts) {
  const std::string path = ::testing::TempDir() + "/steptp_transcript.jsonl";
  FakeServer server([](const FakeRequest& req) {
    if (req.index == 1) return FakeReply::http_error(503);
    return FakeReply::completion({"hi"}, 7, 3);
  });
  ASSERT_TRUE(server.start().ok());
  ClientOptions o;
  o.base_url = server.base_url();
  o.model = "fake";
  o.max_retries = 1;
  o.backoff_initial_s = 0.01;
  o.transcript = std::move(Transcript::open(path)).value();
  auto client = std::move(ChatClient::create(o)).value();
  ASSERT_TRUE(client->complete({{"user", "a"}}).ok());
  ASSERT_TRUE(client->complete({{"user", "b"}}).ok());  // 503, then a retry that succeeds
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["usage"]["prompt_tokens"], 7);
  EXPECT_EQ(lines[0]["usage"]["completion_tokens"], 3);
  EXPECT_EQ(lines[0]["request"]["messages"][0]["content"], "a");
  EXPECT_EQ(lines[1]["http_status"], 503);
  EXPECT_EQ(lines[1]["error"]["retried"], true);
  EXPECT_EQ(lines[2]["attempt"], 2);
  EXPECT_GE(lines[2]["latency_s"].get<double>(), 0.0);
}

TEST(ChatClientCancel, CallsAfterCancelFailAtOnce) {
  FakeServer server([](const FakeRequest&) { return FakeReply::text("ok"); });
  ASSERT_TRUE(server.start().ok());
  ClientOptions o;
  o.base_url = server.base_url();
  o.model = "fake";
  auto client = std::move(ChatClient::create(o)).value();
  client->cancel();
  auto r = client->complete({{"user", "a"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "llm_cancelled");
  EXPECT_EQ(server.requests_seen(), 0);
}

}  // namespace
}  // namespace steptp::llm
