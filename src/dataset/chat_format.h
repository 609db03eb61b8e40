// dataset/chat_format.h — the chat samples (ms-swift / TRL `messages` JSONL): the system and
// user messages come from prompt/chat_prompt.h (the one prompt of export, evaluation and
// search); this file adds the assistant answer `<think>CoT</think><answer>{JSON}</answer>` for
// single- and multi-answer samples and writes the JSONL line. The answer keys are the reference's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dataset/record.h"
#include "prompt/chat_prompt.h"
#include "support/error.h"

namespace steptp::dataset {

// The prompt of a record's original program: its workload, declarations and body, and the
// strategy steps of its provenance (synthetic dead-code injection is data augmentation, not a
// step the model took, so it is not shown). `n_answers` 1 asks for one answer (a JSON object);
// n >= 2 asks for at least n (a JSON list).
prompt::PromptInput prompt_input(const StepRecord& r, int n_answers);
std::string user_prompt(const StepRecord& r, int n_answers);
std::string assistant_single(const StepRecord& r);
std::string assistant_multi(const std::vector<const StepRecord*>& labels);

// LLaMA-Factory's dataset_info.json entries for the four chat files (sharegpt formatting of the
// "messages" column), so that `dataset_dir` can point at the output folder as it is.
nlohmann::json llama_factory_dataset_info();

// One JSONL line (no trailing newline): {"messages":[system, user, assistant]}.
std::string chat_line(std::string_view user, std::string_view assistant);

struct AnswerParts {
  std::string think;
  std::string answer;  // the JSON text between <answer> and </answer>
};
Result<AnswerParts> split_assistant(std::string_view content);

// A rough token estimate (bytes / 4, rounded up) for the statistics.
int64_t estimated_tokens(std::string_view text);

}  // namespace steptp::dataset
