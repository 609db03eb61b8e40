// service/http_service.h — `steptp serve`: the operations of service/api.h over HTTP JSON
// (POST /v1/OPERATION), the OpenAPI 3 document at GET /openapi.json, GET /healthz.
//
// Loopback by default. Every request is bounded: body size (413), each program's size, the
// verification budget, and a wall-clock timeout after which the client gets 504 while the work
// (already bounded by the budget) finishes in the background. Requests run on a pool of one
// worker per core; a request arriving while every slot is taken by timed-out work gets 503.
#pragma once

#include <memory>
#include <string>

#include "service/api.h"
#include "support/error.h"

namespace steptp::service {

struct ServiceOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: an ephemeral port (see HttpService::port)
  int threads = 0;  // connection workers; 0: the number of cores
  size_t max_request_bytes = 4u << 20;
  double timeout_s = 30.0;  // per request
  Limits limits;
  bool expose_bench = false;  // POST /v1/bench (off: timing on a shared host is a DoS lever)
};

// The OpenAPI 3 document served at /openapi.json (docs/openapi.json, embedded at build time).
const std::string& openapi_document();

class HttpService {
 public:
  explicit HttpService(ServiceOptions options);
  ~HttpService();
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;

  // Binds; "serve_bind" naming the address when that fails.
  Result<void> bind();
  int port() const { return port_; }
  // Serves until stop() (from another thread or a signal handler's thread).
  void run();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace steptp::service
