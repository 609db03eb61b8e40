// cot/chain_of_thought.h — the chain of thought of one verified step, built from the step itself
// (strategy, site, before and after programs), never from string matching afterwards.
//
// Five parts, always in this order: applicability (what in the current IR makes the strategy
// apply, with real block and tensor names), decision (the printed site and the strategy's own
// explanation), transition (top-level blocks removed and added, in IR order, from a structural
// diff), preservation (why values are kept) and performance (what the strategy is for, what the
// step changed in the tensor table, and the cost model's estimate before and after, effect.h).
// Every tensor or loop name in the prose is in backticks and every block index is "#N", so that
// cot_check.h can read them back; printed IR fragments are left as printed.
// Deterministic: the same step always gives the same text.
#pragma once

#include <string>

#include "cost/cost_model.h"
#include "cot/block_diff.h"
#include "leir/ir.h"
#include "strategy/strategy.h"

namespace steptp::cot {

struct ChainOfThought {
  std::string applicability;
  std::string decision;
  std::string transition;
  std::string preservation;
  std::string performance;
  BlockDiff diff;
  double cost_before = 0;  // cost::estimated_cost of the program before the step
  double cost_after = 0;   // and after

  // The five parts as numbered lines, the form used in the dataset's <think> block.
  std::string text() const;
};

ChainOfThought explain_step(const strategy::Strategy& chosen, const leir::Program& before,
                            const strategy::Site& site, const leir::Program& after);
// The same with the cost model's options (thread count, vector width) made explicit.
ChainOfThought explain_step(const strategy::Strategy& chosen, const leir::Program& before,
                            const strategy::Site& site, const leir::Program& after,
                            const cost::CostModelOptions& options);

}  // namespace steptp::cot
