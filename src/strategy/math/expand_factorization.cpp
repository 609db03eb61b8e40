// strategy/math/expand_factorization.cpp — multiplies out products and powers of sums (the inverse
// of factorization).
//
//   before: E=(A-F)*D   (operands abbreviated; E is the written tensor)
//   after:  E=A*D-D*F
//
// Preconditions (numbered as in algebraic_strategy.cpp): 1. one statement with an algebraic
// right-hand side;
// 3. the rewrite changes it. Values are kept: both forms are the same real function wherever
// the original is defined.
#include "strategy/math/algebra.h"
#include "strategy/math/algebraic_strategy.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

std::optional<GiNaC::ex> rewrite(const GiNaC::ex& e, const GiNaC::symbol* /*symbol*/) {
  using namespace math;
  return expand_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_expand_factorization() {
  return math::make_algebraic_strategy(math::AlgebraicRule{
      "expand_factorization", "multiply out the products of sums in one statement",
      "multiplies out into", false, false, rewrite});
}

}  // namespace steptp::strategy
