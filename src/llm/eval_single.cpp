// llm/eval_single.cpp — reading questions, scoring answers, running the batch.
#include "llm/eval_single.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>

#include "leir/parser.h"
#include "llm/untrusted_json.h"
#include "prompt/chat_prompt.h"
#include "strategy/identify_step.h"

namespace steptp::llm {
namespace {

Error bad_record(std::string_view file, size_t line, std::string message) {
  return Error::make("bad_record", fmt::format("{}:{}: {}", file, line, message));
}

double rate(int64_t n, int64_t d) { return d == 0 ? 0.0 : static_cast<double>(n) / d; }

// One parsed line before merging: its prompt, original program and reference answer.
struct Record {
  std::string id;
  std::vector<ChatMessage> prompt;
  std::string answer;
  std::string task;
  leir::Program original;
  int asked = 0;  // 0: the prompt does not say (then the reference answer's form does)
};

Result<std::vector<ChatMessage>> read_messages(const nlohmann::json& j, std::string_view file,
                                               size_t line) {
  auto messages = j.find("messages");
  if (messages == j.end() || !messages->is_array() || messages->empty())
    return bad_record(file, line, "no \"messages\" array");
  std::vector<ChatMessage> all;
  for (const nlohmann::json& m : *messages) {
    if (!m.is_object() || !m.contains("role") || !m.contains("content") || !m["role"].is_string() ||
        !m["content"].is_string())
      return bad_record(file, line, "every message needs string \"role\" and \"content\"");
    std::string role = m["role"].get<std::string>();
    if (role != "system" && role != "user" && role != "assistant")
      return bad_record(file, line, fmt::format("unknown message role '{}'", role));
    all.push_back({std::move(role), m["content"].get<std::string>()});
  }
  return all;
}

Result<Record> read_record(const nlohmann::json& j, std::string_view file, size_t line) {
  if (!j.is_object()) return bad_record(file, line, "a record must be a JSON object");
  Record r;
  r.id = fmt::format("line {}", line);
  if (auto id = j.find("id"); id != j.end()) {
    if (id->is_string())
      r.id = id->get<std::string>();
    else if (id->is_number_integer())
      r.id = std::to_string(id->get<int64_t>());
  }
  auto messages = read_messages(j, file, line);
  if (!messages) return std::move(messages).error();
  std::vector<ChatMessage> all = std::move(messages).value();
  if (all.back().role == "assistant") {
    r.answer = all.back().content;
    all.pop_back();
  }
  auto user =
      std::find_if(all.rbegin(), all.rend(), [](const ChatMessage& m) { return m.role == "user"; });
  if (user == all.rend()) return bad_record(file, line, "no user message to send");

  // The original program: an explicit field, else the prompt's own declarations and body.
  std::string program_text;
  if (auto original = j.find("original_program"); original != j.end()) {
    if (!original->is_string())
      return bad_record(file, line, "\"original_program\" must be a string");
    program_text = original->get<std::string>();
    if (auto parsed = prompt::parse_user_message(user->content)) {
      r.task = parsed->task;
      r.asked = parsed->num_answers;
    }
  } else {
    auto parsed = prompt::parse_user_message(user->content);
    if (!parsed)
      return bad_record(
          file, line,
          parsed.error().message + " (give an \"original_program\" field for other prompts)");
    r.task = parsed->task;
    r.asked = parsed->num_answers;
    program_text = parsed->declarations + parsed->program + "\n";
  }
  auto program = leir::parse_program(program_text, fmt::format("{}:{}", file, line));
  if (!program) return bad_record(file, line, "original program: " + program.error().render());
  if (program->decls.empty())
    return bad_record(file, line, "the original program has no tensor declarations");
  r.original = std::move(program).value();
  r.prompt = std::move(all);
  return r;
}

// The reference answer's candidates as programs with the original's declarations.
Result<std::vector<Reference>> read_references(Record& r, const StrategyNames& known,
                                               std::string_view file, size_t line) {
  std::vector<Reference> out;
  if (r.answer.empty()) {
    r.asked = std::max(r.asked, 1);
    return out;
  }
  auto parsed = parse_answer(r.answer, known);
  if (!parsed) return bad_record(file, line, "reference answer: " + parsed.error().render());
  if (r.asked == 0)
    r.asked = parsed->is_list ? std::max<int>(2, static_cast<int>(parsed->candidates.size())) : 1;
  for (const Candidate& c : parsed->candidates) {
    auto program = leir::parse_program(c.transformed_ir, fmt::format("{}:{}", file, line));
    if (!program) return bad_record(file, line, "reference IR: " + program.error().render());
    if (program->decls.empty()) program->decls = r.original.decls;
    out.push_back({c.applied_strategy, std::move(program).value()});
  }
  return out;
}

std::string prompt_key(const std::vector<ChatMessage>& prompt) {
  std::string key;
  for (const ChatMessage& m : prompt) key += m.role + '\x1f' + m.content + '\x1e';
  return key;
}

void fail(std::string& failure, std::string& detail, std::string reason, std::string text) {
  if (!failure.empty()) return;  // keep the first reason
  failure = std::move(reason);
  detail = std::move(text);
}

// Scores one candidate; `program` receives its parsed program (with the original's
// declarations when it has none), or stays empty when the IR does not parse.
CandidateOutcome score_candidate(const EvalQuestion& q, const Candidate& c,
                                 const verify::Verifier& verifier, bool require_match,
                                 std::optional<leir::Program>& parsed_program) {
  CandidateOutcome o;
  o.claimed = c.applied_strategy;
  auto parsed = leir::parse_program(c.transformed_ir, "<answer>");
  if (!parsed) {
    fail(o.failure, o.detail, "leir_parse_error", parsed.error().render());
    return o;
  }
  parsed_program = std::move(parsed).value();
  leir::Program& program = *parsed_program;
  if (program.decls.empty()) program.decls = q.original.decls;
  if (program == q.original) {
    fail(o.failure, o.detail, "unchanged", "the answer is the original program");
    return o;
  }
  if (auto step = strategy::identify_step(q.original, program, o.claimed)) {
    o.legal = true;
    o.step = step->site;
  }
  verify::VerifyReport report = verifier.check(program);
  o.equivalent = report.equivalent();
  o.matched = std::any_of(q.references.begin(), q.references.end(), [&](const Reference& r) {
    return r.strategy == o.claimed && r.program == program;
  });
  if (!o.legal)
    fail(o.failure, o.detail, "illegal_step",
         fmt::format("no site of {} turns the original into this program", o.claimed));
  if (!o.equivalent)
    fail(o.failure, o.detail, std::string(verify::status_name(report.status)), report.message);
  if (!o.matched && require_match)
    fail(o.failure, o.detail, "no_match",
         fmt::format("({}, program) is none of the {} reference answers", o.claimed,
                     q.references.size()));
  return o;
}

}  // namespace

Result<std::vector<EvalQuestion>> read_eval_questions(std::string_view jsonl,
                                                      const StrategyNames& known,
                                                      std::string_view file) {
  std::vector<EvalQuestion> out;
  std::map<std::string, size_t> by_prompt;
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
    auto record = read_record(*j, file, line);
    if (!record) return std::move(record).error();
    auto references = read_references(*record, known, file, line);
    if (!references) return std::move(references).error();
    const std::string key = prompt_key(record->prompt);
    auto [it, inserted] = by_prompt.emplace(key, out.size());
    if (inserted) {
      EvalQuestion q;
      q.id = record->id;
      q.prompt = record->prompt;
      q.task = record->task;
      q.original = record->original;
      q.asked = record->asked;
      out.push_back(std::move(q));
    }
    EvalQuestion& q = out[it->second];
    if (!(q.original == record->original))
      return bad_record(file, line, "two records share a prompt but not an original program");
    ++q.records;
    if (!record->answer.empty()) q.reference_answers.push_back(record->answer);
    for (Reference& r : *references) {
      bool seen = std::any_of(q.references.begin(), q.references.end(), [&](const Reference& e) {
        return e.strategy == r.strategy && e.program == r.program;
      });
      if (!seen) q.references.push_back(std::move(r));
    }
  }
  return out;
}

QuestionOutcome score_answer(const EvalQuestion& q, std::string_view answer,
                             const EvalOptions& options) {
  QuestionOutcome o;
  o.id = q.id;
  o.task = q.task;
  o.asked = q.asked;
  o.answered = true;
  auto parsed = parse_answer(answer, options.known);
  if (!parsed) {
    fail(o.failure, o.detail, parsed.error().category, parsed.error().message);
    return o;
  }
  o.parsed = true;
  std::vector<Candidate> candidates = parsed->candidates;
  if (!q.multi() && candidates.size() > 1) {
    fail(o.failure, o.detail, "wrong_count",
         fmt::format("one answer was asked for, {} were given (the first is scored)",
                     candidates.size()));
    candidates.resize(1);
  }
  // A question at default shapes is verified on the compiled engine: the interpreter would
  // take minutes per answer there.
  verify::Verifier verifier(q.original, verify::sized_for(q.original, options.verify));
  if (verifier.original_failure()) {
    fail(o.failure, o.detail, "bad_record",
         "the question's original program fails verification: " +
             verifier.original_failure()->message);
    return o;
  }
  bool legal = true, equivalent = true, matched = true;
  std::vector<leir::Program> distinct;
  for (const Candidate& c : candidates) {
    std::optional<leir::Program> program;
    CandidateOutcome co = score_candidate(q, c, verifier, options.require_match, program);
    legal = legal && co.legal;
    equivalent = equivalent && co.equivalent;
    matched = matched && co.matched;
    if (!co.failure.empty())
      fail(o.failure, o.detail, co.failure,
           candidates.size() == 1 ? co.detail
                                  : fmt::format("answer {}: {}", o.candidates.size(), co.detail));
    if (program && std::find(distinct.begin(), distinct.end(), *program) == distinct.end())
      distinct.push_back(std::move(*program));
    o.candidates.push_back(std::move(co));
  }
  const bool enough = static_cast<int>(distinct.size()) >= q.asked;
  if (!enough)
    fail(o.failure, o.detail, "too_few",
         fmt::format("{} distinct programs given, {} asked for", distinct.size(), q.asked));
  o.legal = legal && enough;
  o.equivalent = equivalent;
  o.matched = matched;
  o.correct = o.failure.empty();
  return o;
}

EvalReport summarize(std::vector<QuestionOutcome> outcomes, const std::vector<EvalQuestion>& qs) {
  EvalReport report;
  for (size_t i = 0; i < outcomes.size() && i < qs.size(); ++i) report.records += qs[i].records;
  for (const QuestionOutcome& o : outcomes) {
    RateCounts& c = report.overall;
    ++c.total;
    c.parsed += o.parsed;
    c.legal += o.legal;
    c.equivalent += o.equivalent;
    c.matched += o.matched;
    c.correct += o.correct;
    if (!o.correct) ++report.failures_by_reason[o.failure];
    for (const CandidateOutcome& co : o.candidates) {
      RateCounts& s = report.per_strategy[co.claimed];
      ++s.total;
      ++s.parsed;
      s.legal += co.legal;
      s.equivalent += co.equivalent;
      s.matched += co.matched;
      s.correct += co.failure.empty();
    }
  }
  report.questions = std::move(outcomes);
  return report;
}

Result<EvalReport> evaluate_single_step(
    ChatClient& client, const std::vector<EvalQuestion>& questions, const EvalOptions& options,
    const std::function<void(size_t, size_t, int64_t)>& progress) {
  auto start = std::chrono::steady_clock::now();
  size_t n = options.limit > 0 ? std::min(options.limit, questions.size()) : questions.size();
  std::vector<std::vector<ChatMessage>> conversations;
  for (size_t i = 0; i < n; ++i) {
    std::vector<ChatMessage> msgs = questions[i].prompt;
    if (!options.default_system.empty() && msgs.front().role != "system")
      msgs.insert(msgs.begin(), {"system", options.default_system});
    conversations.push_back(std::move(msgs));
  }
  std::vector<QuestionOutcome> outcomes(n);
  std::mutex mu;
  size_t done = 0;
  int64_t correct = 0;
  std::optional<Error> fatal;
  // Scoring runs on the worker that received the answer, so verification overlaps with the
  // requests still in flight.
  client.complete_batch(conversations, options.sampling,
                        [&](size_t i, const Result<Completion>& r) {
                          QuestionOutcome o;
                          if (!r.ok() && is_endpoint_failure(r.error())) {
                            std::lock_guard lock(mu);
                            if (!fatal || fatal->category == "llm_cancelled") fatal = r.error();
                            client.cancel();
                            return;
                          }
                          if (r.ok()) {
                            const Choice& c = r->choices.front();
                            o = score_answer(questions[i], c.text(), options);
                          } else {
                            o.id = questions[i].id;
                            o.task = questions[i].task;
                            o.asked = questions[i].asked;
                            fail(o.failure, o.detail, r.error().category, r.error().message);
                          }
                          std::lock_guard lock(mu);
                          correct += o.correct;
                          outcomes[i] = std::move(o);
                          if (progress) progress(++done, n, correct);
                        });
  if (fatal)
    return Error::make(fatal->category,
                       fmt::format("endpoint {}: {}", client.endpoint(), fatal->message));
  EvalReport report = summarize(std::move(outcomes), questions);
  report.usage = client.usage();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

nlohmann::json CandidateOutcome::to_json() const {
  return {{"claimed", claimed}, {"step", step},       {"legal", legal},  {"equivalent", equivalent},
          {"matched", matched}, {"failure", failure}, {"detail", detail}};
}

nlohmann::json QuestionOutcome::to_json() const {
  nlohmann::json j = {{"id", id},
                      {"task", task},
                      {"asked", asked},
                      {"answered", answered},
                      {"parsed", parsed},
                      {"legal", legal},
                      {"equivalent", equivalent},
                      {"matched", matched},
                      {"correct", correct},
                      {"failure", failure},
                      {"detail", detail}};
  j["candidates"] = nlohmann::json::array();
  for (const CandidateOutcome& c : candidates) j["candidates"].push_back(c.to_json());
  return j;
}

nlohmann::json RateCounts::to_json() const {
  return {{"total", total},
          {"parsed", parsed},
          {"legal", legal},
          {"equivalent", equivalent},
          {"matched", matched},
          {"correct", correct},
          {"parse_rate", rate(parsed, total)},
          {"legal_rate", rate(legal, total)},
          {"equivalent_rate", rate(equivalent, total)},
          {"match_rate", rate(matched, total)},
          {"accuracy", rate(correct, total)}};
}

nlohmann::json EvalReport::to_json(bool per_question) const {
  nlohmann::json j;
  j["questions"] = overall.total;
  j["records"] = records;
  j["correct"] = overall.correct;
  j["accuracy"] = rate(overall.correct, overall.total);
  j["rates"] = overall.to_json();
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
  if (per_question) {
    j["per_question"] = nlohmann::json::array();
    for (const QuestionOutcome& o : questions) j["per_question"].push_back(o.to_json());
  }
  return j;
}

std::string EvalReport::render() const {
  auto pct = [](int64_t k, int64_t n) { return fmt::format("{:5.1f}%", 100.0 * rate(k, n)); };
  std::string out =
      fmt::format("{} questions ({} records): {} correct, accuracy {}\n", overall.total, records,
                  overall.correct, pct(overall.correct, overall.total));
  out += fmt::format("  parsed {}  legal step {}  verified equivalent {}  matched {}\n",
                     pct(overall.parsed, overall.total), pct(overall.legal, overall.total),
                     pct(overall.equivalent, overall.total), pct(overall.matched, overall.total));
  if (!per_strategy.empty()) {
    out += fmt::format("  {:<56} {:>6} {:>6} {:>6} {:>6}\n", "candidates by strategy named", "n",
                       "legal", "equiv", "match");
    for (const auto& [name, c] : per_strategy)
      out += fmt::format("  {:<56} {:>6} {} {} {}\n", name, c.total, pct(c.legal, c.total),
                         pct(c.equivalent, c.total), pct(c.matched, c.total));
  }
  if (!failures_by_reason.empty()) {
    out += "  failures by reason:\n";
    for (const auto& [reason, count] : failures_by_reason)
      out += fmt::format("    {:<24} {}\n", reason, count);
  }
  out += fmt::format(
      "  llm: {} calls, {} requests, {} retries, {} failed; tokens {} prompt + {} "
      "completion; {:.1f} s\n",
      usage.calls, usage.requests, usage.retries, usage.failed, usage.prompt_tokens,
      usage.completion_tokens, seconds);
  return out;
}

}  // namespace steptp::llm
