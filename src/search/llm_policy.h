// search/llm_policy.h — the llm policy: asks a model for whole transformed programs and treats
// every answer as untrusted input (extracted, parsed, identified as a registered step where one
// gives it, then verified by the engine like any other candidate).
//
// The model is reached through AnswerSource, so the policy does not care whether answers come
// from an OpenAI-compatible server (llm::ChatClient, see chat_answer_source.h) or a test script.
// The question is the dataset's prompt (prompt/chat_prompt.h), so a model trained on exported
// samples is asked in the form it learned.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prompt/chat_prompt.h"
#include "search/engine.h"

namespace steptp::search {

// Raw model outputs for one prompt: up to n completions (or one completion holding a list).
// An Error the source returns is a failed call; llm::is_endpoint_failure tells whether it means
// the endpoint is unusable.
class AnswerSource {
 public:
  virtual ~AnswerSource() = default;
  virtual Result<std::vector<std::string>> answers(const prompt::PromptInput& question, int n) = 0;
};

// The prompt input for this search state: the workload, the current program with its
// declarations, and the steps from the initial program (one answer asked per sample).
prompt::PromptInput search_prompt_input(const PolicyRequest& request, std::string_view workload);

class LlmPolicy final : public Policy {
 public:
  LlmPolicy(AnswerSource& source, std::string workload)
      : source_(source), workload_(std::move(workload)) {}
  std::string_view name() const override { return "llm"; }
  // One call to the source per propose(). Answers are read by llm::parse_answer (a known
  // strategy name is required). A program that one registered step gives is proposed under that
  // step's replayable text with the model's claim "llm:<strategy>" beside it; any other program
  // is proposed as "llm:<strategy>". An IR without declarations gets the initial program's.
  // Unusable answers become proposals carrying "answer_parse_error" or "leir_parse_error", so
  // the engine counts them like any other rejected candidate. A failed call that shows the
  // endpoint unusable ends the search: it is kept in fatal_error() and no more calls are made.
  std::vector<Proposal> propose(const PolicyRequest& request) override;
  const std::optional<Error>& fatal_error() const { return fatal_; }

 private:
  AnswerSource& source_;
  std::string workload_;
  std::optional<Error> fatal_;
};

}  // namespace steptp::search
