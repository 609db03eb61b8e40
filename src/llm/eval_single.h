// llm/eval_single.h — single-step evaluation: send each record's prompt to a model, parse the
// answer, and score it (parsed → well-formed → equivalent to the original → strategy named
// correctly), with pass rates overall and per strategy and failures by reason.
//
// Records are chat JSONL (docs/llm.md): {"messages":[...], "original_program": "...",
// "expected_strategy": "..." | [...], "id": ...}. Scoring never trusts the answer: every
// candidate goes through the verifier against the record's original program.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/answer_parser.h"
#include "llm/chat_client.h"
#include "support/error.h"
#include "verify/verify.h"

namespace steptp::llm {

struct EvalRecord {
  std::string id;                    // the record's "id", else "line N"
  std::vector<ChatMessage> prompt;   // every message before the final assistant message
  std::string reference_answer;      // the final assistant message ("" when absent)
  std::string original_program;      // a .leir program file (declarations + body)
  std::vector<std::string> expected_strategies;  // one for single-answer records, ≥1 for multi
  bool multi = false;                // the reference answer is a list
};

// Parses JSONL text; blank lines are skipped. Errors are "bad_record" naming the line: not
// JSON, no user message, no original_program (or one that does not parse), no expected strategy
// (neither the field nor a parseable reference answer).
Result<std::vector<EvalRecord>> parse_eval_records(std::string_view jsonl,
                                                   const StrategyNames& known,
                                                   std::string_view file = "<data>");

struct RecordOutcome {
  std::string id;
  std::string bucket;                 // the expected strategy, or "(multi)"
  bool answered = false;              // the server returned a completion
  bool parsed = false;
  bool well_formed = false;           // every candidate parses and is well formed
  bool equivalent = false;            // every candidate is verified equivalent and changed
  bool strategy_correct = false;      // every candidate names one of the expected strategies
  std::string failure;                // first failing stage's reason; "" when everything passed
  std::string detail;                 // its message
  std::vector<std::string> named_strategies;
  bool passed() const { return failure.empty(); }
  nlohmann::json to_json() const;
};

struct StageCounts {
  int64_t records = 0, answered = 0, parsed = 0, well_formed = 0, equivalent = 0,
          strategy_correct = 0, passed = 0;
  void add(const RecordOutcome& o);
  nlohmann::json to_json() const;  // counts and rates
};

struct EvalOptions {
  SamplingParams sampling;
  verify::VerifyOptions verify;
  StrategyNames known;                 // names an answer may use
  std::string default_system;          // prepended when a record has no system message ("" = no)
  size_t limit = 0;                    // evaluate only the first N records (0 = all)
};

struct EvalReport {
  StageCounts overall;
  std::map<std::string, StageCounts> per_strategy;
  std::map<std::string, int64_t> failures_by_reason;
  Usage usage;
  double seconds = 0;
  std::vector<RecordOutcome> records;  // input order
  nlohmann::json to_json(bool with_records) const;
  std::string render() const;          // a table for people
};

// Scores one model answer against one record (no network): the core of the evaluation.
RecordOutcome score_answer(const EvalRecord& record, std::string_view answer,
                           const EvalOptions& options);

// Runs the evaluation with the client's concurrency; `progress(done, total)` is called after
// each record from a worker thread, serialised.
EvalReport evaluate_single_step(ChatClient& client, const std::vector<EvalRecord>& records,
                                const EvalOptions& options,
                                const std::function<void(size_t, size_t)>& progress = nullptr);

}  // namespace steptp::llm
