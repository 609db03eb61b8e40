// llm/chat_client.h — a client for any OpenAI-compatible /v1/chat/completions server (vLLM,
// SGLang, llama.cpp, ollama, ms-swift deploy): timeouts, bounded retries with backoff, bounded
// concurrency, response-size caps and usage accounting.
//
// It knows nothing about LEIR or answers: it moves messages and text. Every failure is a typed
// Error ("llm_config", "llm_connection", "llm_timeout", "llm_http", "llm_bad_response",
// "llm_too_large"); nothing a server sends can crash it. The API key is never logged or rendered.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/error.h"

namespace steptp::llm {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct SamplingParams {
  int n = 1;                    // samples per request
  double temperature = 0.0;     // 0 = greedy on every server we target
  int max_tokens = 8192;
  std::optional<double> top_p;
  std::optional<int64_t> seed;  // forwarded when set; servers may ignore it
};

struct ClientOptions {
  // "http://host:port", "http://host:port/v1" or a full ".../chat/completions" URL; https works
  // because the system cpp-httplib is built with OpenSSL.
  std::string base_url;
  std::string model;
  std::string api_key;                // empty: no Authorization header
  double connect_timeout_s = 10.0;
  double read_timeout_s = 600.0;      // per attempt: generation of long CoTs is slow
  int max_retries = 3;                // extra attempts after the first, on 429/5xx/timeouts
  double backoff_initial_s = 1.0;     // doubled per retry ...
  double backoff_max_s = 30.0;        // ... up to this (also caps a server's Retry-After)
  int concurrency = 4;                // requests in flight at once, over all callers
  size_t max_response_bytes = 64u << 20;
};

// The key from STEPTP_API_KEY, else OPENAI_API_KEY, else empty.
std::string api_key_from_environment();

struct Choice {
  std::string content;            // may be empty (a null content)
  std::string reasoning_content;  // vLLM/SGLang reasoning parsers put the think text here
  std::string finish_reason;      // "stop", "length", ... ("" when absent)
};

struct Completion {
  std::vector<Choice> choices;   // at least one
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int attempts = 1;              // HTTP attempts this call took
};

struct Usage {
  int64_t calls = 0;              // complete() calls
  int64_t requests = 0;           // HTTP attempts (calls + retries)
  int64_t retries = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;             // calls that ended in an error
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::map<std::string, int64_t> failures_by_reason;  // final error category of failed calls
  std::map<std::string, int64_t> retries_by_reason;   // why an attempt was retried
  double seconds_in_requests = 0; // summed wall time of attempts (not of backoff waits)
};

class ChatClient {
 public:
  // Validates the options (URL scheme/host, model, limits): errors are "llm_config".
  static Result<std::unique_ptr<ChatClient>> create(ClientOptions options);
  ~ChatClient();
  ChatClient(const ChatClient&) = delete;
  ChatClient& operator=(const ChatClient&) = delete;

  // One chat completion, with retries. Thread-safe; blocks while `concurrency` are in flight.
  Result<Completion> complete(const std::vector<ChatMessage>& messages,
                              const SamplingParams& params = {});

  // Many conversations on min(concurrency, size) worker threads; results in input order.
  // `on_done(index, result)` runs on the worker thread right after each one (may be null).
  std::vector<Result<Completion>> complete_batch(
      const std::vector<std::vector<ChatMessage>>& conversations, const SamplingParams& params,
      const std::function<void(size_t, const Result<Completion>&)>& on_done = nullptr);

  Usage usage() const;
  const ClientOptions& options() const { return options_; }
  std::string endpoint() const;  // "http://host:port/v1/chat/completions" (no key)

 private:
  struct Impl;
  ChatClient(ClientOptions options, std::unique_ptr<Impl> impl);
  ClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

// The JSON body of a request (exposed for tests and for logging a request without its key).
std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const SamplingParams& params);

// Parses a /chat/completions response body: typed "llm_bad_response" errors on anything that is
// not an object with a non-empty "choices" array of {message:{content}} entries.
Result<Completion> parse_chat_response(std::string_view body);

}  // namespace steptp::llm
