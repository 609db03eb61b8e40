// strategy/math/factorization.cpp — factors a polynomial or rational right-hand side over the
// rationals.
//
//   before: E=D/C+1/C   (operands abbreviated; E is the written tensor)
//   after:  E=(D+1)/C
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
  return factor_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_factorization() {
  return math::make_algebraic_strategy(math::AlgebraicRule{
      "factorization", "factor the right-hand side of one statement into products", "factors into",
      false, false, rewrite});
}

}  // namespace steptp::strategy
