// strategy/loop/independent_loop.h — what loop_parallelization (L → P) and loop_vectorization
// (L → V) share: the site is one serial loop whose iterations are independent, and the step
// changes only that loop's kind.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "strategy/strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy::independent_loop {

// The sites: every serial loop with 2..max_extent iterations.
std::vector<Site> sites(const leir::Program& p, std::string_view strategy,
                        int64_t max_extent = std::numeric_limits<int64_t>::max());

// The loop a site names, if 1. it is serial (<strategy>.not_serial), 2. it has at least two
// iterations (<strategy>.trivial) and at most max_extent (<strategy>.too_long), and 3. its
// iterations touch disjoint elements of every tensor the nest writes
// (<strategy>.carried_dependence).
Outcome<surgery::LoopSite> resolve(const leir::Program& p, const Site& s, std::string_view strategy,
                                   int64_t max_extent = std::numeric_limits<int64_t>::max());

// The program with the site's loop turned into `kind`.
Outcome<leir::Program> apply(const leir::Program& p, const Site& s, std::string_view strategy,
                             leir::LoopKind kind,
                             int64_t max_extent = std::numeric_limits<int64_t>::max());

// "every iteration of loop 'c' (extent 4) in block 0 writes its own elements of C, so no
// iteration depends on another" — the common part of both explanations.
std::string why_independent(const surgery::LoopSite& site);

}  // namespace steptp::strategy::independent_loop
