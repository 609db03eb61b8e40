// llm/fake_server.h — an OpenAI-compatible /v1/chat/completions server on 127.0.0.1 (ephemeral
// port, httplib in its own thread) that answers from a script: for tests and offline dev runs.
//
// A reply can be a normal completion, a malformed body, an HTTP error, a slow answer (longer
// than a client's timeout; cancelled by stop()) or a huge body. It records what it was asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/chat_client.h"
#include "support/error.h"

namespace steptp::llm {

struct FakeReply {
  int status = 200;
  std::string body;  // sent verbatim
  std::map<std::string, std::string> headers;
  std::chrono::milliseconds delay{0};  // wait before answering (cut short by stop())

  // A well-formed completion with one choice per text; usage counts are given explicitly so
  // tests can check the client's accounting.
  static FakeReply completion(const std::vector<std::string>& texts, int64_t prompt_tokens = 10,
                              int64_t completion_tokens = 20);
  static FakeReply text(const std::string& content) { return completion({content}); }
  static FakeReply http_error(int status, std::string body = "{\"error\":\"scripted\"}");
  static FakeReply raw(std::string body, int status = 200);
  FakeReply&& after(std::chrono::milliseconds d) && {
    delay = d;
    return std::move(*this);
  }
};

struct FakeRequest {
  std::string path;
  std::string authorization;          // the Authorization header as received
  nlohmann::json body;                // null when the body was not JSON
  std::vector<ChatMessage> messages;  // from body.messages when well-formed
  int index = 0;                      // 0-based arrival order
};

class FakeServer {
 public:
  using Responder = std::function<FakeReply(const FakeRequest&)>;

  explicit FakeServer(Responder responder);
  // Replays `replies` in order; once they run out it answers HTTP 500 "script exhausted".
  static std::unique_ptr<FakeServer> scripted(std::vector<FakeReply> replies);
  ~FakeServer();  // stops
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  // Binds 127.0.0.1 on an ephemeral port and serves on a thread; "llm_fake_server" on failure.
  Result<void> start(const std::string& host = "127.0.0.1", int port = 0);
  void stop();
  // Serves in the calling thread until stop() (for a `steptp fake-llm` process).
  Result<void> serve_forever(const std::string& host, int port);

  int port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:PORT/v1"

  // Requests whose handler waits (before its reply) until `n` handlers are waiting at once, or
  // until `timeout` — lets a test observe how many requests a client keeps in flight.
  void hold_until_in_flight(int n, std::chrono::milliseconds timeout);

  int64_t requests_seen() const;
  int max_in_flight() const;
  std::vector<FakeRequest> requests() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// The standard OpenAI completion JSON for `texts` (exposed so tests can build expected bodies).
std::string completion_body(const std::vector<std::string>& texts, int64_t prompt_tokens,
                            int64_t completion_tokens);

}  // namespace steptp::llm
