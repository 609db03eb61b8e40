// search/chat_answer_source.cpp — AnswerSource over llm::ChatClient.
#include "search/chat_answer_source.h"

namespace steptp::search {

Result<std::vector<std::string>> ChatAnswerSource::answers(const prompt::PromptInput& question,
                                                           int n) {
  n = std::max(1, n);
  const std::vector<llm::ChatMessage> messages = {{"system", std::string(prompt::system_message())},
                                                  {"user", prompt::user_message(question)}};
  std::vector<std::string> out;
  for (int request = 0; static_cast<int>(out.size()) < n && request < n; ++request) {
    llm::SamplingParams params;
    params.n = n - static_cast<int>(out.size());
    params.temperature = options_.temperature;
    params.max_tokens = options_.max_tokens;
    params.seed = options_.seed + request;
    params.response_format = options_.response_format;
    Result<llm::Completion> completion = client_->complete(messages, params);
    if (!completion.ok()) return std::move(completion).error();
    for (const llm::Choice& c : completion->choices)
      if (static_cast<int>(out.size()) < n) out.push_back(c.text());
  }
  return out;
}

}  // namespace steptp::search
