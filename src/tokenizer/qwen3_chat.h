// tokenizer/qwen3_chat.h — conversations rendered and counted the way Qwen3's chat template
// (tokenizer_config.json) renders them for training: no tools, no generation prompt.
//
//   <|im_start|>{role}\n{content}<|im_end|>\n           per system / user message
//   <|im_start|>assistant\n<think>\n{reasoning}\n</think>\n\n{answer}<|im_end|>\n
//                                                      assistant after the last user query
//   <|im_start|>assistant\n{answer}<|im_end|>\n          earlier assistant turns
//   <|im_start|>user\n<tool_response>\n{content}\n</tool_response><|im_end|>\n   tool messages
//
// An assistant content "...<think>R</think>A" is split as the template splits it: A is the text
// after the last </think> (leading newlines dropped), R the text between the last <think> and the
// first </think> (surrounding newlines dropped). The final assistant turn always gets a think
// block, an empty one when its content has none; earlier turns lose their reasoning unless a
// later user query has not happened yet. Roles other than system, user, assistant and tool
// render nothing, as in the template. Consecutive tool messages share one user turn.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"

namespace steptp::tokenizer {

using ChatMessage = std::pair<std::string, std::string>;  // {role, content}

// The conversation as the template renders it (add_generation_prompt false, no tools).
std::string render_qwen3_chat(const std::vector<ChatMessage>& messages);

// Tokens of render_qwen3_chat(messages): the length of one training sample. 0 for no messages.
int64_t chat_token_count(const BpeTokenizer& tokenizer, const std::vector<ChatMessage>& messages);

}  // namespace steptp::tokenizer
