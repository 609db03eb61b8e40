// cot/cot_check.h — checks a chain of thought against the step it explains.
//
// What it reads back is only what the CoT marks (chain_of_thought.h): names in backticks and
// block indices written "#N"; the direction phrase of the performance part (effect.h). It asserts
//   - every backticked name is a tensor or a loop variable of the program before or after,
//   - every "#N" is a top-level block index of the program before or after,
//   - the performance part has exactly one direction phrase, its figures match the given ones
//     and its direction agrees with them (cost_direction),
//   - the strategy's own effect phrase is present (the sentence starts with the strategy name).
// Each violation is one line; none means the CoT passes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"

namespace steptp::cot {

struct CostFigures {
  double before = 0;
  double after = 0;
};

std::vector<std::string> check_cot(std::string_view strategy_name, const leir::Program& before,
                                   const leir::Program& after, std::string_view cot_text,
                                   const CostFigures& figures);

}  // namespace steptp::cot
