// strategy/math/expand_log.cpp — splits logarithms of products, quotients and powers of provably
// positive factors.
//
//   before: E=log(exp(A)*(exp(C)+1))   (operands abbreviated; E is the written tensor)
//   after:  E=A+log(exp(C)+1)
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
  return expand_log_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_expand_log() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"expand_log", "split the logarithm of a product of positive factors",
                          "has its logarithms split into", false, false, rewrite});
}

}  // namespace steptp::strategy
