// strategy/math/powsimp.cpp — merges powers of a common base: exp(a)*exp(b) -> exp(a+b), x**a*x**b
// -> x**(a+b) for x > 0, exp(n*log(y)) -> y**n, also inside if_then_else arms (an exp of a scaled
// select moves into its arms when that lets an arm merge).
//
//   before: E=exp(A)*exp(C)   (operands abbreviated; E is the written tensor)
//   after:  E=exp(A+C)
//   before: E=exp(2*if_then_else(A>20,A,log(1+exp(A))))
//   after:  E=if_then_else(A>20,exp(A)**2,(exp(A)+1)**2)
//   (an arm left as exp(n*X) becomes exp(X)**n, n = 2..4, when another arm has exp(X): one exp)
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
  return powsimp_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_powsimp() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"powsimp", "merge powers of a common base in one statement",
                          "has its powers of a common base merged into", false, false, rewrite,
                          /*through_selects=*/true});
}

}  // namespace steptp::strategy
