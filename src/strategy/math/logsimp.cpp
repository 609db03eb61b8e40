// strategy/math/logsimp.cpp — combines sums of logarithms into the logarithm of a product (the
// inverse of expand_log).
//
//   before: E=log(A)+log(C)   (operands abbreviated; E is the written tensor)
//   after:  E=log(A*C)
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
  return logsimp_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_logsimp() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"logsimp", "combine a sum of logarithms into one",
                          "has its logarithms combined into", false, false, rewrite});
}

}  // namespace steptp::strategy
