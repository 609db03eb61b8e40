// python/steptp/_core.cpp — the nanobind extension under `import steptp`: one entry point into
// service/api.h, so Python gets the operations, limits and typed errors of `steptp serve`.
//
// Requests and answers cross as JSON text (the Python side wraps them in typed objects); the
// GIL is released for the whole operation, so threads verify and time programs in parallel.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "llm/untrusted_json.h"
#include "service/api.h"
#include "service/http_service.h"

namespace nb = nanobind;

namespace {

// A library caller is trusted with its own machine: larger programs and budgets than a service.
steptp::service::Limits library_limits(int64_t work_budget, int64_t memory_budget_bytes) {
  steptp::service::Limits l;
  l.max_program_bytes = size_t{64} << 20;
  l.work_budget = work_budget;
  l.memory_budget_bytes = memory_budget_bytes;
  l.max_seeds = 1000;
  l.allow_measure = true;
  return l;
}

std::pair<int, std::string> call(const std::string& operation, const std::string& request,
                                 int64_t work_budget, int64_t memory_budget_bytes) {
  nb::gil_scoped_release unlocked;
  auto body = steptp::llm::parse_untrusted_json(request, "bad_json");
  steptp::service::Response r =
      body ? steptp::service::call(operation, *body,
                                   library_limits(work_budget, memory_budget_bytes))
           : steptp::service::error_response(400, steptp::service::ErrorKind::kBadInput, "bad_json",
                                             body.error().message);
  return {r.status, r.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "steptp's C++ core: call(operation, request_json) -> (status, answer_json)";
  m.def("call", &call, nb::arg("operation"), nb::arg("request"),
        nb::arg("work_budget") = int64_t{4'000'000'000},
        nb::arg("memory_budget_bytes") = int64_t{8} << 30,
        "Runs one operation of service/api.h: (HTTP-style status, JSON answer or error).");
  m.def("operations", &steptp::service::operation_names, "The operation names.");
  m.def(
      "openapi", [] { return steptp::service::openapi_document(); },
      "The OpenAPI document of `steptp serve`.");
}
