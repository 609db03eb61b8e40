// leir/interval.h — exact integer interval arithmetic over LEIR index expressions.
//
// Given the ranges of the loop variables ([0, extent-1]), bounds the value of an index
// expression. Affine expressions (constants, variables, + - *, constant multiples) are bounded
// exactly through their linear form, so repeated variables cancel (`a-a` is [0,0]); `//` and `%`
// by constants are exact on their operand's interval. Tensor references inside an index have no
// static bound: the result says so instead of guessing. All arithmetic saturates at ±2^62.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "leir/ir.h"

namespace steptp::leir {

struct Interval {
  int64_t lo = 0;
  int64_t hi = 0;
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
};

// An affine index form: constant + Σ coef·var (coefficients never zero).
struct AffineForm {
  int64_t constant = 0;
  std::map<std::string, int64_t> coefs;
};

// -f (every coefficient and the constant negated).
AffineForm negated(AffineForm f);

// Loop variable → its inclusive range.
using VarRanges = std::map<std::string, Interval, std::less<>>;

// The linear form of an index expression, or nullopt when it is not affine (// % of
// non-constants, products of variables, tensor references, non-integer nodes).
std::optional<AffineForm> affine_form(const Expr& e);

// The bounds of an index expression over the variable ranges; nullopt when it cannot be bounded
// (tensor references, division by an interval containing 0, unknown variables, non-index nodes).
std::optional<Interval> index_interval(const Expr& e, const VarRanges& ranges);

// Saturating helpers (±kIndexLimit), exposed for the interpreter's address bounds.
inline constexpr int64_t kIndexLimit = int64_t{1} << 62;
int64_t sat_add(int64_t a, int64_t b);
int64_t sat_mul(int64_t a, int64_t b);
int64_t floor_div(int64_t a, int64_t b);  // b != 0; Python semantics
int64_t floor_mod(int64_t a, int64_t b);  // b != 0; Python semantics (sign of b)

}  // namespace steptp::leir
