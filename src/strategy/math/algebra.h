// strategy/math/algebra.h — LEIR value expressions ⇄ GiNaC expressions, and the algebraic
// rewrites the math strategies are built from (factor, expand, cancel, together, apart, collect,
// powsimp and its inverse, log split and combine), each with its domain conditions.
//
// Not every expression converts: comparisons, //, %, &, | and inf have no sound algebraic reading
// here and make to_ginac fail; if_then_else subtrees, accesses and index variables become opaque
// atoms. Back-conversion yields valid LEIR (the eight functions, `**` with a number or a
// parenthesised exponent) in a deterministic order that does not depend on GiNaC's hashing.
#pragma once

#include <ginac/ginac.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "leir/ir.h"

namespace steptp::strategy::math {

// One conversion context: the atoms (tensor accesses, index variables, if_then_else subtrees)
// met so far, each with its own GiNaC symbol (structurally equal subtrees share one), and the
// spellings of decimal literals so that an unchanged 1e-05 prints back as 1e-05.
class Algebra {
 public:
  Algebra() = default;

  // The GiNaC form of `e`, or nullopt when `e` uses something with no algebraic reading
  // (comparison outside if_then_else, //, %, &, |, inf) or GiNaC rejects it (e.g. log(0)).
  std::optional<GiNaC::ex> to_ginac(const leir::ExprRef& e);
  // The LEIR form of `e`, or nullopt when it holds something LEIR cannot say (I, Pi, floats).
  std::optional<leir::ExprRef> to_leir(const GiNaC::ex& e) const;

  // The symbol of the first atom that is an access of tensor `name`.
  std::optional<GiNaC::symbol> tensor_symbol(const std::string& name) const;
  // The atoms in first-appearance order.
  const std::vector<std::pair<leir::ExprRef, GiNaC::symbol>>& atoms() const { return atoms_; }
  // The LEIR atom of a symbol, or nullptr.
  leir::ExprRef atom_of(const GiNaC::symbol& s) const;

 private:
  GiNaC::ex atom(const leir::ExprRef& e);
  std::optional<GiNaC::ex> number(const leir::ExprRef& e);
  leir::ExprRef numeric_to_leir(const GiNaC::numeric& n) const;

  std::vector<std::pair<leir::ExprRef, GiNaC::symbol>> atoms_;
  std::vector<std::pair<GiNaC::numeric, std::string>> spellings_;
};

// GiNaC orders sums and products by symbol serial numbers, which count every symbol the process
// ever made. All our symbols come from one pool made at start-up, so that order (and with it
// every rewrite result) is the same on every run. Atoms use [0, kAtomSymbols), rewrites that
// hide non-polynomial parts use the rest.
inline constexpr size_t kAtomSymbols = 192;
inline constexpr size_t kPoolSymbols = 384;
const GiNaC::symbol& pool_symbol(size_t i);

// ---- rewrites (all pure; each returns nullopt when it has nothing to do or is not sound) ----

// Polynomial factorisation over the rationals; non-polynomial parts are held as atoms.
std::optional<GiNaC::ex> factor_expr(const GiNaC::ex& e);
// Multiplies out products and integer powers of sums.
std::optional<GiNaC::ex> expand_expr(const GiNaC::ex& e);
// One fraction with common factors of numerator and denominator cancelled (GiNaC normal form).
std::optional<GiNaC::ex> cancel_expr(const GiNaC::ex& e);
// Puts a sum of fractions over one common denominator, without multiplying anything out.
std::optional<GiNaC::ex> together_expr(const GiNaC::ex& e);
// The inverse of together: (a+b)/d → a/d+b/d, applied to every fraction with a sum on top.
std::optional<GiNaC::ex> apart_expr(const GiNaC::ex& e);
// Gathers the terms of a sum that contain `s` (or its powers) into `s**k*(...)`.
std::optional<GiNaC::ex> collect_expr(const GiNaC::ex& e, const GiNaC::symbol& s);
// The inverse of collect: distributes products of a factor and a sum, one level deep.
std::optional<GiNaC::ex> distribute_expr(const GiNaC::ex& e);
// exp(a)*exp(b) → exp(a+b), x**a*x**b → x**(a+b) (the latter for x provably positive),
// exp(n*log(y)) → y**n for an integer n.
std::optional<GiNaC::ex> powsimp_expr(const GiNaC::ex& e);
// The inverse: exp(a+b) → exp(a)*exp(b), x**(a+b) → x**a*x**b (x provably positive).
std::optional<GiNaC::ex> expand_powsimp_expr(const GiNaC::ex& e);
// log(a*b) → log(a)+log(b), log(a/b) → log(a)-log(b), log(a**k) → k*log(a); every factor must
// be provably positive, else the split is refused (it would turn a finite value into NaN).
std::optional<GiNaC::ex> expand_log_expr(const GiNaC::ex& e);
// The inverse: log(a)+log(b) → log(a*b), log(a)-log(b) → log(a/b), k*log(a) → log(a**k).
std::optional<GiNaC::ex> logsimp_expr(const GiNaC::ex& e);

// Syntactic positivity: true only when `e` is > 0 for every real value of its atoms
// (exp(.), positive constants, even powers plus a positive constant, sums and products of those).
bool provably_positive(const GiNaC::ex& e);

// True when `e` mentions exp/log/sqrt/max/... anywhere (used by preconditions).
bool has_log(const GiNaC::ex& e);
bool has_exp(const GiNaC::ex& e);
bool has_fraction(const GiNaC::ex& e);

}  // namespace steptp::strategy::math
