// service/reward.h — the verifiable reward of one model answer: eval-single's verdict
// (llm::score_answer, the same code, field for field) plus a speedup and one scalar.
//
//   reward = 0                                  the answer has no readable <answer> JSON
//            0.1                                readable, but not a legal, equivalent step
//            1 + w * clamp(log2(speedup), -1, 1) a legal, equivalent step (w = speedup_weight)
// speedup = measured (compiled C medians, original / candidate) when measured, else modelled
// (search/cost_model.h, original / candidate). For a list answer the best candidate counts.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/timing.h"
#include "leir/ir.h"
#include "llm/eval_single.h"
#include "search/cost_model.h"
#include "verify/verify.h"

namespace steptp::service {

struct RewardOptions {
  verify::VerifyOptions verify;  // seeds and budgets of the equivalence check
  bool measure = false;          // also time the compiled C of the original and the candidate
  codegen::TimingOptions timing;
  search::CostModelOptions cost;
  double speedup_weight = 0.5;
};

struct RewardResult {
  llm::QuestionOutcome outcome;  // exactly what eval-single reports for this answer
  bool format_ok = false;        // outcome.parsed
  bool legal = false;
  bool equivalent = false;
  std::optional<bool> matched;  // only when the question has reference answers
  bool correct = false;         // eval-single's "correct"
  std::optional<double> modelled_speedup;
  std::optional<double> measured_speedup;
  std::string measure_error;  // why the measurement failed ("" when it ran or was not asked)
  double reward = 0;
  nlohmann::json to_json() const;
};

// A question without a prompt: the original program, what the answer should hold (1 = one
// object, >= 2 = a list of that many), and optional references (then a candidate must match one,
// as in eval-single).
llm::EvalQuestion question_for(leir::Program original, std::vector<llm::Reference> references = {},
                               int asked = 1);

// The scalar of the formula above.
double scalar_reward(bool format_ok, bool legal_and_equivalent, std::optional<double> speedup,
                     double speedup_weight);

// Scores `answer` (raw model text, think block and all) against the question.
RewardResult reward(const llm::EvalQuestion& question, std::string_view answer,
                    const RewardOptions& options = {});

}  // namespace steptp::service
