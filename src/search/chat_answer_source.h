// search/chat_answer_source.h — the llm policy's AnswerSource over an OpenAI-compatible server
// (llm::ChatClient): one chat request per policy call, n samples, the system prompt of the
// multi-step search.
#pragma once

#include <memory>
#include <string>

#include "llm/chat_client.h"
#include "search/llm_policy.h"

namespace steptp::search {

struct ChatSourceOptions {
  std::string system_prompt = "You are a helpful IR optimization assistant.";
  double temperature = 0.3;
  int max_tokens = 16384;
  int64_t seed = 42;
};

class ChatAnswerSource final : public AnswerSource {
 public:
  ChatAnswerSource(std::unique_ptr<llm::ChatClient> client, ChatSourceOptions options)
      : client_(std::move(client)), options_(std::move(options)) {}
  // Each choice's content; a choice with empty content falls back to its reasoning text (some
  // servers put everything there), which llm::parse_answer then searches for the answer.
  Result<std::vector<std::string>> answers(const std::string& prompt, int n) override;
  llm::Usage usage() const { return client_->usage(); }

 private:
  std::unique_ptr<llm::ChatClient> client_;
  ChatSourceOptions options_;
};

}  // namespace steptp::search
