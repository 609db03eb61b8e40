// cot/strategy_notes.h — the fixed, per-strategy phrases of a chain of thought: what the
// strategy does in general, why it keeps values, what it is meant to do to performance and,
// for a step the cost model may not reward on its own, what it enables. The performance part
// (effect.h) joins them with the step's own facts and modelled cost.
//
// Keyed by the reference's strategy names; a name without an entry (a strategy added later)
// falls back to sentences for its category, so a growing registry never breaks the CoT.
#pragma once

#include <string_view>

#include "strategy/strategy.h"

namespace steptp::cot {

struct StrategyNotes {
  std::string_view purpose;      // what the transformation does, in general
  std::string_view preserved;    // why the outputs keep their values
  std::string_view performance;  // a verb phrase after the strategy's name: what it is for
  std::string_view enables;      // what later steps gain from it; "" when nothing specific
};

StrategyNotes notes_for(std::string_view strategy_name, strategy::Category category);

}  // namespace steptp::cot
