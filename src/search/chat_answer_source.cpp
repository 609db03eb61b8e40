// search/chat_answer_source.cpp — AnswerSource over llm::ChatClient.
#include "search/chat_answer_source.h"

namespace steptp::search {

Result<std::vector<std::string>> ChatAnswerSource::answers(const std::string& prompt, int n) {
  llm::SamplingParams params;
  params.n = std::max(1, n);
  params.temperature = options_.temperature;
  params.max_tokens = options_.max_tokens;
  params.seed = options_.seed;
  std::vector<llm::ChatMessage> messages = {{"system", options_.system_prompt},
                                            {"user", prompt}};
  Result<llm::Completion> completion = client_->complete(messages, params);
  if (!completion.ok()) return std::move(completion).error();
  std::vector<std::string> out;
  for (const llm::Choice& c : completion->choices)
    out.push_back(c.content.empty() ? c.reasoning_content : c.content);
  return out;
}

}  // namespace steptp::search
