// search/chat_answer_source.h — the llm policy's AnswerSource over an OpenAI-compatible server
// (llm::ChatClient): the prompt module's system and user messages, n samples per policy call.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llm/chat_client.h"
#include "search/llm_policy.h"

namespace steptp::search {

struct ChatSourceOptions {
  double temperature = 0.3;
  int max_tokens = 16384;
  int64_t seed = 42;
  std::optional<nlohmann::json> response_format;  // constrained decoding, when set
};

class ChatAnswerSource final : public AnswerSource {
 public:
  ChatAnswerSource(std::unique_ptr<llm::ChatClient> client, ChatSourceOptions options)
      : client_(std::move(client)), options_(std::move(options)) {}
  // Each choice's text (llm::Choice::text). A server that returns fewer than n choices (many ignore
  // "n") is asked again, with the next seeds, until n answers are in.
  Result<std::vector<std::string>> answers(const prompt::PromptInput& question, int n) override;
  llm::Usage usage() const { return client_->usage(); }
  llm::ChatClient& client() { return *client_; }

 private:
  std::unique_ptr<llm::ChatClient> client_;
  ChatSourceOptions options_;
};

}  // namespace steptp::search
