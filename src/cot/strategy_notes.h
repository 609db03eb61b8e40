// cot/strategy_notes.h — the fixed, per-strategy sentences of a chain of thought: what the
// strategy does in general, why it keeps values, and what it should do to performance.
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
  std::string_view performance;  // the expected effect on speed or memory
};

StrategyNotes notes_for(std::string_view strategy_name, strategy::Category category);

}  // namespace steptp::cot
