// strategy/math/algebra.cpp — LEIR ⇄ GiNaC conversion (see algebra.h). The rewrites live in
// algebra_rewrites.cpp.
//
// Determinism: GiNaC orders the operands of sums and products by symbol serial numbers, which
// depend on how many symbols the process created before. Back-conversion therefore sorts terms
// and factors by their printed LEIR text, so the output never depends on that history.
#include "strategy/math/algebra.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/math/opaque_functions.h"
#include "support/error.h"

namespace steptp::strategy::math {

using namespace GiNaC;  // is_ex_the_function names exp_SERIAL etc. unqualified
using GiNaC::ex;
using GiNaC::numeric;
using leir::BinaryOp;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

namespace {

constexpr size_t kMaxMantissaDigits = 18;  // fits in a long
constexpr int kMaxDecimalExponent = 40;
constexpr long kMaxPlainDenominator = 16;  // x/3 reads better than x*0.333…

std::string text_of(const numeric& n) {
  std::ostringstream os;
  os << n;
  return os.str();
}

bool is_terminating_decimal(numeric q) {
  for (long f : {2L, 5L})
    while (q.is_integer() && q > 1 && GiNaC::irem(q, numeric(f)).is_zero()) q = q / numeric(f);
  return q == 1;
}

std::string key_of(const ExprRef& e) { return leir::print(e); }

ExprRef product(std::vector<ExprRef> factors) {
  STEPTP_CHECK(!factors.empty(), "product of nothing");
  ExprRef out = factors[0];
  for (size_t i = 1; i < factors.size(); ++i) out = Expr::binary(BinaryOp::kMul, out, factors[i]);
  return out;
}

bool mentions_atom(const ExprRef& e) {
  bool found = false;
  leir::for_each_expr(e, [&](const ExprRef& x) {
    found = found || x->kind() == ExprKind::kAccess || x->kind() == ExprKind::kIndexVar;
  });
  return found;
}

bool is_sum(const ExprRef& e) {
  return e->kind() == ExprKind::kBinary &&
         (e->binary_op() == BinaryOp::kAdd || e->binary_op() == BinaryOp::kSub);
}

// Terms of a sum: variable terms before constants, and terms led by a variable before those led
// by a number; then by text. Factors of a product: numbers, then plain factors, then sums.
std::tuple<bool, bool, std::string> term_key(const ExprRef& e) {
  std::string text = key_of(e);
  bool digit_first = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
  return std::make_tuple(!mentions_atom(e), digit_first, text);
}

void sort_factors(std::vector<ExprRef>& v) {
  auto key = [](const ExprRef& e) {
    int rank = e->kind() == ExprKind::kNumber ? 0 : is_sum(e) ? 2 : 1;
    return std::make_pair(rank, key_of(e));
  };
  std::stable_sort(v.begin(), v.end(),
                   [&](const ExprRef& a, const ExprRef& b) { return key(a) < key(b); });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// LEIR → GiNaC
// ---------------------------------------------------------------------------------------------

namespace {

std::vector<GiNaC::symbol> make_pool() {
  std::vector<GiNaC::symbol> pool;
  for (size_t i = 0; i < kPoolSymbols; ++i) pool.emplace_back("s" + std::to_string(i));
  return pool;
}

const std::vector<GiNaC::symbol> kPool = make_pool();  // made during static initialisation

}  // namespace

const GiNaC::symbol& pool_symbol(size_t i) {
  STEPTP_CHECK(i < kPool.size(), "symbol pool exhausted");
  return kPool[i];
}

ex Algebra::atom(const ExprRef& e) {
  for (const auto& [expr, sym] : atoms_)
    if (leir::equal(expr, e)) return sym;
  if (atoms_.size() >= kAtomSymbols) throw std::length_error("too many atoms");
  const GiNaC::symbol& s = pool_symbol(atoms_.size());
  atoms_.emplace_back(Expr::ungrouped(e), s);
  return s;
}

std::optional<ex> Algebra::number(const ExprRef& e) {
  const std::string& text = e->number_spelling();
  std::string mantissa;
  int frac_digits = 0;
  int exponent = 0;
  bool after_point = false;
  size_t i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      after_point = true;
      continue;
    }
    mantissa += text[i];
    if (after_point) ++frac_digits;
  }
  if (i < text.size()) exponent = std::stoi(text.substr(i + 1));
  mantissa.erase(0, std::min(mantissa.find_first_not_of('0'), mantissa.size()));
  if (mantissa.empty()) return ex(0);
  if (mantissa.size() > kMaxMantissaDigits || std::abs(exponent) > kMaxDecimalExponent)
    return atom(e);  // too long to hold exactly: keep the literal as it is
  numeric value = numeric(std::stol(mantissa)) * numeric(10).power(exponent - frac_digits);
  if (!value.is_integer()) {
    bool known = false;
    for (const auto& [n, s] : spellings_) known = known || n == value;
    if (!known) spellings_.emplace_back(value, text);
  }
  return ex(value);
}

std::optional<ex> Algebra::to_ginac(const ExprRef& e) {
  try {
    switch (e->kind()) {
      case ExprKind::kNumber:
        return number(e);
      case ExprKind::kInf:
        return std::nullopt;  // inf-inf would fold to 0: not sound
      case ExprKind::kIndexVar:
      case ExprKind::kAccess:
        return atom(e);
      case ExprKind::kNeg: {
        auto x = to_ginac(e->operand());
        if (!x) return std::nullopt;
        return -*x;
      }
      case ExprKind::kBinary: {
        auto l = to_ginac(e->lhs());
        auto r = to_ginac(e->rhs());
        if (!l || !r) return std::nullopt;
        switch (e->binary_op()) {
          case BinaryOp::kAdd:
            return *l + *r;
          case BinaryOp::kSub:
            return *l - *r;
          case BinaryOp::kMul:
            return *l * *r;
          case BinaryOp::kDiv:
            return *l / *r;
          case BinaryOp::kPow:
            return GiNaC::pow(*l, *r);
          case BinaryOp::kFloorDiv:
          case BinaryOp::kMod:
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            return std::nullopt;
        }
        return std::nullopt;
      }
      case ExprKind::kCompare:
        return std::nullopt;
      case ExprKind::kCall: {
        if (e->function() == Function::kIfThenElse) return atom(e);
        std::vector<ex> args;
        for (const ExprRef& a : e->args()) {
          auto x = to_ginac(a);
          if (!x) return std::nullopt;
          args.push_back(*x);
        }
        switch (e->function()) {
          case Function::kMax:
            return leir_max(args[0], args[1]);
          case Function::kMin:
            return leir_min(args[0], args[1]);
          case Function::kExp:
            return GiNaC::exp(args[0]);
          case Function::kLog:
            return GiNaC::log(args[0]);
          case Function::kSqrt:
            return GiNaC::sqrt(args[0]);
          case Function::kAbs:
            return leir_abs(args[0]);
          case Function::kErf:
            return leir_erf(args[0]);
          case Function::kIfThenElse:
            return std::nullopt;
        }
        return std::nullopt;
      }
    }
  } catch (const std::exception&) {
    return std::nullopt;  // GiNaC refuses e.g. log(0) or 1/0 as a pole
  }
  return std::nullopt;
}

std::optional<GiNaC::symbol> Algebra::tensor_symbol(const std::string& name) const {
  for (const auto& [expr, sym] : atoms_)
    if (expr->kind() == ExprKind::kAccess && expr->name() == name) return sym;
  return std::nullopt;
}

ExprRef Algebra::atom_of(const GiNaC::symbol& s) const {
  for (const auto& [expr, sym] : atoms_)
    if (sym.is_equal(s)) return expr;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// GiNaC → LEIR
// ---------------------------------------------------------------------------------------------

namespace {

// A converted expression as sign and magnitude. GiNaC's canonical term order follows hash
// values that depend on symbol serial numbers and on library addresses, so the same value can
// come back as E*(N-G)+F or as -(E*(G-N)-F) from one run to the next. Conversion therefore
// fixes the sign of every sum itself: terms are sorted by their printed magnitude and the sum is
// negated so that its first term is positive; products collect the signs of their factors. The
// output then depends on the value's structure only, never on GiNaC's internal order. Where a
// sign has to be written, it goes into a sum (C-A rather than -(A-C)) when there is one.
struct Signed {
  bool negative = false;
  ExprRef magnitude;
  // For a sum: its terms in canonical order, each with its sign within `magnitude`.
  std::vector<std::pair<bool, ExprRef>> terms;
  // For a negative product: how to write the value with its sign absorbed, if it can be.
  ExprRef written_negated;
};

Signed plain(bool negative, ExprRef magnitude) {
  return Signed{negative, std::move(magnitude), {}, nullptr};
}

// The sum of `terms`, each negated when `negate`: positive terms first, then the negative ones.
ExprRef render_sum(const std::vector<std::pair<bool, ExprRef>>& terms, bool negate) {
  std::vector<ExprRef> plus, minus;
  for (const auto& [negative, t] : terms) (negative != negate ? minus : plus).push_back(t);
  ExprRef out = plus.empty() ? Expr::neg(minus[0]) : plus[0];
  for (size_t i = 1; i < plus.size(); ++i) out = Expr::binary(BinaryOp::kAdd, out, plus[i]);
  for (size_t i = plus.empty() ? 1 : 0; i < minus.size(); ++i)
    out = Expr::binary(BinaryOp::kSub, out, minus[i]);
  return out;
}

struct Back {
  const Algebra& algebra;
  const std::vector<std::pair<numeric, std::string>>& spellings;

  std::optional<ExprRef> convert(const ex& e) const;
  std::optional<Signed> convert_signed(const ex& e) const;
  std::optional<Signed> convert_add(const ex& e) const;
  std::optional<Signed> convert_mul(const ex& e) const;
  // base**k for a rational k > 0 (k == nullptr: the symbolic `exponent`), with the base's sign.
  std::optional<Signed> convert_power(const Signed& base, const numeric* k,
                                      const ex& exponent) const;
  ExprRef positive_rational(const numeric& n) const;
};

ExprRef apply_sign(const Signed& s) {
  if (!s.negative) return s.magnitude;
  if (s.written_negated) return s.written_negated;
  if (!s.terms.empty()) return render_sum(s.terms, true);
  return Expr::neg(s.magnitude);
}

ExprRef Back::positive_rational(const numeric& n) const {
  for (const auto& [value, spelling] : spellings)
    if (value == n) return Expr::number_from_spelling(spelling);
  if (n.is_integer()) return Expr::number_from_spelling(text_of(n));
  numeric p = n.numer(), q = n.denom();
  if (q > kMaxPlainDenominator && is_terminating_decimal(q) && text_of(p).size() < 15)
    return Expr::number(n.to_double());
  return Expr::grouped(Expr::binary(BinaryOp::kDiv, Expr::number_from_spelling(text_of(p)),
                                    Expr::number_from_spelling(text_of(q))));
}

std::optional<Signed> Back::convert_add(const ex& e) const {
  std::vector<Signed> terms;
  for (size_t i = 0; i < e.nops(); ++i) {
    auto t = convert_signed(e.op(i));
    if (!t) return std::nullopt;
    terms.push_back(*t);
  }
  std::stable_sort(terms.begin(), terms.end(), [](const Signed& a, const Signed& b) {
    return term_key(a.magnitude) < term_key(b.magnitude);
  });
  const bool flip = terms.front().negative;
  Signed out{flip, nullptr, {}, nullptr};
  for (const Signed& t : terms) out.terms.push_back({t.negative != flip, t.magnitude});
  out.magnitude = render_sum(out.terms, false);
  return out;
}

std::optional<Signed> Back::convert_power(const Signed& base, const numeric* k,
                                          const ex& exponent) const {
  if (k == nullptr) {  // symbolic exponent: the base keeps its sign inside
    auto x = convert(exponent);
    if (!x) return std::nullopt;
    return plain(false, Expr::binary(BinaryOp::kPow, apply_sign(base), *x));
  }
  if (*k == 1) return base;
  if (k->is_integer()) {  // (-b)**k = ±b**k
    const bool odd = GiNaC::ex_to<numeric>(GiNaC::mod(*k, 2)).is_equal(1);
    return plain(base.negative && odd,
                 Expr::binary(BinaryOp::kPow, base.magnitude, positive_rational(*k)));
  }
  if (k->denom() == 2) {
    ExprRef root = Expr::call(Function::kSqrt, {apply_sign(base)});
    if (k->numer() == 1) return plain(false, root);
    return plain(false, Expr::binary(BinaryOp::kPow, root, positive_rational(k->numer())));
  }
  return plain(false, Expr::binary(BinaryOp::kPow, apply_sign(base), positive_rational(*k)));
}

std::optional<Signed> Back::convert_mul(const ex& e) const {
  numeric coeff = 1;
  bool negative = false;
  std::vector<ExprRef> num, den;
  std::vector<Signed> sums;  // plain sum factors of the numerator, which can absorb a sign
  auto add_factor = [&](const ex& f) -> bool {
    if (GiNaC::is_a<numeric>(f)) {
      coeff *= GiNaC::ex_to<numeric>(f);
      return true;
    }
    if (GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<numeric>(f.op(1))) {
      numeric k = GiNaC::ex_to<numeric>(f.op(1));
      if (!k.is_rational()) return false;
      numeric mag = k.is_negative() ? -k : k;
      auto base = convert_signed(f.op(0));
      if (!base) return false;
      auto p = convert_power(*base, &mag, f.op(1));
      if (!p) return false;
      negative = negative != p->negative;
      (k.is_negative() ? den : num).push_back(p->magnitude);
      return true;
    }
    auto x = convert_signed(f);
    if (!x) return false;
    negative = negative != x->negative;
    num.push_back(x->magnitude);
    if (!x->terms.empty()) sums.push_back(*x);
    return true;
  };
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i)
      if (!add_factor(e.op(i))) return std::nullopt;
  } else if (!add_factor(e)) {
    return std::nullopt;
  }
  if (!coeff.is_rational()) return std::nullopt;
  if (coeff.is_negative()) {
    negative = !negative;
    coeff = -coeff;
  }
  sort_factors(den);
  bool spelled = false;
  for (const auto& [value, s] : spellings) spelled = spelled || value == coeff;
  if (coeff != 1 && !spelled && !coeff.is_integer() && coeff.denom() <= kMaxPlainDenominator)
    den.insert(den.begin(), positive_rational(coeff.denom()));
  auto assemble = [&](std::vector<ExprRef> top_factors) {
    sort_factors(top_factors);
    if (coeff != 1) {
      if (spelled || coeff.is_integer() || coeff.denom() > kMaxPlainDenominator)
        top_factors.insert(top_factors.begin(), positive_rational(coeff));
      else if (coeff.numer() != 1)
        top_factors.insert(top_factors.begin(), positive_rational(coeff.numer()));
    }
    ExprRef top = top_factors.empty() ? Expr::integer(1) : product(top_factors);
    return den.empty() ? top : Expr::binary(BinaryOp::kDiv, top, product(den));
  };
  Signed out = plain(negative, assemble(num));
  if (negative) {
    // When written with its sign, -(A-C)*D becomes (C-A)*D: the sign goes into the first sum
    // factor (canonical order) that has a negative term, so no new minus sign appears. Only the
    // written form changes: the canonical sign and magnitude above stay what parents compare.
    const Signed* first = nullptr;
    for (const Signed& f : sums) {
      const bool mixed =
          std::any_of(f.terms.begin(), f.terms.end(), [](const auto& t) { return t.first; });
      if (mixed && (!first || key_of(f.magnitude) < key_of(first->magnitude))) first = &f;
    }
    if (first) {
      std::vector<ExprRef> flipped = num;
      for (ExprRef& f : flipped)
        if (f == first->magnitude) {
          f = render_sum(first->terms, true);
          break;
        }
      out.written_negated = assemble(std::move(flipped));
    }
  }
  return out;
}

std::optional<ExprRef> Back::convert(const ex& e) const {
  auto s = convert_signed(e);
  if (!s) return std::nullopt;
  return apply_sign(*s);
}

std::optional<Signed> Back::convert_signed(const ex& e) const {
  if (GiNaC::is_a<numeric>(e)) {
    numeric n = GiNaC::ex_to<numeric>(e);
    if (!n.is_rational()) return std::nullopt;
    return plain(n.is_negative(), positive_rational(n.is_negative() ? -n : n));
  }
  if (GiNaC::is_a<GiNaC::symbol>(e)) {
    ExprRef a = algebra.atom_of(GiNaC::ex_to<GiNaC::symbol>(e));
    if (!a) return std::nullopt;
    return plain(false, a);
  }
  if (GiNaC::is_a<GiNaC::add>(e)) return convert_add(e);
  if (GiNaC::is_a<GiNaC::mul>(e)) return convert_mul(e);
  if (GiNaC::is_a<GiNaC::power>(e)) {
    if (GiNaC::is_a<numeric>(e.op(1))) return convert_mul(e);  // x**-2 → 1/x**2
    auto base = convert_signed(e.op(0));
    if (!base) return std::nullopt;
    return convert_power(*base, nullptr, e.op(1));
  }
  if (GiNaC::is_a<GiNaC::function>(e)) {
    std::vector<ExprRef> args;
    for (size_t i = 0; i < e.nops(); ++i) {
      auto a = convert(e.op(i));
      if (!a) return std::nullopt;
      args.push_back(*a);
    }
    auto call = [&](Function f) { return plain(false, Expr::call(f, args)); };
    if (is_ex_the_function(e, exp)) return call(Function::kExp);
    if (is_ex_the_function(e, log)) return call(Function::kLog);
    if (is_ex_the_function(e, leir_max)) return call(Function::kMax);
    if (is_ex_the_function(e, leir_min)) return call(Function::kMin);
    if (is_ex_the_function(e, leir_abs)) return call(Function::kAbs);
    if (is_ex_the_function(e, leir_erf)) return call(Function::kErf);
  }
  return std::nullopt;  // I, Pi, floats, functions LEIR does not have
}

}  // namespace

std::optional<ExprRef> Algebra::to_leir(const ex& e) const {
  try {
    return Back{*this, spellings_}.convert(e);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace steptp::strategy::math
