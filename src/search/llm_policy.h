// search/llm_policy.h — the llm policy: asks a model for whole transformed programs and treats
// every answer as untrusted input (extracted, parsed, then verified by the engine like any
// other candidate).
//
// The model is reached through AnswerSource, so the policy does not care whether answers come
// from an OpenAI-compatible server (llm::ChatClient, see chat_answer_source.h) or a test script.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "search/engine.h"

namespace steptp::search {

// Raw model outputs for one prompt: up to n completions (or one completion holding a list).
class AnswerSource {
 public:
  virtual ~AnswerSource() = default;
  virtual Result<std::vector<std::string>> answers(const std::string& prompt, int n) = 0;
};

// One candidate extracted from an answer.
struct ParsedAnswer {
  std::string strategy;  // applied_strategy (or the first of applied_strategies); may be empty
  std::string ir;        // transformed_IR: a LEIR body or a whole program file
};

// Extracts the candidates of one raw answer: the text inside <answer>…</answer> (also the
// `<\answer>` spelling), else what follows the last </think>, else the whole text; code fences
// are stripped; the JSON is an object or a list of objects with `transformed_IR` and
// `applied_strategy` / `applied_strategies`; a Python-repr answer (single quotes) is accepted.
// Errors: "answer_parse_error" naming what was missing.
Result<std::vector<ParsedAnswer>> parse_answer(std::string_view text);

// Our multi-step prompt: the method, the current program with its declarations, the trace and
// speedup so far, this state's rejected attempts with their real reasons, the strategy menu and
// the task (n numerically equivalent, faster programs as JSON).
std::string multi_step_prompt(const PolicyRequest& request, std::string_view workload);

class LlmPolicy final : public Policy {
 public:
  LlmPolicy(AnswerSource& source, std::string workload)
      : source_(source), workload_(std::move(workload)) {}
  std::string_view name() const override { return "llm"; }
  // One call to the source per propose(). Each extracted IR becomes a proposal "llm:<strategy>";
  // an IR without declarations gets the initial program's.
  // Failures become proposals carrying "llm_call_error", "answer_parse_error" or
  // "leir_parse_error", so the engine counts them like any other rejected candidate.
  std::vector<Proposal> propose(const PolicyRequest& request) override;

 private:
  AnswerSource& source_;
  std::string workload_;
};

}  // namespace steptp::search
