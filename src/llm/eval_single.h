// llm/eval_single.h — single-step evaluation on the splits `build-dataset` writes: every
// distinct prompt is one question, asked once; the model's answer is parsed, checked to be a
// legal step of the strategy it names, verified equivalent, and matched against every reference
// answer the split holds for that prompt.
//
// Records are chat JSONL ({"messages":[system, user, assistant]}); the original program is read
// back from the user message (prompt/chat_prompt.h) or taken from an "original_program" field.
// Scoring never trusts the answer, and never trusts the references either: both go through the
// same checks. A server that cannot be used is an error; a model that answers badly is counted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "llm/answer_parser.h"
#include "llm/chat_client.h"
#include "support/error.h"
#include "verify/verify.h"

namespace steptp::llm {

// One reference answer: a strategy and the program it gives (canonical, declarations included).
struct Reference {
  std::string strategy;
  leir::Program program;
};

struct EvalQuestion {
  std::string id;                   // the first record's "id", else "line N"
  std::vector<ChatMessage> prompt;  // the messages sent: every message before the answer
  std::string task;                 // the workload named by the prompt ("" if unknown)
  leir::Program original;
  int asked = 1;                               // answers the prompt asks for (>= 2: a list)
  std::vector<Reference> references;           // of every record with this prompt, de-duplicated
  std::vector<std::string> reference_answers;  // raw assistant texts, in record order
  int records = 0;                             // records that share this prompt
  bool multi() const { return asked >= 2; }
};

// Reads chat JSONL into questions (records with byte-identical prompts merged, in order of
// first appearance; blank lines skipped). Errors are "bad_record" naming file and line: not
// JSON, no messages, no user message, an original program that cannot be read, a reference
// answer that does not parse.
Result<std::vector<EvalQuestion>> read_eval_questions(std::string_view jsonl,
                                                      const StrategyNames& known,
                                                      std::string_view file = "<data>");

struct CandidateOutcome {
  std::string claimed;  // the strategy the answer names
  std::string step;     // the legal site that gives the program ("" when none does)
  bool legal = false;   // a site of the claimed strategy turns the original into it
  bool equivalent = false;
  bool matched = false;  // (claimed, program) is one of the question's references
  std::string failure;   // why it is not correct ("" when it is)
  std::string detail;
  nlohmann::json to_json() const;
};

struct QuestionOutcome {
  std::string id;
  std::string task;
  int asked = 1;
  bool answered = false;    // the server returned a completion
  bool parsed = false;      // the answer's JSON was readable
  bool legal = false;       // every candidate is a legal step (and there are enough)
  bool equivalent = false;  // every candidate is verified equivalent
  bool matched = false;     // every candidate matches a reference
  bool correct = false;     // all of the above
  std::string failure;      // the first reason it is not correct
  std::string detail;
  std::vector<CandidateOutcome> candidates;
  nlohmann::json to_json() const;
};

struct RateCounts {
  int64_t total = 0, parsed = 0, legal = 0, equivalent = 0, matched = 0, correct = 0;
  nlohmann::json to_json() const;
};

struct EvalOptions {
  SamplingParams sampling;
  verify::VerifyOptions verify;
  StrategyNames known;         // names an answer may use
  std::string default_system;  // prepended when a question has no system message ("" = none)
  size_t limit = 0;            // evaluate only the first N questions (0 = all)
  // A candidate that matches no reference fails ("no_match"); off for a reward without
  // references, where a legal, equivalent step is correct.
  bool require_match = true;
};

struct EvalReport {
  RateCounts overall;                              // over questions
  std::map<std::string, RateCounts> per_strategy;  // over candidates, by the strategy named
  std::map<std::string, int64_t> failures_by_reason;
  Usage usage;
  double seconds = 0;
  int64_t records = 0;                     // records behind the questions evaluated
  std::vector<QuestionOutcome> questions;  // input order
  // {"questions", "correct", "accuracy", "records", "rates", "per_strategy", "failures_by_reason",
  //  "usage", "seconds"} (+ "per_question" when asked).
  nlohmann::json to_json(bool per_question) const;
  std::string render() const;  // a table for people
};

// Scores one answer text against one question (no network): the core of the evaluation.
QuestionOutcome score_answer(const EvalQuestion& question, std::string_view answer,
                             const EvalOptions& options);

// Aggregates scored questions into a report (overall, per strategy, failures by reason).
EvalReport summarize(std::vector<QuestionOutcome> outcomes, const std::vector<EvalQuestion>& qs);

// Asks the model every question with the client's concurrency and scores the answers as they
// arrive. `progress(done, total, correct)` is called after each question, serialised. Errors:
// the endpoint is unusable (is_endpoint_failure): the remaining requests are cancelled and the
// error names the endpoint.
Result<EvalReport> evaluate_single_step(
    ChatClient& client, const std::vector<EvalQuestion>& questions, const EvalOptions& options,
    const std::function<void(size_t, size_t, int64_t)>& progress = nullptr);

}  // namespace steptp::llm
