// strategy/math/algebraic_strategy.h — the shared machinery of the twelve algebraic strategies
// (factorization … expand_collect): one statement's right-hand side goes through an algebraic
// rewrite of algebra.h and comes back as LEIR.
//
// A site is `<name>(block=P, stmt=I)` (plus `symbol=X` for collect). An accumulation O=O+e or
// O=O*e keeps its self-reference in front and only e is rewritten, so the accumulation keeps its
// meaning; any other use of O on the right refuses the site. It works on whatever block
// structure the program has, so it composes with compute_inline.
#pragma once

#include <ginac/ginac.h>

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "strategy/strategy.h"

namespace steptp::strategy::math {

struct AlgebraicRule {
  std::string_view name;
  std::string_view summary;
  std::string_view effect;      // "factors", "multiplies out", ... (for explain)
  bool needs_fraction = false;  // 1b. the right-hand side must divide by something
  bool needs_symbol = false;    // the site names the tensor to gather terms on
  // The rewrite; `symbol` is set when needs_symbol. nullopt: nothing to do or unsound here.
  std::function<std::optional<GiNaC::ex>(const GiNaC::ex&, const GiNaC::symbol* symbol)> rewrite;
  // Also rewrite inside if_then_else (whose subtrees are otherwise opaque atoms): each arm on
  // its own, and an exp of a select scaled by a number, exp(k*if_then_else(c, a, b)), moved
  // into the arms as if_then_else(c, exp(k*a), exp(k*b)) when that lets the rule rewrite an
  // arm (the condition picks one arm either way, so the values stay). powsimp uses it: Mish's
  // exp(2*softplus(x)) becomes (exp(x)+1)**2 on the softplus arm: exp, log and exp become one
  // exp per arm.
  bool through_selects = false;
};

std::unique_ptr<Strategy> make_algebraic_strategy(AlgebraicRule rule);

}  // namespace steptp::strategy::math
