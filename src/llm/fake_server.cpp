// llm/fake_server.cpp — the scripted OpenAI-compatible server (httplib::Server on a thread).
#include "llm/fake_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <thread>

namespace steptp::llm {

std::string completion_body(const std::vector<std::string>& texts, int64_t prompt_tokens,
                            int64_t completion_tokens) {
  nlohmann::json j;
  j["id"] = "chatcmpl-fake";
  j["object"] = "chat.completion";
  j["model"] = "fake";
  j["choices"] = nlohmann::json::array();
  for (size_t i = 0; i < texts.size(); ++i)
    j["choices"].push_back({{"index", i},
                            {"message", {{"role", "assistant"}, {"content", texts[i]}}},
                            {"finish_reason", "stop"}});
  j["usage"] = {{"prompt_tokens", prompt_tokens},
                {"completion_tokens", completion_tokens},
                {"total_tokens", prompt_tokens + completion_tokens}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

FakeReply FakeReply::completion(const std::vector<std::string>& texts, int64_t prompt_tokens,
                                int64_t completion_tokens) {
  FakeReply r;
  r.body = completion_body(texts, prompt_tokens, completion_tokens);
  return r;
}

FakeReply FakeReply::http_error(int status, std::string body) {
  FakeReply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

FakeReply FakeReply::raw(std::string body, int status) {
  FakeReply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

struct FakeServer::Impl {
  Responder responder;
  httplib::Server server;
  std::thread thread;

  mutable std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  int in_flight = 0;
  int max_in_flight = 0;
  int hold_n = 0;
  std::chrono::milliseconds hold_timeout{0};
  int64_t hold_generation = 0;  // bumped each time hold_n handlers are waiting together
  std::vector<FakeRequest> requests;

  void handle(const httplib::Request& req, httplib::Response& res) {
    FakeRequest r;
    r.path = req.path;
    r.authorization = req.get_header_value("Authorization");
    r.body = nlohmann::json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    if (r.body.is_discarded()) r.body = nullptr;
    if (r.body.is_object() && r.body.contains("messages") && r.body["messages"].is_array())
      for (const auto& m : r.body["messages"])
        if (m.is_object() && m.value("role", nlohmann::json()).is_string() &&
            m.value("content", nlohmann::json()).is_string())
          r.messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
    {
      std::unique_lock lock(mu);
      r.index = static_cast<int>(requests.size());
      requests.push_back(r);
      max_in_flight = std::max(max_in_flight, ++in_flight);
      if (hold_n > 0) {
        int64_t generation = hold_generation;
        if (in_flight >= hold_n) {
          ++hold_generation;
          cv.notify_all();
        } else {
          cv.wait_for(lock, hold_timeout,
                      [&] { return stopping || hold_generation != generation; });
        }
      }
    }
    FakeReply reply = responder(r);
    if (reply.delay.count() > 0) {
      std::unique_lock lock(mu);
      cv.wait_for(lock, reply.delay, [&] { return stopping; });
    }
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    res.set_content(reply.body, "application/json");
    std::lock_guard lock(mu);
    --in_flight;
  }
};

FakeServer::FakeServer(Responder responder) : impl_(std::make_unique<Impl>()) {
  impl_->responder = std::move(responder);
  Impl* impl = impl_.get();
  impl_->server.Post(R"(.*)", [impl](const httplib::Request& req, httplib::Response& res) {
    impl->handle(req, res);
  });
  impl_->server.Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"object":"list","data":[{"id":"fake","object":"model"}]})",
                    "application/json");
  });
}

std::unique_ptr<FakeServer> FakeServer::scripted(std::vector<FakeReply> replies) {
  struct Script {
    std::mutex mu;
    std::deque<FakeReply> queue;
  };
  auto script = std::make_shared<Script>();
  script->queue.assign(std::make_move_iterator(replies.begin()),
                       std::make_move_iterator(replies.end()));
  return std::make_unique<FakeServer>([script](const FakeRequest&) {
    std::lock_guard lock(script->mu);
    if (script->queue.empty())
      return FakeReply::http_error(500, "{\"error\":\"script exhausted\"}");
    FakeReply r = std::move(script->queue.front());
    script->queue.pop_front();
    return r;
  });
}

FakeServer::~FakeServer() { stop(); }

Result<void> FakeServer::start(const std::string& host, int port) {
  // A client that drops a huge body mid-transfer must not kill the process with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  int bound = port == 0 ? impl_->server.bind_to_any_port(host)
                        : (impl_->server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0)
    return Error::make("llm_fake_server", fmt::format("cannot bind {}:{}", host, port));
  port_ = bound;
  impl_->thread = std::thread([impl = impl_.get()] { impl->server.listen_after_bind(); });
  // httplib's stop() is a no-op until the accept loop runs, so a stop() right after start()
  // would leave the thread listening forever: wait for the loop to be up.
  while (!impl_->server.is_running()) std::this_thread::yield();
  return ok();
}

Result<void> FakeServer::serve_forever(const std::string& host, int port) {
  std::signal(SIGPIPE, SIG_IGN);
  if (!impl_->server.bind_to_port(host, port))
    return Error::make("llm_fake_server", fmt::format("cannot bind {}:{}", host, port));
  port_ = port;
  impl_->server.listen_after_bind();
  return ok();
}

void FakeServer::stop() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string FakeServer::base_url() const { return fmt::format("http://127.0.0.1:{}/v1", port_); }

void FakeServer::hold_until_in_flight(int n, std::chrono::milliseconds timeout) {
  std::lock_guard lock(impl_->mu);
  impl_->hold_n = n;
  impl_->hold_timeout = timeout;
}

int64_t FakeServer::requests_seen() const {
  std::lock_guard lock(impl_->mu);
  return static_cast<int64_t>(impl_->requests.size());
}

int FakeServer::max_in_flight() const {
  std::lock_guard lock(impl_->mu);
  return impl_->max_in_flight;
}

std::vector<FakeRequest> FakeServer::requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

}  // namespace steptp::llm
