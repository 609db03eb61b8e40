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

// The llm module's multi-step prompt (llm::multi_step_prompt) for this search state: the method,
// the current program with its declarations, the path and speedup so far, this state's rejected
// attempts with their real reasons, the strategy menu and the task (n programs as JSON).
std::string multi_step_prompt(const PolicyRequest& request, std::string_view workload);

class LlmPolicy final : public Policy {
 public:
  LlmPolicy(AnswerSource& source, std::string workload)
      : source_(source), workload_(std::move(workload)) {}
  std::string_view name() const override { return "llm"; }
  // One call to the source per propose(). Answers are read by llm::parse_answer (a known
  // strategy name is required); each IR becomes a proposal "llm:<strategy>", and an IR without
  // declarations gets the initial program's.
  // Failures become proposals carrying "llm_call_error", "answer_parse_error" or
  // "leir_parse_error", so the engine counts them like any other rejected candidate.
  std::vector<Proposal> propose(const PolicyRequest& request) override;

 private:
  AnswerSource& source_;
  std::string workload_;
};

}  // namespace steptp::search
