// service/http_service.cpp — httplib::Server in front of service::call, with the limits.
#include "service/http_service.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <future>
#include <semaphore>
#include <thread>

#include "llm/untrusted_json.h"
#include "service/openapi_document.h"

namespace steptp::service {
namespace {

constexpr const char* kJson = "application/json";

void send(httplib::Response& res, const Response& r) {
  res.status = r.status;
  // Invalid UTF-8 inside a program text must not make dump() throw: replace it.
  res.set_content(r.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kJson);
}

int cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

}  // namespace

const std::string& openapi_document() {
  static const std::string doc(kOpenApiDocument);
  return doc;
}

// What a request's worker thread uses: shared, because a worker that outlived its request's
// deadline may also outlive the service.
struct WorkState {
  explicit WorkState(const ServiceOptions& o)
      : limits(o.limits), slots(o.threads > 0 ? o.threads : cores()) {}
  Limits limits;
  // One slot per core for the work itself; connection workers only wait on it.
  std::counting_semaphore<1 << 16> slots;
};

struct HttpService::Impl {
  explicit Impl(ServiceOptions o)
      : options(std::move(o)), work(std::make_shared<WorkState>(options)) {}

  ServiceOptions options;
  httplib::Server server;
  std::shared_ptr<WorkState> work;

  void handle(const std::string& operation, const httplib::Request& req, httplib::Response& res) {
    if (operation == "bench" && !options.expose_bench)
      return send(res, error_response(404, ErrorKind::kBadInput, "unknown_operation",
                                      "bench is not served (start with --expose-bench)"));
    // Bounded nesting: a 4 MiB body of '[' must not recurse through the stack later on.
    auto parsed = llm::parse_untrusted_json(req.body, "bad_json");
    if (!parsed)
      return send(res,
                  error_response(400, ErrorKind::kBadInput, "bad_json",
                                 "the request body is not usable JSON: " + parsed.error().message));
    nlohmann::json body = std::move(parsed).value();
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(options.timeout_s));
    if (!work->slots.try_acquire_until(deadline))
      return send(res, error_response(503, ErrorKind::kBadInput, "busy",
                                      "every worker is busy; retry later"));
    // The work runs on its own thread so that the client gets its answer at the deadline even
    // when the work does not end there (it is bounded by the verification budget instead).
    auto result = std::make_shared<std::promise<Response>>();
    std::future<Response> done = result->get_future();
    std::thread([work = work, operation, body = std::move(body), result] {
      result->set_value(call(operation, body, work->limits));
      work->slots.release();
    }).detach();
    if (done.wait_until(deadline) != std::future_status::ready)
      return send(res, error_response(504, ErrorKind::kBadInput, "timeout",
                                      fmt::format("the request took longer than {} s; it is "
                                                  "bounded by the verification budget",
                                                  options.timeout_s)));
    send(res, done.get());
  }
};

HttpService::HttpService(ServiceOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl* impl = impl_.get();
  const ServiceOptions& o = impl->options;
  httplib::Server& s = impl->server;
  // Connection workers are many (keep-alive clients each hold one); the CPU work is limited by
  // the slots above.
  const size_t connections = static_cast<size_t>(std::max(16, 4 * cores()));
  s.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  s.set_payload_max_length(o.max_request_bytes);
  s.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::duration<double>(std::min(o.timeout_s, 60.0))));
  s.set_keep_alive_max_count(1000);
  // Headers and body go out in two writes: without TCP_NODELAY the second waits for the
  // client's delayed ACK (40 ms on Linux), which capped a keep-alive client at ~25 requests/s.
  s.set_tcp_nodelay(true);
  s.Post(R"(/v1/([a-z_]+))", [impl](const httplib::Request& req, httplib::Response& res) {
    impl->handle(req.matches[1], req, res);
  });
  s.Get("/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(openapi_document(), kJson);
  });
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"ok":true})", kJson);
  });
  // httplib answers a body over the payload limit with a bare 413; unknown paths with 404.
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string code = res.status == 413   ? "too_large"
                       : res.status == 404 ? "not_found"
                                           : fmt::format("http_{}", res.status);
    Response r = error_response(res.status, ErrorKind::kBadInput, code,
                                res.status == 413   ? "the request body is over the size limit"
                                : res.status == 404 ? "no such path (see /openapi.json)"
                                                    : "the request was refused");
    send(res, r);
    res.status = r.status;
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send(res, error_response(500, ErrorKind::kBug, "internal_error",
                             "the service failed on this request (a bug in steptp)"));
  });
}

HttpService::~HttpService() { stop(); }

Result<void> HttpService::bind() {
  // A client that drops a connection mid-answer must not kill the process with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  const ServiceOptions& o = impl_->options;
  int bound = o.port == 0 ? impl_->server.bind_to_any_port(o.host)
                          : (impl_->server.bind_to_port(o.host, o.port) ? o.port : -1);
  if (bound <= 0)
    return Error::make("serve_bind", fmt::format("cannot bind {}:{}", o.host, o.port));
  port_ = bound;
  return ok();
}

void HttpService::run() { impl_->server.listen_after_bind(); }

void HttpService::stop() { impl_->server.stop(); }

}  // namespace steptp::service
