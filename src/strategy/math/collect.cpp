// strategy/math/collect.cpp — gathers the terms of a sum that share one tensor into a single
// product.
//
//   before: E=A*C+A*E+C   (operands abbreviated; E is the written tensor)
//   after:  E=A*E+C*(A+1)
//
// Preconditions (numbered as in algebraic_strategy.cpp): 1. one statement with an algebraic
// right-hand side, 2. the site names a tensor of it;
// 3. the rewrite changes it. Values are kept: both forms are the same real function wherever
// the original is defined.
#include "strategy/math/algebra.h"
#include "strategy/math/algebraic_strategy.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

std::optional<GiNaC::ex> rewrite(const GiNaC::ex& e, const GiNaC::symbol* symbol) {
  using namespace math;
  return collect_expr(e, *symbol);
}

}  // namespace

std::unique_ptr<Strategy> make_collect() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"collect", "gather the like terms of one tensor in a statement",
                          "has its terms gathered", false, true, rewrite});
}

}  // namespace steptp::strategy
