// llm/prompts.h — the text steptp sends to a model: the system prompt, the single-step prompt
// (one transformation of the current program) and the multi-step prompt (one step of a search,
// with the path so far, real failure reasons and the target's binding and memory rules).
//
// Our own wording, deterministic: the same inputs give byte-identical text. Prompts only read
// Programs; they never parse model output (answer_parser.h does).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "leir/ir.h"
#include "llm/answer_parser.h"

namespace steptp::llm {

struct StrategyMenuEntry {
  std::string name;
  std::string summary;  // one line; empty when the strategy has no implementation yet
};

// The reference's 44 strategy names in index order, with the registered strategies' summaries.
std::vector<StrategyMenuEntry> registered_strategy_menu();
// The names an answer may use: all 44 reference names.
StrategyNames registered_strategy_names();

std::string system_prompt();

struct SingleStepPrompt {
  std::string task;                     // workload name, e.g. "Softmax"; may be empty
  leir::Program program;                // declarations + body
  std::vector<StrategyMenuEntry> menu;  // usually registered_strategy_menu()
  int num_answers = 1;                  // > 1 asks for a JSON list of that many distinct steps
};
std::string single_step_prompt(const SingleStepPrompt& in);

enum class Target { kCpu, kCuda };
std::string_view target_name(Target t);  // "cpu" | "cuda"

struct PathStep {
  std::string strategy;
  std::optional<double> speedup;  // of the program after this step, over the root
};

// A candidate already tried from the current program, with the verifier's real verdict.
struct FailedAttempt {
  std::string strategy;       // as the model named it ("" when the answer did not parse)
  std::string reason;         // "mismatch: max abs error 3.2e-01 in C[0,5]", "parse_error: ..."
  std::string transformed_ir; // quoted (shortened to kMaxQuotedIr bytes); may be empty
};

struct MultiStepPrompt {
  std::string task;
  std::string method;                   // "beam search", "MCTS", ... ("" to omit)
  leir::Program current;
  std::vector<PathStep> path;           // root → current, oldest first
  std::optional<double> current_speedup;
  std::vector<FailedAttempt> failed;    // most recent last; only the last kMaxFailed are shown
  Target target = Target::kCuda;
  std::vector<StrategyMenuEntry> menu;
  int num_answers = 1;
};
std::string multi_step_prompt(const MultiStepPrompt& in);

inline constexpr size_t kMaxQuotedIr = 1500;
inline constexpr size_t kMaxFailed = 5;

}  // namespace steptp::llm
