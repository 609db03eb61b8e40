// strategy/math/expand_powsimp.cpp — splits a power of a sum into a product of powers (the inverse
// of powsimp).
//
//   before: E=exp(A+C)   (operands abbreviated; E is the written tensor)
//   after:  E=exp(A)*exp(C)
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
  return expand_powsimp_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_expand_powsimp() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"expand_powsimp", "split powers of sums into products of powers",
                          "has its powers of sums split into", false, false, rewrite});
}

}  // namespace steptp::strategy
