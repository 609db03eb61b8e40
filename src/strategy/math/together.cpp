// strategy/math/together.cpp — puts a sum of fractions over one common denominator.
//
//   before: E=A/C+1/C   (operands abbreviated; E is the written tensor)
//   after:  E=(A+1)/C
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
  return together_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_together() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"together", "put a sum of fractions over one denominator",
                          "is put over one denominator as", true, false, rewrite});
}

}  // namespace steptp::strategy
