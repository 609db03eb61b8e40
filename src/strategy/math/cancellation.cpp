// strategy/math/cancellation.cpp — puts a fraction over one denominator and cancels common factors.
//
//   before: E=(exp(A)-exp(-A))/(exp(A)+exp(-A))   (operands abbreviated; E is the written tensor)
//   after:  E=(exp(2*A)-1)/(exp(2*A)+1)
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
  return cancel_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_cancellation() {
  return math::make_algebraic_strategy(math::AlgebraicRule{
      "cancellation", "cancel the common factors of a fraction in one statement", "cancels into",
      true, false, rewrite});
}

}  // namespace steptp::strategy
