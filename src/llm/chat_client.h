// llm/chat_client.h — a client for any OpenAI-compatible /v1/chat/completions server (vLLM,
// SGLang, llama.cpp, ollama, ms-swift deploy): timeouts, bounded retries with backoff, bounded
// concurrency, response-size caps and usage accounting.
//
// It knows nothing about LEIR or answers: it moves messages and text. Every failure is a typed
// Error ("llm_config", "llm_connection", "llm_timeout", "llm_http", "llm_bad_response",
// "llm_too_large", "llm_unknown_model", "llm_cancelled"); nothing a server sends can crash it. The
// API key is never logged or rendered.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
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
  int n = 1;                 // samples per request
  double temperature = 0.0;  // 0 = greedy on every server we target
  int max_tokens = 8192;
  std::optional<double> top_p;
  std::optional<int64_t> seed;  // forwarded when set; servers may ignore it
  // Sent as "response_format" when set (constrained decoding), e.g. {"type":"json_schema",...}.
  std::optional<nlohmann::json> response_format;
};

struct ClientOptions {
  // "http://host:port", "http://host:port/v1" or a full ".../chat/completions" URL; https works
  // because the system cpp-httplib is built with OpenSSL.
  std::string base_url;
  std::string model;
  std::string api_key;  // empty: no Authorization header
  double connect_timeout_s = 10.0;
  double read_timeout_s = 600.0;   // per attempt: generation of long CoTs is slow
  int max_retries = 3;             // extra attempts after the first, on 429/5xx/timeouts
  double backoff_initial_s = 1.0;  // doubled per retry ...
  double backoff_max_s = 30.0;     // ... up to this (also caps a server's Retry-After)
  int concurrency = 4;             // requests in flight at once, over all callers
  size_t max_response_bytes = 64u << 20;
  // Appends one JSONL line per HTTP attempt (request, response, latency, token usage); null: none.
  std::shared_ptr<class Transcript> transcript;
};

// A JSONL file of every request and response, appended and flushed line by line so that what
// was written survives a crash or an abort. Thread-safe.
class Transcript {
 public:
  // Errors: "io_error" when the file cannot be opened for writing.
  static Result<std::shared_ptr<Transcript>> open(const std::string& path);
  ~Transcript();
  void append(const nlohmann::json& line);
  int64_t lines() const;

 private:
  explicit Transcript(std::FILE* file) : file_(file) {}
  mutable std::mutex mu_;
  std::FILE* file_;
  int64_t lines_ = 0;
};

// The key from STEPTP_API_KEY, else OPENAI_API_KEY, else empty.
std::string api_key_from_environment();

struct Choice {
  std::string content;            // may be empty (a null content)
  std::string reasoning_content;  // vLLM/SGLang reasoning parsers put the think text here
  std::string finish_reason;      // "stop", "length", ... ("" when absent)
  // The answer text: the content, or the reasoning text when the content is empty (some servers
  // put everything there; llm::parse_answer then searches it for the answer).
  const std::string& text() const { return content.empty() ? reasoning_content : content; }
};

struct Completion {
  std::vector<Choice> choices;  // at least one
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int attempts = 1;  // HTTP attempts this call took
};

struct Usage {
  int64_t calls = 0;     // complete() calls
  int64_t requests = 0;  // HTTP attempts (calls + retries)
  int64_t retries = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;  // calls that ended in an error
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::map<std::string, int64_t> failures_by_reason;  // final error category of failed calls
  std::map<std::string, int64_t> retries_by_reason;   // why an attempt was retried
  double seconds_in_requests = 0;  // summed wall time of attempts (not of backoff waits)
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

  // Asks the server which models it serves (GET .../v1/models), with the client's retries:
  // "llm_connection"/"llm_timeout" when it cannot be reached, "llm_unknown_model" when it
  // lists models and ours is not one of them. A server without that route (404/405) passes.
  // Run it before a long job so that a wrong endpoint fails in seconds, not after the first batch.
  // The error's message starts with "endpoint URL: ".
  Result<void> check_endpoint();

  // Makes every call in flight or still to come fail at once with "llm_cancelled" (retries
  // and backoff waits stop too). Used when one call's failure means the endpoint is unusable.
  void cancel();

  Usage usage() const;
  const ClientOptions& options() const { return options_; }
  std::string endpoint() const;  // "http://host:port/v1/chat/completions" (no key)

 private:
  struct Impl;
  ChatClient(ClientOptions options, std::unique_ptr<Impl> impl);
  Result<void> check_models_route();  // check_endpoint without the endpoint in its messages
  ClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

// Whether an error means the endpoint itself is unusable (no server, refused connection,
// timeouts, HTTP errors, garbage instead of a completion) rather than a model answering badly.
bool is_endpoint_failure(const Error& e);

// The JSON body of a request (exposed for tests and for logging a request without its key).
std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const SamplingParams& params);

// Parses a /chat/completions response body: typed "llm_bad_response" errors on anything that is
// not an object with a non-empty "choices" array of {message:{content}} entries.
Result<Completion> parse_chat_response(std::string_view body);

}  // namespace steptp::llm
