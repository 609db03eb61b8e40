// strategy/math/expand_cancellation.cpp — multiplies out the numerator and denominator of a
// fraction, keeping one fraction.
//
//   before: E=A*(C+2)/(C*(C+1))   (operands abbreviated; E is the written tensor)
//   after:  E=(A*C+2*A)/(C**2+C)
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
  auto top = expand_expr(GiNaC::numer(e));
  auto bottom = expand_expr(GiNaC::denom(e));
  if (!top && !bottom) return std::nullopt;
  GiNaC::ex out = (top ? *top : GiNaC::numer(e)) / (bottom ? *bottom : GiNaC::denom(e));
  if (out.is_equal(e)) return std::nullopt;
  return out;
}

}  // namespace

std::unique_ptr<Strategy> make_expand_cancellation() {
  return math::make_algebraic_strategy(math::AlgebraicRule{
      "expand_cancellation", "multiply out the numerator and denominator of a fraction",
      "has its numerator and denominator multiplied out into", true, false, rewrite});
}

}  // namespace steptp::strategy
