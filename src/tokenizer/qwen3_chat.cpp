// tokenizer/qwen3_chat.cpp — Qwen3's training-time chat rendering, statement by statement after
// the Jinja template in tokenizer_config.json (the tools branch and tool_calls left out).
#include "tokenizer/qwen3_chat.h"

#include <string_view>

namespace steptp::tokenizer {
namespace {

constexpr std::string_view kThinkOpen = "<think>";
constexpr std::string_view kThinkClose = "</think>";

// Python's str.lstrip('\n'), rstrip('\n') and strip('\n').
std::string_view lstrip_newlines(std::string_view s) {
  while (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return s;
}
std::string_view rstrip_newlines(std::string_view s) {
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}
std::string_view strip_newlines(std::string_view s) { return rstrip_newlines(lstrip_newlines(s)); }

bool is_tool_response(std::string_view content) {
  return content.starts_with("<tool_response>") && content.ends_with("</tool_response>");
}

}  // namespace

std::string render_qwen3_chat(const std::vector<ChatMessage>& messages) {
  std::string out;
  const size_t n = messages.size();
  if (n == 0) return out;
  if (messages[0].first == "system")
    out.append("<|im_start|>system\n").append(messages[0].second).append("<|im_end|>\n");

  // The last user message that is not a wrapped tool response: assistant turns after it are
  // the ones being trained with their reasoning.
  size_t last_query = n - 1;
  for (size_t k = n; k-- > 0;) {
    const auto& [role, content] = messages[k];
    if (role == "user" && !is_tool_response(content)) {
      last_query = k;
      break;
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const auto& [role, content] = messages[i];
    if (role == "user" || (role == "system" && i != 0)) {
      out.append("<|im_start|>").append(role).append("\n").append(content).append("<|im_end|>\n");
    } else if (role == "assistant") {
      std::string_view answer = content;
      std::string_view reasoning;
      if (const size_t first_close = answer.find(kThinkClose); first_close != answer.npos) {
        const size_t last_close = answer.rfind(kThinkClose);
        std::string_view before = rstrip_newlines(answer.substr(0, first_close));
        if (const size_t open = before.rfind(kThinkOpen); open != before.npos)
          before.remove_prefix(open + kThinkOpen.size());
        reasoning = lstrip_newlines(before);
        answer = lstrip_newlines(answer.substr(last_close + kThinkClose.size()));
      }
      out.append("<|im_start|>assistant\n");
      if (i > last_query && (i + 1 == n || !reasoning.empty())) {
        out.append("<think>\n").append(strip_newlines(reasoning)).append("\n</think>\n\n");
        out.append(lstrip_newlines(answer));
      } else {
        out.append(answer);
      }
      out.append("<|im_end|>\n");
    } else if (role == "tool") {
      if (i == 0 || messages[i - 1].first != "tool") out.append("<|im_start|>user");
      out.append("\n<tool_response>\n").append(content).append("\n</tool_response>");
      if (i + 1 == n || messages[i + 1].first != "tool") out.append("<|im_end|>\n");
    }
  }
  return out;
}

int64_t chat_token_count(const BpeTokenizer& tokenizer, const std::vector<ChatMessage>& messages) {
  // Rendered whole and counted once: counting message by message would split tokens that the
  // real sample merges across a boundary.
  return tokenizer.count(render_qwen3_chat(messages));
}

}  // namespace steptp::tokenizer
