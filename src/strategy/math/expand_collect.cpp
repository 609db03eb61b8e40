// strategy/math/expand_collect.cpp — distributes a factor over a gathered sum again (the inverse of
// collect).
//
//   before: E=A*E+C*(A+1)   (operands abbreviated; E is the written tensor)
//   after:  E=A*C+A*E+C
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
  return distribute_expr(e);
}

}  // namespace

std::unique_ptr<Strategy> make_expand_collect() {
  return math::make_algebraic_strategy(
      math::AlgebraicRule{"expand_collect", "distribute gathered terms of one statement again",
                          "is distributed into", false, false, rewrite});
}

}  // namespace steptp::strategy
