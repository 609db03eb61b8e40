// cot/effect.h — the performance part of a chain of thought, from the step's own facts: what the
// strategy is for, what the step changed in the tensor table (scopes, new or dropped tensors),
// and the cost model's estimate before and after, with a direction that agrees with them.
//
// The direction is one of three fixed phrases, which cot_check.h parses back:
//   "lowers the modelled cost from X to Y (-Z%)", "raises the modelled cost from X to Y (+Z%)",
//   "leaves the modelled cost unchanged at X".
// A relative change under kNeutralChange counts as unchanged (it would print as 0.0%).
#pragma once

#include <string>

#include "cot/strategy_notes.h"
#include "leir/ir.h"

namespace steptp::cot {

inline constexpr double kNeutralChange = 0.0005;

enum class CostDirection { kLower, kHigher, kUnchanged };

CostDirection cost_direction(double before, double after);

// "`T1`" and "`T1`, `T2` and `T3`"; "" for none. Backticks mark every name the CoT mentions
// (cot_check.h relies on it).
std::string marked_list(const std::vector<std::string>& names);

std::string performance_part(std::string_view strategy_name, const StrategyNotes& notes,
                             const leir::Program& before, const leir::Program& after,
                             double cost_before, double cost_after);

}  // namespace steptp::cot
