// search/llm_policy.cpp — prompt, answer extraction and parsing for the llm policy.
#include "search/llm_policy.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "leir/parser.h"
#include "leir/printer.h"
#include "strategy/registry.h"

namespace steptp::search {
namespace {

constexpr size_t kMaxAnswerBytes = 4u << 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The answer region of a completion.
std::string_view answer_region(std::string_view text) {
  size_t open = text.find("<answer>");
  if (open != std::string_view::npos) {
    std::string_view rest = text.substr(open + 8);
    size_t close = std::min(rest.find("</answer>"), rest.find("<\\answer>"));
    return trim(rest.substr(0, close));
  }
  for (std::string_view tag : {std::string_view("</think>"), std::string_view("<\\think>")}) {
    size_t end = text.rfind(tag);
    if (end != std::string_view::npos) return trim(text.substr(end + tag.size()));
  }
  return trim(text);
}

std::string strip_fences(std::string_view s) {
  s = trim(s);
  if (s.rfind("```", 0) == 0) {
    size_t nl = s.find('\n');
    s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
    size_t close = s.rfind("```");
    if (close != std::string_view::npos) s = s.substr(0, close);
  }
  return std::string(trim(s));
}

// The first '{' or '[' to the matching last '}' or ']'.
std::string json_span(const std::string& s) {
  size_t a = s.find_first_of("{[");
  if (a == std::string::npos) return {};
  size_t b = s.find_last_of(s[a] == '{' ? '}' : ']');
  if (b == std::string::npos || b < a) return s.substr(a);
  return s.substr(a, b - a + 1);
}

Result<ParsedAnswer> candidate_of(const nlohmann::json& j) {
  if (!j.is_object()) return Error::make("answer_parse_error", "an answer entry is not an object");
  auto ir = j.find("transformed_IR");
  if (ir == j.end() || !ir->is_string())
    return Error::make("answer_parse_error", "the answer has no string 'transformed_IR'");
  ParsedAnswer out;
  out.ir = ir->get<std::string>();
  for (const char* key : {"applied_strategy", "applied_strategies"}) {
    auto s = j.find(key);
    if (s == j.end()) continue;
    if (s->is_string()) out.strategy = s->get<std::string>();
    if (s->is_array() && !s->empty() && s->front().is_string())
      out.strategy = s->front().get<std::string>();
    break;
  }
  return out;
}

// A strategy label safe to put into a step text.
std::string step_label(const std::string& strategy) {
  std::string out;
  for (char c : strategy.substr(0, 80))
    out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out.empty() ? "unnamed" : out;
}

}  // namespace

Result<std::vector<ParsedAnswer>> parse_answer(std::string_view text) {
  if (text.size() > kMaxAnswerBytes)
    return Error::make("answer_parse_error", "the answer is larger than 4 MiB");
  std::string body = json_span(strip_fences(answer_region(text)));
  if (body.empty())
    return Error::make("answer_parse_error", "the answer contains no JSON object or list");
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Python-repr answers (the reference's multi-answer labels) use single quotes; LEIR never
    // contains a quote, so swapping them is safe for the fields we read.
    std::string swapped = body;
    for (char& c : swapped)
      if (c == '\'') c = '"';
    j = nlohmann::json::parse(swapped, nullptr, false);
  }
  if (j.is_discarded())
    return Error::make("answer_parse_error", "the answer is not valid JSON");
  std::vector<ParsedAnswer> out;
  if (j.is_array()) {
    for (const nlohmann::json& e : j) {
      Result<ParsedAnswer> c = candidate_of(e);
      if (!c.ok()) return std::move(c).error();
      out.push_back(std::move(c).value());
    }
  } else {
    Result<ParsedAnswer> c = candidate_of(j);
    if (!c.ok()) return std::move(c).error();
    out.push_back(std::move(c).value());
  }
  if (out.empty()) return Error::make("answer_parse_error", "the answer list is empty");
  return out;
}

std::string multi_step_prompt(const PolicyRequest& r, std::string_view workload) {
  std::string decls;
  for (const leir::TensorDecl& d : r.initial.decls) decls += "  " + leir::print(d) + "\n";
  std::string history = r.trace.empty() ? "none (this is the initial program)" : "";
  for (size_t i = 0; i < r.trace.size(); ++i) history += fmt::format("\n  {}. {}", i + 1, r.trace[i]);
  std::string failures;
  for (const std::string& f : r.failures) failures += "\n  - " + f;
  std::string menu;
  for (const strategy::Strategy* s : strategy::all_strategies())
    menu += (menu.empty() ? "" : ", ") + std::string(s->name());
  return fmt::format(
      "We optimize a tensor program step by step with {} search. Each state is a LEIR program; "
      "a step applies one strategy to it.\n"
      "Workload: {}. The known tensors (do not rename them or change their dtypes or shapes):\n"
      "{}"
      "Current program (depth {}, measured speedup {:.3f}x over the initial program):\n{}\n"
      "Steps taken from the initial program: {}\n"
      "{}"
      "Strategies you may use: {}.\n"
      "Task: give {} different programs, each numerically equivalent to the current one and "
      "expected to run faster on the CPU, each obtained from the current program by one "
      "strategy. Do not repeat the current program or undo the last step.\n"
      "Answer with <answer>[{{\"transformed_IR\": \"<LEIR body>\", \"applied_strategy\": "
      "\"<name>\"}}, ...]</answer>.",
      r.method, workload, decls, r.depth, r.speedup, leir::print_body(r.program.blocks), history,
      failures.empty() ? std::string()
                       : "Rejected attempts from this program (do not repeat them):" + failures +
                             "\n",
      menu, r.n);
}

std::vector<Proposal> LlmPolicy::propose(const PolicyRequest& request) {
  std::vector<Proposal> out;
  Result<std::vector<std::string>> texts =
      source_.answers(multi_step_prompt(request, workload_), request.n);
  if (!texts.ok()) {
    out.emplace_back("llm:call", Error::make("llm_call_error", texts.error().render()));
    return out;
  }
  for (const std::string& text : *texts) {
    Result<std::vector<ParsedAnswer>> parsed = parse_answer(text);
    if (!parsed.ok()) {
      out.emplace_back("llm:unparsed", std::move(parsed).error());
      continue;
    }
    for (ParsedAnswer& a : *parsed) {
      std::string step = "llm:" + step_label(a.strategy);
      Result<leir::Program> program = leir::parse_program(a.ir, "<model answer>");
      if (!program.ok()) {
        out.emplace_back(step, Error::make("leir_parse_error", program.error().render()));
        continue;
      }
      leir::Program p = std::move(program).value();
      // A bare body is normal (the prompt shows the declarations separately); declarations the
      // model did write are kept, and the verifier rejects them if they differ.
      if (p.decls.empty()) p.decls = request.initial.decls;
      out.emplace_back(step, std::move(p));
    }
  }
  return out;
}

}  // namespace steptp::search
