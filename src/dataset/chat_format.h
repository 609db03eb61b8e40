// dataset/chat_format.h — the chat samples (ms-swift / TRL `messages` JSONL): the system text,
// the user prompt (task, declarations, current LEIR, strategy menu) and the assistant answer
// `<think>CoT</think><answer>{JSON}</answer>`, for single- and multi-answer samples.
//
// Also the inverse of the prompt layout (parse_user_prompt), so that a sample can be checked or
// replayed from the JSONL alone. The wording is ours; the answer keys are the reference's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dataset/record.h"
#include "support/error.h"

namespace steptp::dataset {

std::string_view system_prompt();

// The strategy names offered to the model: every registered strategy, in registry order.
std::vector<std::string> strategy_menu();

// `n_answers` 0 asks for one answer (a JSON object); n ≥ 2 asks for at least n (a JSON list).
std::string user_prompt(const StepRecord& r, const std::vector<std::string>& menu, int n_answers);
std::string assistant_single(const StepRecord& r);
std::string assistant_multi(const std::vector<const StepRecord*>& labels);

// One JSONL line (no trailing newline): {"messages":[system, user, assistant]}.
std::string chat_line(std::string_view user, std::string_view assistant);

struct PromptParts {
  std::string model;
  std::string declarations;  // declaration lines, newline-terminated
  std::string program;       // the current LEIR body
};
// Reads back what user_prompt() wrote. Errors: "bad_prompt".
Result<PromptParts> parse_user_prompt(std::string_view prompt);

struct AnswerParts {
  std::string think;
  std::string answer;  // the JSON text between <answer> and </answer>
};
Result<AnswerParts> split_assistant(std::string_view content);

// A rough token estimate (bytes / 4, rounded up) for the statistics.
int64_t estimated_tokens(std::string_view text);

}  // namespace steptp::dataset
