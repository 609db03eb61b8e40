// service/api.cpp — the operation table: request fields in, library calls, JSON out.
#include "service/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <utility>

#include "codegen/c_emitter.h"
#include "codegen/c_engine.h"
#include "codegen/compiler_driver.h"
#include "codegen/cuda_emitter.h"
#include "codegen/timing.h"
#include "codegen/tir_emitter.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/tensor_table.h"
#include "leir/wellformed.h"
#include "llm/registered_names.h"
#include "search/cost_model.h"
#include "service/reward.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::service {
namespace {

using nlohmann::json;

// How a request fails inside an operation; call() turns it into a Response. Never escapes.
struct Failure {
  int status;
  ErrorKind kind;
  std::string code;
  std::string message;
  std::optional<Diagnostic> where;
};

Failure bad_request(std::string message) {
  return {400, ErrorKind::kBadInput, "bad_request", std::move(message), std::nullopt};
}

Failure from_error(const Error& e) {
  return {400, ErrorKind::kBadInput, e.category, e.message, e.diagnostic};
}

// Typed reads of request fields: a missing required field or a wrong type is a bad request.
class Request {
 public:
  Request(const json& j, const Limits& limits) : j_(j), limits_(limits) {
    if (!j_.is_object()) throw bad_request("the request body must be a JSON object");
  }

  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;  // a null is a value of the wrong type
  }
  bool has(const char* key) const { return find(key) != nullptr; }

  std::string text(const char* key, bool bounded = true) const {
    const json* v = find(key);
    if (v == nullptr) throw bad_request(fmt::format("missing field \"{}\"", key));
    if (!v->is_string()) throw bad_request(fmt::format("field \"{}\" must be a string", key));
    std::string s = v->get<std::string>();
    if (bounded && s.size() > limits_.max_program_bytes)
      throw Failure{413, ErrorKind::kBadInput, "too_large",
                    fmt::format("field \"{}\" has {} bytes, more than the limit of {}", key,
                                s.size(), limits_.max_program_bytes),
                    std::nullopt};
    return s;
  }
  std::string text_or(const char* key, std::string fallback) const {
    return has(key) ? text(key) : std::move(fallback);
  }
  int64_t integer(const char* key, int64_t fallback, int64_t lo, int64_t hi) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_number_integer())
      throw bad_request(fmt::format("field \"{}\" must be an integer", key));
    // A value past int64 range reads as unsigned: it is out of range either way.
    if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(hi))
      throw bad_request(fmt::format("field \"{}\" must lie in [{}, {}]", key, lo, hi));
    int64_t x = v->get<int64_t>();
    if (x < lo || x > hi)
      throw bad_request(fmt::format("field \"{}\" must lie in [{}, {}]", key, lo, hi));
    return x;
  }
  double number(const char* key, double fallback, double lo, double hi) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_number()) throw bad_request(fmt::format("field \"{}\" must be a number", key));
    double x = v->get<double>();
    if (!(x >= lo && x <= hi))
      throw bad_request(fmt::format("field \"{}\" must lie in [{}, {}]", key, lo, hi));
    return x;
  }
  bool flag(const char* key, bool fallback = false) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) throw bad_request(fmt::format("field \"{}\" must be a boolean", key));
    return v->get<bool>();
  }
  const Limits& limits() const { return limits_; }

 private:
  const json& j_;
  const Limits& limits_;
};

leir::Program program_field(const Request& r, const char* key) {
  auto p = leir::parse_program(r.text(key), key);
  if (!p) throw from_error(p.error());
  return std::move(p).value();
}

leir::Program declared_program_field(const Request& r, const char* key) {
  leir::Program p = program_field(r, key);
  if (p.decls.empty())
    throw Failure{400, ErrorKind::kBadInput, "no_declarations",
                  fmt::format("field \"{}\" has no tensor declarations (\"input A f64[16]\" "
                              "lines before the body)",
                              key),
                  std::nullopt};
  return p;
}

json decls_json(const std::vector<leir::TensorDecl>& decls) {
  json out = json::array();
  for (const leir::TensorDecl& d : decls)
    out.push_back({{"name", d.name},
                   {"role", leir::tensor_role_name(d.role)},
                   {"dtype", leir::dtype_name(d.dtype)},
                   {"shape", d.shape}});
  return out;
}

json program_json(const leir::Program& p) {
  return {{"program", leir::print_program(p)},
          {"body", leir::print_body(p.blocks)},
          {"declarations", decls_json(p.decls)}};
}

verify::VerifyOptions verify_options(const Request& r) {
  verify::VerifyOptions o;
  o.num_seeds = static_cast<int>(r.integer("seeds", 3, 1, r.limits().max_seeds));
  o.seed = static_cast<uint64_t>(r.integer("seed", 0, 0, INT64_MAX));
  o.run.work_budget = r.limits().work_budget;
  o.run.memory_budget_bytes = r.limits().memory_budget_bytes;
  std::string engine = r.text_or("engine", "interpreter");
  if (engine == "interpreter")
    o.engine = verify::Engine::kInterpreter;
  else if (engine == "compiled")
    o.engine = verify::Engine::kCompiled;
  else if (engine == "both")
    o.engine = verify::Engine::kBoth;
  else
    throw bad_request("field \"engine\" must be interpreter, compiled or both");
  return o;
}

json op_parse(const Request& r) { return program_json(program_field(r, "program")); }

json op_fmt(const Request& r) {
  std::string text = r.text("program");
  auto p = leir::parse_program(text, "program");
  if (!p) throw from_error(p.error());
  std::string canonical = leir::print_program(*p);
  return {{"program", canonical}, {"canonical", canonical == text}};
}

json op_check(const Request& r) {
  leir::Program p = declared_program_field(r, "program");
  leir::WellFormedOptions options;
  options.cuda_limits = r.flag("cuda");
  if (auto wf = leir::check_well_formed(p, options); !wf) throw from_error(wf.error());
  auto table = leir::infer_tensor_table(p);
  if (!table) throw from_error(table.error());
  json tensors = json::array();
  for (const auto& t : table->tensors)
    tensors.push_back({{"name", t.name},
                       {"role", leir::tensor_role_name(t.role)},
                       {"dtype", leir::dtype_name(t.dtype)},
                       {"scope", std::string(1, leir::scope_letter(t.scope))},
                       {"shape", t.shape}});
  return {{"ok", true},
          {"blocks", p.blocks.size()},
          {"tensors", std::move(tensors)},
          {"estimated_cost", search::estimated_cost(p)}};
}

json op_sites(const Request& r) {
  std::vector<const strategy::Strategy*> chosen;
  if (r.has("strategy")) {
    std::string name = r.text("strategy");
    const strategy::Strategy* s = strategy::find_strategy(name);
    if (s == nullptr)
      throw Failure{400, ErrorKind::kBadInput, "unknown_strategy",
                    fmt::format("unknown strategy '{}' (see the strategies operation)", name),
                    std::nullopt};
    chosen.push_back(s);
  } else {
    chosen = strategy::all_strategies();
  }
  leir::Program p = declared_program_field(r, "program");
  const bool explain = r.flag("explain");
  json sites = json::array();
  for (const strategy::Strategy* s : chosen)
    for (const strategy::Site& site : strategy::feasible_sites(*s, p)) {
      json e = {{"strategy", s->name()},
                {"step", site.to_string()},
                {"difficulty", strategy::difficulty_name(s->difficulty())}};
      if (explain) e["explain"] = s->explain(p, site);
      sites.push_back(std::move(e));
    }
  return {{"sites", std::move(sites)}};
}

json op_apply(const Request& r) {
  leir::Program p = declared_program_field(r, "program");
  auto site = strategy::parse_site(r.text("step"));
  if (!site) throw from_error(site.error());
  const strategy::Strategy* s = strategy::find_strategy(site->strategy());
  if (s == nullptr)
    throw Failure{400, ErrorKind::kBadInput, "unknown_strategy",
                  fmt::format("unknown strategy '{}'", site->strategy()), std::nullopt};
  auto infeasible = [](const strategy::Infeasible& why) {
    return Failure{422, ErrorKind::kDoesNotApply, why.code, why.message, std::nullopt};
  };
  if (strategy::Check known = strategy::known_parameters(*s, p, *site); !known)
    throw infeasible(known.infeasible());
  strategy::Outcome<leir::Program> out = s->apply(p, *site);
  if (!out) throw infeasible(out.infeasible());
  json j = program_json(*out);
  j["step"] = site->to_string();
  j["explain"] = s->explain(p, *site);
  return j;
}

json op_verify(const Request& r) {
  verify::VerifyOptions options = verify_options(r);
  verify::VerifyReport report = verify::verify_text(r.text("original"), r.text("candidate"),
                                                    options, "original", "candidate");
  if (report.side == verify::Side::kOriginal && !report.equivalent())
    throw Failure{400, ErrorKind::kBadInput, std::string(verify::status_name(report.status)),
                  "the original program: " + report.message, std::nullopt};
  return report.to_json();
}

json op_lower(const Request& r) {
  leir::Program p = declared_program_field(r, "program");
  std::string target = r.text_or("target", "c");
  if (auto wf = leir::check_well_formed(p); !wf) throw from_error(wf.error());
  json j = {{"target", target}, {"notes", json::array()}};
  if (target == "c") {
    auto c = codegen::emit_c(p);
    if (!c) throw from_error(c.error());
    j["code"] = c->code;
  } else if (target == "cuda") {
    auto cu = codegen::emit_cuda(p);
    if (!cu) throw from_error(cu.error());
    j["code"] = cu->code;
    j["notes"] = cu->notes;
  } else if (target == "tir" || target == "tir-llvm") {
    auto tir = codegen::emit_tir(
        p, target == "tir" ? codegen::TirTarget::kCuda : codegen::TirTarget::kLlvm);
    if (!tir) throw from_error(tir.error());
    j["code"] = *tir;
  } else {
    throw bad_request("field \"target\" must be c, cuda, tir or tir-llvm");
  }
  return j;
}

void require_measure(const Request& r) {
  if (!r.limits().allow_measure)
    throw Failure{403, ErrorKind::kBadInput, "measure_disabled",
                  "this service does not time programs (started without --allow-measure)",
                  std::nullopt};
}

json op_bench(const Request& r) {
  require_measure(r);
  leir::Program p = declared_program_field(r, "program");
  codegen::TimingOptions t;
  t.threads = static_cast<int>(r.integer("threads", 1, 1, 256));
  t.repeats = static_cast<int>(r.integer("repeats", 10, 1, 10000));
  t.warmup = static_cast<int>(r.integer("warmup", 2, 0, 10000));
  codegen::CEngineOptions engine;
  engine.threads = t.threads;
  auto kernel = codegen::CompiledKernel::build(p, engine);
  if (!kernel) throw from_error(kernel.error());
  codegen::KernelBuffers buffers = codegen::deterministic_buffers(*kernel, p);
  codegen::Timing timing = codegen::time_kernel(*kernel, buffers, t);
  json j = timing_json(timing);
  j["cache_hit"] = kernel->cache_hit();
  j["static_work"] = codegen::static_work(p);
  return j;
}

// The question of a reward request: chat records of a build-dataset split that share one
// prompt (its program and its reference answers, read as eval-single reads them: one object, an
// array of them, or JSONL text), or an original program with optional references.
llm::EvalQuestion reward_question(const Request& r) {
  static const llm::StrategyNames known = llm::registered_strategy_names();
  if (const json* record = r.find("record")) {
    std::string lines;
    if (record->is_string()) {
      lines = record->get<std::string>();
    } else if (record->is_array()) {
      for (const json& e : *record) lines += e.dump() + "\n";
    } else {
      lines = record->dump();
    }
    if (lines.size() > r.limits().max_program_bytes * 4)
      throw Failure{413, ErrorKind::kBadInput, "too_large", "the records are over the size limit",
                    std::nullopt};
    auto qs = llm::read_eval_questions(lines, known, "record");
    if (!qs) throw from_error(qs.error());
    if (qs->size() != 1)
      throw bad_request(fmt::format(
          "field \"record\" must hold records of one prompt; it holds {} prompts", qs->size()));
    return std::move(qs->front());
  }
  leir::Program original = declared_program_field(r, "original");
  std::vector<llm::Reference> refs;
  if (const json* list = r.find("references")) {
    if (!list->is_array()) throw bad_request("field \"references\" must be an array");
    for (const json& e : *list) {
      if (!e.is_object() || !e.contains("strategy") || !e["strategy"].is_string() ||
          !e.contains("program") || !e["program"].is_string())
        throw bad_request("each reference needs string fields \"strategy\" and \"program\"");
      Request ref(e, r.limits());
      leir::Program p = program_field(ref, "program");
      if (p.decls.empty()) p.decls = original.decls;
      refs.push_back({ref.text("strategy"), std::move(p)});
    }
  }
  int asked = static_cast<int>(r.integer("asked", 1, 1, 64));
  return question_for(std::move(original), std::move(refs), asked);
}

json op_reward(const Request& r) {
  llm::EvalQuestion q = reward_question(r);
  RewardOptions options;
  options.verify = verify_options(r);
  options.measure = r.flag("measure");
  if (options.measure) require_measure(r);
  options.timing.threads = static_cast<int>(r.integer("threads", 1, 1, 256));
  options.timing.repeats = static_cast<int>(r.integer("repeats", 10, 1, 10000));
  options.speedup_weight = r.number("speedup_weight", options.speedup_weight, 0.0, 100.0);
  options.cost.wide_vectors = codegen::machine_has_wide_vectors();
  return reward(q, r.text("answer"), options).to_json();
}

json op_strategies(const Request&) {
  json out = json::array();
  for (const strategy::Strategy* s : strategy::all_strategies())
    out.push_back({{"name", s->name()},
                   {"category", strategy::category_name(s->category())},
                   {"difficulty", strategy::difficulty_name(s->difficulty())},
                   {"summary", s->summary()}});
  return {{"strategies", std::move(out)}};
}

using Operation = json (*)(const Request&);

const std::map<std::string, Operation, std::less<>>& operations() {
  static const std::map<std::string, Operation, std::less<>> table = {
      {"parse", op_parse},   {"check", op_check},          {"fmt", op_fmt},     {"sites", op_sites},
      {"apply", op_apply},   {"verify", op_verify},        {"lower", op_lower}, {"bench", op_bench},
      {"reward", op_reward}, {"strategies", op_strategies}};
  return table;
}

json error_body(ErrorKind kind, const std::string& code, const std::string& message,
                const std::optional<Diagnostic>& where) {
  json location = nullptr;
  std::string rendered = code + ": " + message;
  if (where) {
    location = {
        {"file", where->where.file}, {"line", where->where.line}, {"column", where->where.column}};
    rendered = where->render();
  }
  return {{"error",
           {{"kind", error_kind_name(kind)},
            {"code", code},
            {"message", message},
            {"location", std::move(location)},
            {"rendered", std::move(rendered)}}}};
}

}  // namespace

std::string_view error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::kBadInput:
      return "bad_input";
    case ErrorKind::kDoesNotApply:
      return "does_not_apply";
    case ErrorKind::kBug:
      return "bug";
  }
  return "bug";
}

const std::vector<std::string>& operation_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : operations()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

nlohmann::json timing_json(const codegen::Timing& t) {
  return {{"engine", "c"},        {"threads", t.threads},      {"warmup", t.warmup},
          {"repeats", t.repeats}, {"median_ms", t.median_ms},  {"min_ms", t.min_ms},
          {"max_ms", t.max_ms},   {"q1_ms", t.q1_ms},          {"q3_ms", t.q3_ms},
          {"iqr_ms", t.iqr_ms},   {"samples_ms", t.samples_ms}};
}

Response error_response(int status, ErrorKind kind, std::string code, std::string message) {
  return {status, error_body(kind, code, message, std::nullopt)};
}

Response call(std::string_view operation, const nlohmann::json& request, const Limits& limits) {
  auto it = operations().find(operation);
  if (it == operations().end())
    return error_response(404, ErrorKind::kBadInput, "unknown_operation",
                          fmt::format("no operation '{}'", operation));
  try {
    Request r(request, limits);
    return {200, it->second(r)};
  } catch (const Failure& f) {
    return {f.status, error_body(f.kind, f.code, f.message, f.where)};
  } catch (const std::bad_alloc&) {
    return error_response(413, ErrorKind::kBadInput, "out_of_memory",
                          "the request needs more memory than this process can allocate");
  } catch (const InternalError& e) {
    return error_response(500, ErrorKind::kBug, "internal_error", e.what());
  } catch (const std::exception& e) {
    return error_response(500, ErrorKind::kBug, "internal_error", e.what());
  }
}

}  // namespace steptp::service
