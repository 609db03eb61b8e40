// prompt/chat_prompt.h — the one place that renders what a model is asked: the system message
// and the user message for one program state (task, declarations, current LEIR, the steps that
// led to it, the strategy menu, the answer format).
//
// The dataset export, single-step evaluation and the search's llm policy all call it, so a model
// trained on the exported samples is asked in exactly the form it learned. It only renders and
// reads back prompts; model answers are parsed by llm/answer_parser.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::prompt {

struct PromptInput {
  std::string task;                  // the workload (PyTorch module) name, e.g. "Softmax"
  std::string declarations;          // one declaration per line, each newline-terminated
  std::string program;               // the current body, canonical LEIR on one line
  std::vector<std::string> history;  // replayable steps from the imported program, oldest first
  int num_answers = 1;               // 1: one answer (a JSON object); n >= 2: at least n (a list)
};

// The state of a search or a dataset record as prompt input: declarations and body printed
// canonically.
PromptInput prompt_input(std::string task, const leir::Program& program,
                         std::vector<std::string> history, int num_answers);

std::string_view system_message();
std::string user_message(const PromptInput& in);

// The strategy names offered to the model: every registered strategy, in registry order.
const std::vector<std::string>& strategy_menu();

// Reads back what user_message() wrote (task, declarations, program, history and the number of
// answers asked). Errors: "bad_prompt" naming the part that is missing.
Result<PromptInput> parse_user_message(std::string_view text);

}  // namespace steptp::prompt
