// leir/interval.cpp — exact integer interval arithmetic over index expressions (see interval.h).
#include "leir/interval.h"

#include <algorithm>

namespace steptp::leir {

int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kIndexLimit : -kIndexLimit;
  return std::clamp(r, -kIndexLimit, kIndexLimit);
}

int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? -kIndexLimit : kIndexLimit;
  return std::clamp(r, -kIndexLimit, kIndexLimit);
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

namespace {

void add_scaled(AffineForm& into, const AffineForm& f, int64_t scale) {
  into.constant = sat_add(into.constant, sat_mul(f.constant, scale));
  for (const auto& [var, c] : f.coefs) {
    int64_t v = sat_add(into.coefs[var], sat_mul(c, scale));
    if (v == 0) {
      into.coefs.erase(var);
    } else {
      into.coefs[var] = v;
    }
  }
}

Interval hull4(int64_t a, int64_t b, int64_t c, int64_t d) {
  return Interval{std::min({a, b, c, d}), std::max({a, b, c, d})};
}

std::optional<Interval> affine_interval(const AffineForm& f, const VarRanges& ranges) {
  Interval r{f.constant, f.constant};
  for (const auto& [var, c] : f.coefs) {
    auto it = ranges.find(var);
    if (it == ranges.end()) return std::nullopt;
    int64_t x = sat_mul(c, it->second.lo), y = sat_mul(c, it->second.hi);
    r.lo = sat_add(r.lo, std::min(x, y));
    r.hi = sat_add(r.hi, std::max(x, y));
  }
  return r;
}

}  // namespace

AffineForm negated(AffineForm f) {
  f.constant = -f.constant;
  for (auto& [var, coef] : f.coefs) coef = -coef;
  return f;
}

std::optional<AffineForm> affine_form(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kNumber: {
      if (!e.is_integer_literal()) return std::nullopt;
      double v = e.number_value();
      if (!(v >= -static_cast<double>(kIndexLimit) && v <= static_cast<double>(kIndexLimit)))
        return std::nullopt;
      return AffineForm{static_cast<int64_t>(v), {}};
    }
    case ExprKind::kIndexVar: {
      AffineForm f;
      f.coefs[e.name()] = 1;
      return f;
    }
    case ExprKind::kNeg: {
      auto inner = affine_form(*e.operand());
      if (!inner) return std::nullopt;
      AffineForm f;
      add_scaled(f, *inner, -1);
      return f;
    }
    case ExprKind::kBinary: {
      BinaryOp op = e.binary_op();
      if (op != BinaryOp::kAdd && op != BinaryOp::kSub && op != BinaryOp::kMul) return std::nullopt;
      auto l = affine_form(*e.lhs());
      auto r = affine_form(*e.rhs());
      if (!l || !r) return std::nullopt;
      AffineForm f;
      if (op == BinaryOp::kMul) {
        // Affine only when one side is a constant.
        if (l->coefs.empty()) {
          add_scaled(f, *r, l->constant);
        } else if (r->coefs.empty()) {
          add_scaled(f, *l, r->constant);
        } else {
          return std::nullopt;
        }
        return f;
      }
      add_scaled(f, *l, 1);
      add_scaled(f, *r, op == BinaryOp::kAdd ? 1 : -1);
      return f;
    }
    case ExprKind::kInf:
    case ExprKind::kAccess:
    case ExprKind::kCompare:
    case ExprKind::kCall:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Interval> index_interval(const Expr& e, const VarRanges& ranges) {
  if (auto f = affine_form(e)) return affine_interval(*f, ranges);
  switch (e.kind()) {
    case ExprKind::kNeg: {
      auto i = index_interval(*e.operand(), ranges);
      if (!i) return std::nullopt;
      return Interval{-i->hi, -i->lo};
    }
    case ExprKind::kBinary: {
      auto l = index_interval(*e.lhs(), ranges);
      auto r = index_interval(*e.rhs(), ranges);
      if (!l || !r) return std::nullopt;
      switch (e.binary_op()) {
        case BinaryOp::kAdd:
          return Interval{sat_add(l->lo, r->lo), sat_add(l->hi, r->hi)};
        case BinaryOp::kSub:
          return Interval{sat_add(l->lo, -r->hi), sat_add(l->hi, -r->lo)};
        case BinaryOp::kMul:
          return hull4(sat_mul(l->lo, r->lo), sat_mul(l->lo, r->hi), sat_mul(l->hi, r->lo),
                       sat_mul(l->hi, r->hi));
        case BinaryOp::kFloorDiv: {
          if (r->contains(0)) return std::nullopt;
          // Floor division is monotone in the dividend for a fixed divisor, and the extremes
          // over a divisor interval of one sign lie at its ends.
          return hull4(floor_div(l->lo, r->lo), floor_div(l->lo, r->hi), floor_div(l->hi, r->lo),
                       floor_div(l->hi, r->hi));
        }
        case BinaryOp::kMod: {
          if (r->contains(0)) return std::nullopt;
          if (r->lo == r->hi) {
            int64_t c = r->lo;
            // One period: the result is exact; otherwise the whole residue range.
            if (floor_div(l->lo, c) == floor_div(l->hi, c))
              return Interval{std::min(floor_mod(l->lo, c), floor_mod(l->hi, c)),
                              std::max(floor_mod(l->lo, c), floor_mod(l->hi, c))};
          }
          if (r->lo > 0) return Interval{0, r->hi - 1};
          return Interval{r->lo + 1, 0};
        }
        case BinaryOp::kDiv:
        case BinaryOp::kPow:
        case BinaryOp::kAnd:
        case BinaryOp::kOr:
          return std::nullopt;
      }
      return std::nullopt;
    }
    case ExprKind::kNumber:
    case ExprKind::kIndexVar:
    case ExprKind::kInf:
    case ExprKind::kAccess:
    case ExprKind::kCompare:
    case ExprKind::kCall:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace steptp::leir
