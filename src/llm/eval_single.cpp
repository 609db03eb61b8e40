// llm/eval_single.cpp — reading eval records, scoring answers, running the batch.
#include "llm/eval_single.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include <fmt/format.h>

#include "leir/parser.h"
#include "llm/untrusted_json.h"

namespace steptp::llm {
namespace {

Error bad_record(std::string_view file, size_t line, std::string message) {
  return Error::make("bad_record", fmt::format("{}:{}: {}", file, line, message));
}

double rate(int64_t n, int64_t d) { return d == 0 ? 0.0 : static_cast<double>(n) / d; }

Result<EvalRecord> parse_record(const nlohmann::json& j, const StrategyNames& known,
                                std::string_view file, size_t line) {
  if (!j.is_object()) return bad_record(file, line, "a record must be a JSON object");
  EvalRecord r;
  r.id = fmt::format("line {}", line);
  if (auto id = j.find("id"); id != j.end()) {
    if (id->is_string()) r.id = id->get<std::string>();
    else if (id->is_number_integer()) r.id = std::to_string(id->get<int64_t>());
  }
  auto messages = j.find("messages");
  if (messages == j.end() || !messages->is_array() || messages->empty())
    return bad_record(file, line, "no \"messages\" array");
  std::vector<ChatMessage> all;
  for (const nlohmann::json& m : *messages) {
    if (!m.is_object() || !m.contains("role") || !m.contains("content") ||
        !m["role"].is_string() || !m["content"].is_string())
      return bad_record(file, line, "every message needs string \"role\" and \"content\"");
    std::string role = m["role"].get<std::string>();
    if (role != "system" && role != "user" && role != "assistant")
      return bad_record(file, line, fmt::format("unknown message role '{}'", role));
    all.push_back({std::move(role), m["content"].get<std::string>()});
  }
  if (all.back().role == "assistant") {
    r.reference_answer = all.back().content;
    all.pop_back();
  }
  if (std::none_of(all.begin(), all.end(), [](const ChatMessage& m) { return m.role == "user"; }))
    return bad_record(file, line, "no user message to send");
  r.prompt = std::move(all);

  auto original = j.find("original_program");
  if (original == j.end() || !original->is_string())
    return bad_record(file, line, "no \"original_program\" (the program file text with "
                                  "declarations) to verify answers against");
  r.original_program = original->get<std::string>();
  auto program = leir::parse_program(r.original_program, fmt::format("{}:{}", file, line));
  if (!program) return bad_record(file, line, "original_program: " + program.error().render());
  if (program->decls.empty())
    return bad_record(file, line, "original_program has no tensor declarations");

  // The reference answer tells whether the record is multi-answer and, by default, which
  // strategies are expected.
  std::optional<ParsedAnswer> reference;
  if (!r.reference_answer.empty()) {
    auto parsed = parse_answer(r.reference_answer, known);
    if (parsed) reference = std::move(parsed).value();
  }
  if (auto expected = j.find("expected_strategy"); expected != j.end()) {
    std::vector<nlohmann::json> items;
    if (expected->is_array()) items.assign(expected->begin(), expected->end());
    else items.push_back(*expected);
    for (const nlohmann::json& e : items) {
      std::string name = e.is_string() ? known.canonical(e.get<std::string>()) : "";
      if (name.empty())
        return bad_record(file, line, "expected_strategy names no known strategy");
      r.expected_strategies.push_back(name);
    }
    r.multi = expected->is_array() && expected->size() > 1;
  } else if (reference) {
    for (const Candidate& c : reference->candidates) r.expected_strategies.push_back(c.applied_strategy);
  } else {
    return bad_record(file, line, "no \"expected_strategy\" and no parseable assistant answer");
  }
  if (reference && reference->is_list) r.multi = true;
  std::sort(r.expected_strategies.begin(), r.expected_strategies.end());
  r.expected_strategies.erase(std::unique(r.expected_strategies.begin(), r.expected_strategies.end()),
                              r.expected_strategies.end());
  if (r.expected_strategies.empty()) return bad_record(file, line, "no expected strategy");
  return r;
}

void fail(RecordOutcome& o, std::string reason, std::string detail) {
  if (!o.failure.empty()) return;  // keep the first failing stage
  o.failure = std::move(reason);
  o.detail = std::move(detail);
}

}  // namespace

Result<std::vector<EvalRecord>> parse_eval_records(std::string_view jsonl,
                                                   const StrategyNames& known,
                                                   std::string_view file) {
  std::vector<EvalRecord> out;
  size_t line = 0, pos = 0;
  while (pos < jsonl.size()) {
    size_t end = jsonl.find('\n', pos);
    if (end == std::string_view::npos) end = jsonl.size();
    std::string_view text = jsonl.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto j = parse_untrusted_json(text, "bad_record");
    if (!j) return bad_record(file, line, j.error().message);
    auto r = parse_record(*j, known, file, line);
    if (!r) return std::move(r).error();
    out.push_back(std::move(r).value());
  }
  return out;
}

nlohmann::json RecordOutcome::to_json() const {
  return {{"id", id},
          {"bucket", bucket},
          {"answered", answered},
          {"parsed", parsed},
          {"well_formed", well_formed},
          {"equivalent", equivalent},
          {"strategy_correct", strategy_correct},
          {"passed", passed()},
          {"failure", failure},
          {"detail", detail},
          {"named_strategies", named_strategies}};
}

void StageCounts::add(const RecordOutcome& o) {
  ++records;
  answered += o.answered;
  parsed += o.parsed;
  well_formed += o.well_formed;
  equivalent += o.equivalent;
  strategy_correct += o.strategy_correct;
  passed += o.passed();
}

nlohmann::json StageCounts::to_json() const {
  nlohmann::json j = {{"records", records},         {"answered", answered},
                      {"parsed", parsed},           {"well_formed", well_formed},
                      {"equivalent", equivalent},   {"strategy_correct", strategy_correct},
                      {"passed", passed}};
  j["rates"] = {{"answered", rate(answered, records)},
                {"parsed", rate(parsed, records)},
                {"well_formed", rate(well_formed, records)},
                {"equivalent", rate(equivalent, records)},
                {"strategy_correct", rate(strategy_correct, records)},
                {"passed", rate(passed, records)}};
  return j;
}

RecordOutcome score_answer(const EvalRecord& record, std::string_view answer,
                           const EvalOptions& options) {
  RecordOutcome o;
  o.id = record.id;
  o.bucket = record.multi ? "(multi)" : record.expected_strategies.front();
  o.answered = true;
  auto parsed = parse_answer(answer, options.known);
  if (!parsed) {
    fail(o, parsed.error().category, parsed.error().message);
    return o;
  }
  o.parsed = true;
  auto original = leir::parse_program(record.original_program, "<original>");
  STEPTP_CHECK(original.ok(), "eval records are validated when read");

  bool all_well_formed = true, all_equivalent = true, all_named = true;
  std::string equivalence_failure, equivalence_detail, naming_detail;
  for (size_t i = 0; i < parsed->candidates.size(); ++i) {
    const Candidate& c = parsed->candidates[i];
    o.named_strategies.push_back(c.applied_strategy);
    const std::string which =
        parsed->candidates.size() == 1 ? std::string("the answer") : fmt::format("answer {}", i);
    if (!std::binary_search(record.expected_strategies.begin(), record.expected_strategies.end(),
                            c.applied_strategy)) {
      all_named = false;
      if (naming_detail.empty())
        naming_detail = fmt::format("{} names {}, expected {}", which, c.applied_strategy,
                                    fmt::join(record.expected_strategies, " or "));
    }
    verify::VerifyReport report =
        verify::verify_text(record.original_program, c.transformed_ir, options.verify);
    if (report.side == verify::Side::kOriginal && !report.equivalent()) {
      fail(o, "bad_record", "the record's original program fails verification: " + report.message);
      return o;
    }
    const bool formed = report.status != verify::Status::kParseError &&
                        report.status != verify::Status::kIllFormed;
    if (!formed) {
      all_well_formed = false;
      all_equivalent = false;
      fail(o, std::string(verify::status_name(report.status)), which + ": " + report.message);
      continue;
    }
    if (!report.equivalent()) {
      all_equivalent = false;
      if (equivalence_failure.empty()) {
        equivalence_failure = verify::status_name(report.status);
        equivalence_detail = which + ": " + report.message;
      }
      continue;
    }
    // An answer that returns the original program is equivalent but is not a step.
    auto candidate = leir::parse_program(c.transformed_ir, "<candidate>");
    if (candidate) {
      leir::Program p = std::move(candidate).value();
      if (p.decls.empty()) p.decls = original->decls;
      if (p == *original) {
        all_equivalent = false;
        if (equivalence_failure.empty()) {
          equivalence_failure = "unchanged";
          equivalence_detail = which + " is the original program";
        }
      }
    }
  }
  o.well_formed = all_well_formed;
  o.equivalent = all_equivalent;
  o.strategy_correct = all_named;
  if (!equivalence_failure.empty()) fail(o, equivalence_failure, equivalence_detail);
  if (!all_named) fail(o, "wrong_strategy", naming_detail);
  return o;
}

EvalReport evaluate_single_step(ChatClient& client, const std::vector<EvalRecord>& records,
                                const EvalOptions& options,
                                const std::function<void(size_t, size_t)>& progress) {
  auto start = std::chrono::steady_clock::now();
  size_t n = options.limit > 0 ? std::min(options.limit, records.size()) : records.size();
  std::vector<std::vector<ChatMessage>> conversations;
  for (size_t i = 0; i < n; ++i) {
    std::vector<ChatMessage> msgs = records[i].prompt;
    if (!options.default_system.empty() && msgs.front().role != "system")
      msgs.insert(msgs.begin(), {"system", options.default_system});
    conversations.push_back(std::move(msgs));
  }
  EvalReport report;
  report.records.resize(n);
  std::mutex mu;
  size_t done = 0;
  // Scoring runs on the worker that received the answer, so verification overlaps with the
  // requests still in flight.
  client.complete_batch(conversations, options.sampling,
                        [&](size_t i, const Result<Completion>& r) {
    RecordOutcome o;
    if (r.ok()) {
      o = score_answer(records[i], r->choices.front().content, options);
    } else {
      o.id = records[i].id;
      o.bucket = records[i].multi ? "(multi)" : records[i].expected_strategies.front();
      fail(o, r.error().category, r.error().message);
    }
    std::lock_guard lock(mu);
    report.records[i] = std::move(o);
    if (progress) progress(++done, n);
  });
  for (const RecordOutcome& o : report.records) {
    report.overall.add(o);
    report.per_strategy[o.bucket].add(o);
    if (!o.passed()) ++report.failures_by_reason[o.failure];
  }
  report.usage = client.usage();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

nlohmann::json EvalReport::to_json(bool with_records) const {
  nlohmann::json j;
  j["overall"] = overall.to_json();
  j["per_strategy"] = nlohmann::json::object();
  for (const auto& [name, counts] : per_strategy) j["per_strategy"][name] = counts.to_json();
  j["failures_by_reason"] = failures_by_reason;
  j["usage"] = {{"calls", usage.calls},
                {"requests", usage.requests},
                {"retries", usage.retries},
                {"succeeded", usage.succeeded},
                {"failed", usage.failed},
                {"prompt_tokens", usage.prompt_tokens},
                {"completion_tokens", usage.completion_tokens},
                {"failures_by_reason", usage.failures_by_reason},
                {"retries_by_reason", usage.retries_by_reason}};
  j["seconds"] = seconds;
  if (with_records) {
    j["records"] = nlohmann::json::array();
    for (const RecordOutcome& o : records) j["records"].push_back(o.to_json());
  }
  return j;
}

std::string EvalReport::render() const {
  auto row = [](std::string_view name, const StageCounts& c) {
    auto pct = [&](int64_t k) { return fmt::format("{:5.1f}%", 100.0 * rate(k, c.records)); };
    return fmt::format("{:<56} {:>6} {} {} {} {} {}\n", name, c.records, pct(c.parsed),
                       pct(c.well_formed), pct(c.equivalent), pct(c.strategy_correct),
                       pct(c.passed));
  };
  std::string out = fmt::format("{:<56} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}\n", "strategy",
                                "n", "parsed", "formed", "equiv", "named", "pass");
  for (const auto& [name, counts] : per_strategy) out += row(name, counts);
  out += row("overall", overall);
  if (!failures_by_reason.empty()) {
    out += "failures by reason:\n";
    for (const auto& [reason, count] : failures_by_reason)
      out += fmt::format("  {:<24} {}\n", reason, count);
  }
  out += fmt::format("llm: {} calls, {} requests, {} retries, {} failed; tokens {} prompt + {} "
                     "completion; {:.1f} s\n",
                     usage.calls, usage.requests, usage.retries, usage.failed,
                     usage.prompt_tokens, usage.completion_tokens, seconds);
  return out;
}

}  // namespace steptp::llm
