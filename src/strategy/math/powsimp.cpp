// strategy/math/powsimp.cpp — merges powers of a common base: exp(a)*exp(b) -> exp(a+b), x**a*x**b -> x**(a+b) for x > 0.
//
//   before: E=exp(A)*exp(C)   (operands abbreviated; E is the written tensor)
//   after:  E=exp(A+C)
//
// Preconditions (numbered as in algebraic_strategy.cpp): 1. one statement with an algebraic right-hand side;
// 3. the rewrite changes it. Values are kept: both forms are the same real function wherever
// the original is defined.
#include "strategy/math/algebra.h"
#include "strategy/math/algebraic_strategy.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

std::optional<GiNaC::ex> rewrite(const GiNaC::ex& e, const GiNaC::symbol* /*symbol*/) {
  using namespace math;
  return powsimp_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_powsimp() {
  return math::make_algebraic_strategy(math::AlgebraicRule{
      "powsimp", "merge powers of a common base in one statement", "has its powers of a common base merged into", false, false, rewrite});
}

}  // namespace steptp::strategy
