// llm/chat_client.cpp — HTTP side of the OpenAI-compatible client (cpp-httplib, one connection
// per attempt so that worker threads share nothing but the usage counters and the semaphore).
#include "llm/chat_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "llm/untrusted_json.h"

namespace steptp::llm {
namespace {

using Clock = std::chrono::steady_clock;

struct ParsedUrl {
  std::string scheme;  // "http" | "https"
  std::string host;
  int port = 0;
  std::string path;  // the full request path, ".../chat/completions"
};

Result<ParsedUrl> parse_base_url(const std::string& url) {
  ParsedUrl out;
  size_t sep = url.find("://");
  if (sep == std::string::npos)
    return Error::make("llm_config", fmt::format("endpoint '{}' has no scheme; write "
                                                 "http://host:port or https://host",
                                                 url));
  out.scheme = url.substr(0, sep);
  if (out.scheme != "http" && out.scheme != "https")
    return Error::make("llm_config",
                       fmt::format("endpoint scheme '{}' is not http or https", out.scheme));
  std::string rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string::npos)
    return Error::make("llm_config",
                       "credentials in the endpoint URL are not supported; set "
                       "STEPTP_API_KEY instead");
  size_t colon = authority.rfind(':');
  out.host = authority.substr(0, colon);
  out.port = out.scheme == "https" ? 443 : 80;
  if (colon != std::string::npos) {
    std::string port = authority.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoi(port) < 1 || std::stoi(port) > 65535)
      return Error::make("llm_config", fmt::format("endpoint port '{}' is not 1..65535", port));
    out.port = std::stoi(port);
  }
  if (out.host.empty())
    return Error::make("llm_config", fmt::format("endpoint '{}' has no host", url));
  while (!path.empty() && path.back() == '/') path.pop_back();
  // OpenAI clients take the base URL with /v1; servers are often given without it.
  auto ends_with = [&](std::string_view s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("/chat/completions"))
    out.path = path;
  else if (ends_with("/v1"))
    out.path = path + "/chat/completions";
  else
    out.path = path + "/v1/chat/completions";
  return out;
}

// A counting semaphore whose limit is a runtime value.
class Gate {
 public:
  explicit Gate(int limit) : free_(limit) {}
  void acquire() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void release() {
    {
      std::lock_guard lock(mu_);
      ++free_;
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
};

struct AttemptResult {
  Result<Completion> result = Error::make("llm_bad_response", "no attempt made");
  bool retryable = false;
  double retry_after_s = -1;  // from a Retry-After header, when given
  double seconds = 0;
  int http_status = 0;  // 0: no HTTP response
  std::string body;     // the response body as received (capped)
};

bool retryable_status(int status) { return status == 408 || status == 429 || status >= 500; }

std::string body_excerpt(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return body.size() > 200 ? s + "..." : s;
}

}  // namespace

std::string api_key_from_environment() {
  for (const char* name : {"STEPTP_API_KEY", "OPENAI_API_KEY"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  return "";
}

std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const SamplingParams& params) {
  nlohmann::json body;
  body["model"] = model;
  body["messages"] = nlohmann::json::array();
  for (const ChatMessage& m : messages)
    body["messages"].push_back({{"role", m.role}, {"content", m.content}});
  body["n"] = params.n;
  body["temperature"] = params.temperature;
  body["max_tokens"] = params.max_tokens;
  if (params.top_p) body["top_p"] = *params.top_p;
  if (params.seed) body["seed"] = *params.seed;
  if (params.response_format) body["response_format"] = *params.response_format;
  body["stream"] = false;
  // Model text may hold any bytes; replace invalid UTF-8 rather than throw.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<Completion> parse_chat_response(std::string_view body) {
  auto parsed = parse_untrusted_json(body, "llm_bad_response");
  if (!parsed) return std::move(parsed).error();
  const nlohmann::json& j = *parsed;
  if (!j.is_object())
    return Error::make("llm_bad_response", "the response body is not a JSON object");
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array())
    return Error::make("llm_bad_response", "the response has no \"choices\" array");
  Completion out;
  for (const nlohmann::json& c : *choices) {
    if (!c.is_object()) return Error::make("llm_bad_response", "a choice is not an object");
    auto msg = c.find("message");
    if (msg == c.end() || !msg->is_object())
      return Error::make("llm_bad_response", "a choice has no \"message\" object");
    Choice choice;
    for (auto [key, dest] : {std::pair{"content", &choice.content},
                             std::pair{"reasoning_content", &choice.reasoning_content}}) {
      auto v = msg->find(key);
      if (v == msg->end() || v->is_null()) continue;
      if (!v->is_string())
        return Error::make("llm_bad_response",
                           fmt::format("a choice's message.{} is not a string", key));
      *dest = v->get<std::string>();
    }
    auto finish = c.find("finish_reason");
    if (finish != c.end() && finish->is_string()) choice.finish_reason = finish->get<std::string>();
    out.choices.push_back(std::move(choice));
  }
  if (out.choices.empty()) return Error::make("llm_bad_response", "the response has no choices");
  auto usage = j.find("usage");
  if (usage != j.end() && usage->is_object()) {
    auto count = [&](const char* key) -> int64_t {
      auto v = usage->find(key);
      return v != usage->end() && v->is_number_integer() ? std::max<int64_t>(0, v->get<int64_t>())
                                                         : 0;
    };
    out.prompt_tokens = count("prompt_tokens");
    out.completion_tokens = count("completion_tokens");
  }
  return out;
}

struct ChatClient::Impl {
  ParsedUrl url;
  Gate gate;
  mutable std::mutex mu;
  Usage usage;

  Impl(ParsedUrl u, int concurrency) : url(std::move(u)), gate(concurrency) {}

  // One HTTP exchange: POST `body` to the completions path, or GET `get_path` when given.
  AttemptResult attempt(const ClientOptions& o, const std::string& body,
                        const std::string& get_path = "") const {
    AttemptResult out;
    httplib::Client http(fmt::format("{}://{}:{}", url.scheme, url.host, url.port));
    auto to_duration = [](double s) {
      return std::chrono::microseconds(static_cast<int64_t>(std::max(0.0, s) * 1e6));
    };
    http.set_connection_timeout(to_duration(o.connect_timeout_s));
    http.set_read_timeout(to_duration(o.read_timeout_s));
    http.set_write_timeout(to_duration(std::max(o.read_timeout_s, 1.0)));

    httplib::Request req;
    req.method = get_path.empty() ? "POST" : "GET";
    req.path = get_path.empty() ? url.path : get_path;
    if (get_path.empty()) req.headers.emplace("Content-Type", "application/json");
    req.headers.emplace("Accept", "application/json");
    if (!o.api_key.empty()) req.headers.emplace("Authorization", "Bearer " + o.api_key);
    if (get_path.empty()) req.body = body;
    std::string received;
    bool too_large = false;
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      if (received.size() + n > o.max_response_bytes) {
        too_large = true;
        return false;  // abort the transfer: we will not hold an unbounded body
      }
      received.append(data, n);
      return true;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    auto start = Clock::now();
    bool sent = http.send(req, res, err);
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    out.body = received.substr(0, 1u << 20);
    if (sent) out.http_status = res.status;

    if (too_large) {
      out.result = Error::make("llm_too_large",
                               fmt::format("the response exceeded {} bytes", o.max_response_bytes));
      return out;
    }
    if (!sent) {
      out.retryable = true;
      switch (err) {
        case httplib::Error::ConnectionTimeout:
          out.result =
              Error::make("llm_timeout", fmt::format("no connection to {}:{} within {} s", url.host,
                                                     url.port, o.connect_timeout_s));
          return out;
        case httplib::Error::Read:
        case httplib::Error::Write:
          // httplib reports an expired read timeout as a read error; tell them apart by time.
          if (out.seconds >= 0.9 * o.read_timeout_s) {
            out.result = Error::make(
                "llm_timeout", fmt::format("no complete response within {} s", o.read_timeout_s));
            return out;
          }
          break;
        case httplib::Error::SSLConnection:
        case httplib::Error::SSLLoadingCerts:
        case httplib::Error::SSLServerVerification:
          out.retryable = false;
          break;
        default:
          break;
      }
      out.result = Error::make(
          "llm_connection", fmt::format("request to {}://{}:{}{} failed: {}", url.scheme, url.host,
                                        url.port, req.path, httplib::to_string(err)));
      return out;
    }
    if (res.status < 200 || res.status >= 300) {
      out.retryable = retryable_status(res.status);
      if (res.has_header("Retry-After")) {
        const std::string v = res.get_header_value("Retry-After");
        char* end = nullptr;
        double s = std::strtod(v.c_str(), &end);
        if (end != v.c_str() && s >= 0) out.retry_after_s = s;
      }
      out.result = Error::make("llm_http", fmt::format("HTTP {} from the server: {}", res.status,
                                                       body_excerpt(received)));
      return out;
    }
    if (get_path.empty())
      out.result = parse_chat_response(received);
    else
      out.result = Completion{};
    return out;
  }

  std::atomic<bool> cancelled{false};
};

ChatClient::ChatClient(ClientOptions options, std::unique_ptr<Impl> impl)
    : options_(std::move(options)), impl_(std::move(impl)) {}
ChatClient::~ChatClient() = default;

Result<std::unique_ptr<ChatClient>> ChatClient::create(ClientOptions options) {
  auto url = parse_base_url(options.base_url);
  if (!url) return std::move(url).error();
  if (options.model.empty()) return Error::make("llm_config", "no model name given");
  if (options.concurrency < 1 || options.concurrency > 1024)
    return Error::make("llm_config", "concurrency must be 1..1024");
  if (options.max_retries < 0 || options.max_retries > 100)
    return Error::make("llm_config", "max_retries must be 0..100");
  if (!(options.read_timeout_s > 0) || !(options.connect_timeout_s > 0))
    return Error::make("llm_config", "timeouts must be positive");
  if (options.max_response_bytes == 0)
    return Error::make("llm_config", "max_response_bytes must be positive");
  // A server that closes the connection while we write must surface as an error, not SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  int concurrency = options.concurrency;
  auto impl = std::make_unique<Impl>(std::move(*url), concurrency);
  return std::unique_ptr<ChatClient>(new ChatClient(std::move(options), std::move(impl)));
}

std::string ChatClient::endpoint() const {
  return fmt::format("{}://{}:{}{}", impl_->url.scheme, impl_->url.host, impl_->url.port,
                     impl_->url.path);
}

namespace {

Error cancelled_error() {
  return Error::make("llm_cancelled", "not sent: an earlier request showed the endpoint unusable");
}

// Sleeps `seconds` in short slices, returning early (false) when the client is cancelled.
bool sleep_unless_cancelled(double seconds, const std::atomic<bool>& cancelled) {
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (cancelled) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !cancelled;
}

nlohmann::json body_as_json(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded()) return j;
  return body_excerpt(body);
}

}  // namespace

Result<Completion> ChatClient::complete(const std::vector<ChatMessage>& messages,
                                        const SamplingParams& params) {
  if (params.n < 1 || params.max_tokens < 1)
    return Error::make("llm_config", "n and max_tokens must be at least 1");
  const std::string body = chat_request_body(options_.model, messages, params);
  double backoff = options_.backoff_initial_s;
  int attempts = 0;
  int64_t call = 0;
  {
    std::lock_guard lock(impl_->mu);
    call = ++impl_->usage.calls;
  }
  while (true) {
    if (impl_->cancelled) return cancelled_error();
    impl_->gate.acquire();
    AttemptResult a = impl_->cancelled ? AttemptResult{} : impl_->attempt(options_, body);
    impl_->gate.release();
    if (impl_->cancelled && a.http_status == 0 && !a.result.ok()) return cancelled_error();
    ++attempts;
    const bool retry = !a.result.ok() && a.retryable && attempts <= options_.max_retries;
    {
      std::lock_guard lock(impl_->mu);
      Usage& u = impl_->usage;
      ++u.requests;
      u.seconds_in_requests += a.seconds;
      if (a.result.ok()) {
        ++u.succeeded;
        u.prompt_tokens += a.result->prompt_tokens;
        u.completion_tokens += a.result->completion_tokens;
      } else if (retry) {
        ++u.retries;
        ++u.retries_by_reason[a.result.error().category];
      } else {
        ++u.failed;
        ++u.failures_by_reason[a.result.error().category];
      }
    }
    if (options_.transcript) {
      nlohmann::json line = {{"call", call},
                             {"attempt", attempts},
                             {"endpoint", endpoint()},
                             {"model", options_.model},
                             {"request", nlohmann::json::parse(body, nullptr, false)},
                             {"http_status", a.http_status},
                             {"latency_s", a.seconds}};
      line["response"] = a.body.empty() ? nlohmann::json(nullptr) : body_as_json(a.body);
      if (a.result.ok())
        line["usage"] = {{"prompt_tokens", a.result->prompt_tokens},
                         {"completion_tokens", a.result->completion_tokens},
                         {"total_tokens", a.result->prompt_tokens + a.result->completion_tokens}};
      else
        line["error"] = {{"category", a.result.error().category},
                         {"message", a.result.error().message},
                         {"retried", retry}};
      options_.transcript->append(line);
    }
    if (a.result.ok()) {
      Completion c = std::move(a.result).value();
      c.attempts = attempts;
      return c;
    }
    if (!retry) {
      Error e = std::move(a.result).error();
      if (attempts > 1) e.message += fmt::format(" (after {} attempts)", attempts);
      return e;
    }
    double wait = a.retry_after_s >= 0 ? a.retry_after_s : backoff;
    wait = std::min(wait, options_.backoff_max_s);
    if (wait > 0 && !sleep_unless_cancelled(wait, impl_->cancelled)) return cancelled_error();
    backoff = std::min(backoff * 2, options_.backoff_max_s);
  }
}

Result<void> ChatClient::check_endpoint() {
  Result<void> checked = check_models_route();
  if (checked.ok()) return checked;
  Error e = std::move(checked).error();
  e.message = fmt::format("endpoint {}: {}", endpoint(), e.message);
  return e;
}

Result<void> ChatClient::check_models_route() {
  std::string models_path = impl_->url.path;
  const std::string_view suffix = "/chat/completions";
  models_path = models_path.substr(0, models_path.size() - suffix.size()) + "/models";
  double backoff = options_.backoff_initial_s;
  for (int attempt = 1;; ++attempt) {
    AttemptResult a = impl_->attempt(options_, "", models_path);
    if (a.http_status == 404 || a.http_status == 405) return {};  // no such route: nothing to check
    if (a.http_status >= 200 && a.http_status < 300) {
      nlohmann::json j = nlohmann::json::parse(a.body, nullptr, false);
      std::vector<std::string> ids;
      if (j.is_object() && j.contains("data") && j["data"].is_array())
        for (const nlohmann::json& m : j["data"])
          if (m.is_object() && m.contains("id") && m["id"].is_string())
            ids.push_back(m["id"].get<std::string>());
      if (ids.empty() || std::find(ids.begin(), ids.end(), options_.model) != ids.end()) return {};
      return Error::make("llm_unknown_model",
                         fmt::format("it does not serve model '{}' (it serves: {})", options_.model,
                                     fmt::join(ids, ", ")));
    }
    const bool retry = a.retryable && attempt <= options_.max_retries;
    if (!retry) {
      Error e = a.http_status != 0
                    ? Error::make("llm_http", fmt::format("HTTP {} from {}: {}", a.http_status,
                                                          models_path, body_excerpt(a.body)))
                    : std::move(a.result).error();
      if (attempt > 1) e.message += fmt::format(" (after {} attempts)", attempt);
      return e;
    }
    if (!sleep_unless_cancelled(std::min(backoff, options_.backoff_max_s), impl_->cancelled))
      return cancelled_error();
    backoff = std::min(backoff * 2, options_.backoff_max_s);
  }
}

void ChatClient::cancel() { impl_->cancelled = true; }

bool is_endpoint_failure(const Error& e) {
  return e.category == "llm_connection" || e.category == "llm_timeout" ||
         e.category == "llm_http" || e.category == "llm_bad_response" ||
         e.category == "llm_config" || e.category == "llm_unknown_model" ||
         e.category == "llm_cancelled";
}

Result<std::shared_ptr<Transcript>> Transcript::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
    return Error::make("io_error", fmt::format("cannot write the transcript {}", path));
  return std::shared_ptr<Transcript>(new Transcript(f));
}

Transcript::~Transcript() {
  if (file_ != nullptr) std::fclose(file_);
}

void Transcript::append(const nlohmann::json& line) {
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mu_);
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
  ++lines_;
}

int64_t Transcript::lines() const {
  std::lock_guard lock(mu_);
  return lines_;
}

std::vector<Result<Completion>> ChatClient::complete_batch(
    const std::vector<std::vector<ChatMessage>>& conversations, const SamplingParams& params,
    const std::function<void(size_t, const Result<Completion>&)>& on_done) {
  std::vector<Result<Completion>> results(conversations.size(),
                                          Error::make("llm_bad_response", "not run"));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < conversations.size(); i = next++) {
      results[i] = complete(conversations[i], params);
      if (on_done) on_done(i, results[i]);
    }
  };
  size_t threads =
      std::min<size_t>(static_cast<size_t>(options_.concurrency), conversations.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  if (threads > 0) worker();
  for (std::thread& t : pool) t.join();
  return results;
}

Usage ChatClient::usage() const {
  std::lock_guard lock(impl_->mu);
  return impl_->usage;
}

}  // namespace steptp::llm
