// strategy/identify_step.h — which registered step turns one program into another: the answer
// to "is this model output a legal step, and which one?".
//
// It applies every feasible site (of the claimed strategy first, then, on request, of every
// strategy) and compares the results structurally with the target. It never trusts a claim: a
// program that no single step produces has no identification.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "leir/ir.h"

namespace steptp::strategy {

struct IdentifiedStep {
  std::string strategy;  // the registered name
  std::string site;      // the printed site, replayable with `steptp apply`
};

struct IdentifyOptions {
  bool any_strategy = false;  // also try the strategies the claim did not name
};

// The first site (in registry and sites() order) whose result equals `to`; `to` without
// declarations takes `from`'s. nullopt when none does, or when `to` equals `from`.
std::optional<IdentifiedStep> identify_step(const leir::Program& from, const leir::Program& to,
                                            std::string_view claimed_strategy,
                                            const IdentifyOptions& options = {});

}  // namespace steptp::strategy
