// strategy/math/apart.cpp — splits a fraction whose numerator is a sum into one fraction per term
// (the inverse of together).
//
//   before: E=(A+1)/C   (operands abbreviated; E is the written tensor)
//   after:  E=A/C+1/C
//
// Preconditions (numbered as in algebraic_strategy.cpp): 1. one statement with an algebraic
// right-hand side, 1b. that divides;
// 3. the rewrite changes it. Values are kept: both forms are the same real function wherever
// the original is defined.
#include "strategy/math/algebra.h"
#include "strategy/math/algebraic_strategy.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

std::optional<GiNaC::ex> rewrite(const GiNaC::ex& e, const GiNaC::symbol* /*symbol*/) {
  using namespace math;
  return apart_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_apart() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"apart", "split one fraction into a sum of fractions",
                          "is split into partial fractions", true, false, rewrite});
}

}  // namespace steptp::strategy
