#include "codegen/c_expr.h"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "support/error.h"

namespace steptp::codegen {

using leir::BinaryOp;
using leir::CompareOp;
using leir::DType;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

namespace {

// Concatenation without operator+ chains (GCC 12 reports false -Wrestrict positives on those).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// True when `e` is integer arithmetic on loop variables and integer literals whose double
// evaluation (the interpreter's) equals its int64 evaluation: + - * and unary minus, and
// floor `//` and `%` by a non-zero literal (the int helpers return 0 for a zero divisor where
// the double ones give inf or nan). Loop bounds and literals stay far below 2^53.
bool exact_in_int64(const ExprRef& e) {
  switch (e->kind()) {
    case ExprKind::kIndexVar:
      return true;
    case ExprKind::kNumber:
      return e->is_integer_literal() && std::fabs(e->number_value()) <= 2147483647.0;
    case ExprKind::kNeg:
      return exact_in_int64(e->operand());
    case ExprKind::kBinary:
      switch (e->binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
        case BinaryOp::kMul:
          return exact_in_int64(e->lhs()) && exact_in_int64(e->rhs());
        case BinaryOp::kFloorDiv:
        case BinaryOp::kMod:
          return exact_in_int64(e->lhs()) && e->rhs()->kind() == ExprKind::kNumber &&
                 exact_in_int64(e->rhs()) && e->rhs()->number_value() != 0.0;
        case BinaryOp::kDiv:
        case BinaryOp::kPow:
        case BinaryOp::kAnd:
        case BinaryOp::kOr:
          return false;
      }
      return false;
    case ExprKind::kInf:
    case ExprKind::kAccess:
    case ExprKind::kCompare:
    case ExprKind::kCall:
      return false;
  }
  return false;
}

// k when `e` is the integer literal 2^k (k < 62). Dividing by it with floor division is an
// arithmetic right shift by k, and its floor modulo is a mask of the low k bits, for negative
// dividends too (two's complement, and GCC and Clang shift signed values arithmetically): the
// branch-free forms of stp_floordiv_i and stp_mod_i that a strided convolution's guards
// evaluate on every tap.
std::optional<int> power_of_two_exponent(const ExprRef& e) {
  if (e->kind() != ExprKind::kNumber || !e->is_integer_literal()) return std::nullopt;
  const double v = e->number_value();
  for (int k = 0; k < 62; ++k)
    if (v == static_cast<double>(int64_t{1} << k)) return k;
  return std::nullopt;
}

}  // namespace

std::string c_tensor_name(const std::string& tensor) { return cat({"t_", tensor}); }
std::string c_var_name(const std::string& var) { return cat({"i_", var}); }

std::string c_storage_type(DType t) {
  switch (t) {
    case DType::kF64:
      return "double";
    case DType::kF32:
      return "float";
    case DType::kF16:
    case DType::kBF16:
      return "uint16_t";
    case DType::kI8:
      return "int8_t";
    case DType::kI16:
      return "int16_t";
    case DType::kI32:
      return "int32_t";
    case DType::kI64:
      return "int64_t";
    case DType::kU8:
    case DType::kBool:
      return "uint8_t";
    case DType::kU16:
      return "uint16_t";
    case DType::kU32:
      return "uint32_t";
    case DType::kU64:
      return "uint64_t";
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      break;
  }
  STEPTP_CHECK(false, "no C storage type for a non-executable dtype");
  return "";
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::kF64:
    case DType::kI64:
    case DType::kU64:
      return 8;
    case DType::kF32:
    case DType::kI32:
    case DType::kU32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
    case DType::kI16:
    case DType::kU16:
      return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
      return 1;
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      break;
  }
  STEPTP_CHECK(false, "no storage size for a non-executable dtype");
  return 0;
}

namespace {

// Python floor division and modulo (integer and double), max/min with NaN, a branchless select.
std::string c_arithmetic_helpers(const std::string& fn) {
  return fmt::format(R"(
{0} int64_t stp_floordiv_i(int64_t a, int64_t b) {{
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}}
{0} int64_t stp_max_i(int64_t a, int64_t b) {{ return a < b ? b : a; }}
{0} int64_t stp_min_i(int64_t a, int64_t b) {{ return a < b ? a : b; }}
{0} int64_t stp_mod_i(int64_t a, int64_t b) {{
  if (b == 0) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}}
{0} double stp_mod_f(double a, double b) {{
  double m = fmod(a, b);
  if (m != 0.0) {{
    if ((b < 0) != (m < 0)) m += b;
  }} else {{
    m = copysign(0.0, b);
  }}
  return m;
}}
{0} double stp_floordiv_f(double a, double b) {{
  if (b == 0.0) return floor(a / b);
  double m = fmod(a, b);
  double d = (a - m) / b;
  if (m != 0.0 && ((b < 0) != (m < 0))) d -= 1.0;
  if (d != 0.0) {{
    double f = floor(d);
    if (d - f > 0.5) f += 1.0;
    return f;
  }}
  return copysign(0.0, a / b);
}}
// A select without a branch (CExprPrinter::set_vector_math): a bit blend, which GCC vectorizes
// in loops that call libmvec, where it if-converts no branch.
{0} double stp_select(int c, double a, double b) {{
  uint64_t ua, ub, mask = (uint64_t)0 - (uint64_t)(c != 0);
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  uint64_t r = (ua & mask) | (ub & ~mask);
  double d;
  memcpy(&d, &r, sizeof d);
  return d;
}}
{0} double stp_max(double a, double b) {{ return (a != a || b != b) ? a + b : (a < b ? b : a); }}
{0} double stp_min(double a, double b) {{ return (a != a || b != b) ? a + b : (b < a ? b : a); }}
)",
                     fn);
}

// leir::round_to_dtype: one rounding from double to f16/bf16, subnormals and overflow to inf.
std::string c_float_format_helpers(const std::string& fn) {
  return fmt::format(R"({0} double stp_round_fmt(double v, int mant, int min_exp, int max_exp) {{
  if (!(fabs(v) <= 1.7976931348623157e308) || v == 0.0) return v;
  int e;
  frexp(v, &e);
  e -= 1;
  if (e < min_exp) e = min_exp;
  double q = ldexp(1.0, e - mant);
  double r = nearbyint(v / q) * q;
  double max_finite = ldexp(2.0 - ldexp(1.0, -mant), max_exp);
  if (fabs(r) > max_finite) return copysign(HUGE_VAL, v);
  return r;
}}
{0} uint16_t stp_f16_from(double v) {{
  double r = stp_round_fmt(v, 10, -14, 15);
  if (r != r) return 0x7e00;
  uint16_t sign = signbit(r) ? 0x8000 : 0;
  double a = fabs(r);
  if (a > 65504.0) return (uint16_t)(sign | 0x7c00);
  if (a < 6.103515625e-05) return (uint16_t)(sign | (uint16_t)(a * 16777216.0));
  int e;
  double m = frexp(a, &e);
  return (uint16_t)(sign | ((e + 14) << 10) | (uint16_t)((m * 2.0 - 1.0) * 1024.0));
}}
{0} double stp_f16_to(uint16_t h) {{
  double s = (h & 0x8000) ? -1.0 : 1.0;
  int ex = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (ex == 0) return s * ldexp((double)man, -24);
  if (ex == 31) return man ? nan("") : s * HUGE_VAL;
  return s * ldexp(1024.0 + man, ex - 25);
}}
{0} uint16_t stp_bf16_from(double v) {{
  double r = stp_round_fmt(v, 7, -126, 127);
  if (r != r) return 0x7fc0;
  float f = (float)r;
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}}
{0} double stp_bf16_to(uint16_t b) {{
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return (double)f;
}}
)",
                     fn);
}

// The integer wrap-around (and bool) on store.
std::string c_integer_store_helpers(const std::string& fn) {
  return fmt::format(R"({0} double stp_wrap(double v, int bits, int is_signed) {{
  if (v != v) return 0.0;
  double t = trunc(v);
  if (!(fabs(t) <= 1.7976931348623157e308)) return 0.0;
  if (bits >= 64) {{
    if (is_signed) {{
      if (t >= 9.2233720368547758e18) return 9.2233720368547758e18;
      if (t < -9.2233720368547758e18) return -9.2233720368547758e18;
      return t;
    }}
    if (t < 0) return 0.0;
    return t < 1.8446744073709552e19 ? t : 1.8446744073709552e19;
  }}
  double range = ldexp(1.0, bits);
  double m = fmod(t, range);
  if (m < 0) m += range;
  if (is_signed && m >= range / 2) m -= range;
  return m;
}}
{0} int8_t stp_to_i8(double v) {{ return (int8_t)stp_wrap(v, 8, 1); }}
{0} int16_t stp_to_i16(double v) {{ return (int16_t)stp_wrap(v, 16, 1); }}
{0} int32_t stp_to_i32(double v) {{
  if (v > -2147483649.0 && v < 2147483648.0) return (int32_t)v;
  return (int32_t)stp_wrap(v, 32, 1);
}}
{0} int64_t stp_to_i64(double v) {{
  if (v > -9.2233720368547758e18 && v < 9.2233720368547758e18) return (int64_t)v;
  double w = stp_wrap(v, 64, 1);
  if (w >= 9.2233720368547758e18) return INT64_MAX;
  return (int64_t)w;
}}
{0} uint8_t stp_to_u8(double v) {{ return (uint8_t)stp_wrap(v, 8, 0); }}
{0} uint16_t stp_to_u16(double v) {{ return (uint16_t)stp_wrap(v, 16, 0); }}
{0} uint32_t stp_to_u32(double v) {{ return (uint32_t)stp_wrap(v, 32, 0); }}
{0} uint64_t stp_to_u64(double v) {{
  double w = stp_wrap(v, 64, 0);
  if (w >= 1.8446744073709552e19) return UINT64_MAX;
  return (uint64_t)w;
}}
{0} uint8_t stp_to_bool(double v) {{ return v != 0.0 ? 1 : 0; }}
)",
                     fn);
}

}  // namespace

std::string c_numeric_prelude(const std::string& fn) {
  // Every helper mirrors a rule of the interpreter: Python floor division on doubles, the
  // leir::round_to_dtype rounding (one rounding from double, subnormals, overflow to inf) and
  // the integer wrap-around on store.
  return c_arithmetic_helpers(fn) + c_float_format_helpers(fn) + c_integer_store_helpers(fn);
}

std::string c_double_literal(const leir::Expr& number) {
  const std::string& sp = number.number_spelling();
  // The compiler rounds a decimal literal exactly as strtod does, so the spelling is exact.
  if (number.is_integer_literal()) return cat({sp, ".0"});
  return sp;
}

std::string c_identity_literal(double identity) {
  if (identity == 0.0) return "0.0";
  if (identity == 1.0) return "1.0";
  STEPTP_CHECK(std::isinf(identity), "an accumulation identity is 0, 1 or ±inf");
  return identity < 0 ? "(-HUGE_VAL)" : "HUGE_VAL";
}

CExprPrinter::CExprPrinter(const leir::TensorTable& table) : table_(table) {}

const leir::TensorInfo& CExprPrinter::info(const std::string& tensor) const {
  const leir::TensorInfo* t = table_.find(tensor);
  STEPTP_CHECK(t != nullptr, cat({"tensor '", tensor, "' missing from the tensor table"}));
  return *t;
}

std::string CExprPrinter::offset(const ExprRef& access) const {
  const leir::TensorInfo& t = info(access->name());
  const auto& idx = access->indices();
  if (idx.empty()) return "0";
  STEPTP_CHECK(idx.size() == t.shape.size(), cat({"rank mismatch for tensor '", t.name, "'"}));
  auto slice = slices_.find(t.name);
  auto kept = [&](size_t k) { return slice == slices_.end() || !slice->second.at(k); };
  std::string out;
  int64_t stride = 1;
  std::vector<std::string> terms;
  for (size_t k = idx.size(); k-- > 0;) {
    if (!kept(k)) continue;
    std::string i = index(idx[k]);
    terms.insert(terms.begin(), stride == 1 ? i : fmt::format("{}*{}", i, stride));
    stride *= t.shape[k];
  }
  if (terms.empty()) return "0";
  for (size_t k = 0; k < terms.size(); ++k) {
    if (k) out += " + ";
    out += terms[k];
  }
  return out;
}

std::string CExprPrinter::element(const ExprRef& access) const {
  return fmt::format("{}[{}]", c_tensor_name(access->name()), offset(access));
}

void CExprPrinter::store_as_slice(const std::string& tensor, std::vector<bool> fixed) {
  slices_[tensor] = std::move(fixed);
}

void CExprPrinter::substitute(ExprRef access, std::string text) {
  substitutions_.emplace_back(std::move(access), std::move(text));
}

void CExprPrinter::clear_substitution() { substitutions_.clear(); }

std::string CExprPrinter::load(const ExprRef& access) const {
  for (const auto& [substituted, text] : substitutions_)
    if (leir::equal(access, substituted)) return text;
  std::string el = element(access);
  switch (info(access->name()).dtype) {
    case DType::kF64:
      return el;
    case DType::kF16:
      return cat({"stp_f16_to(", el, ")"});
    case DType::kBF16:
      return cat({"stp_bf16_to(", el, ")"});
    case DType::kF32:
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kBool:
      return cat({"((double)", el, ")"});
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      break;
  }
  STEPTP_CHECK(false, "load of a non-executable dtype");
  return "";
}

std::string CExprPrinter::convert_for_store(const ExprRef& access, const std::string& v) const {
  switch (info(access->name()).dtype) {
    case DType::kF64:
      return v;
    case DType::kF32:
      return cat({"(float)(", v, ")"});
    case DType::kF16:
      return cat({"stp_f16_from(", v, ")"});
    case DType::kBF16:
      return cat({"stp_bf16_from(", v, ")"});
    case DType::kI8:
      return cat({"stp_to_i8(", v, ")"});
    case DType::kI16:
      return cat({"stp_to_i16(", v, ")"});
    case DType::kI32:
      return cat({"stp_to_i32(", v, ")"});
    case DType::kI64:
      return cat({"stp_to_i64(", v, ")"});
    case DType::kU8:
      return cat({"stp_to_u8(", v, ")"});
    case DType::kU16:
      return cat({"stp_to_u16(", v, ")"});
    case DType::kU32:
      return cat({"stp_to_u32(", v, ")"});
    case DType::kU64:
      return cat({"stp_to_u64(", v, ")"});
    case DType::kBool:
      return cat({"stp_to_bool(", v, ")"});
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      break;
  }
  STEPTP_CHECK(false, "store of a non-executable dtype");
  return "";
}

std::string CExprPrinter::index(const ExprRef& e) const {
  switch (e->kind()) {
    case ExprKind::kNumber:
      if (e->is_integer_literal()) {
        double v = e->number_value();
        if (v <= 2147483647.0) return e->number_spelling();
        return cat({"((int64_t)", e->number_spelling(), "LL)"});
      }
      break;
    case ExprKind::kIndexVar:
      return c_var_name(e->name());
    case ExprKind::kAccess: {
      DType t = info(e->name()).dtype;
      if (leir::is_integer(t) || t == DType::kBool) return cat({"((int64_t)", element(e), ")"});
      return cat({"((int64_t)", load(e), ")"});
    }
    case ExprKind::kNeg:
      return cat({"(-", index(e->operand()), ")"});
    case ExprKind::kBinary:
      switch (e->binary_op()) {
        case BinaryOp::kAdd:
          return cat({"(", index(e->lhs()), " + ", index(e->rhs()), ")"});
        case BinaryOp::kSub:
          return cat({"(", index(e->lhs()), " - ", index(e->rhs()), ")"});
        case BinaryOp::kMul:
          return cat({"(", index(e->lhs()), " * ", index(e->rhs()), ")"});
        case BinaryOp::kFloorDiv:
          if (std::optional<int> k = power_of_two_exponent(e->rhs()))
            return cat({"(", index(e->lhs()), " >> ", std::to_string(*k), ")"});
          return cat({"stp_floordiv_i(", index(e->lhs()), ", ", index(e->rhs()), ")"});
        case BinaryOp::kMod:
          if (std::optional<int> k = power_of_two_exponent(e->rhs()))
            return cat({"(", index(e->lhs()), " & ", std::to_string((int64_t{1} << *k) - 1), ")"});
          return cat({"stp_mod_i(", index(e->lhs()), ", ", index(e->rhs()), ")"});
        case BinaryOp::kDiv:
        case BinaryOp::kPow:
        case BinaryOp::kAnd:
        case BinaryOp::kOr:
          break;
      }
      break;
    case ExprKind::kInf:
    case ExprKind::kCompare:
    case ExprKind::kCall:
      break;
  }
  // Not an integer index form (the well-formedness check rejects these); keep C valid.
  return cat({"((int64_t)(", value(e), "))"});
}

std::string CExprPrinter::condition(const ExprRef& e) const {
  const char* const conjunction = vector_math_ ? " & " : " && ";
  const char* const disjunction = vector_math_ ? " | " : " || ";
  switch (e->kind()) {
    case ExprKind::kCompare: {
      const auto& ops = e->operands();
      // Guards of strided and padded convolutions (`(c+1-h)%2==0`) compare index arithmetic:
      // in int64 they cost a few integer operations instead of libm's fmod per term.
      bool integral = true;
      for (const ExprRef& op : ops) integral = integral && exact_in_int64(op);
      auto operand = [&](const ExprRef& op) { return integral ? index(op) : value(op); };
      std::string out = "(";
      for (size_t i = 0; i < e->compare_ops().size(); ++i) {
        if (i) out += conjunction;
        out += cat({"(", operand(ops[i]), " ", leir::compare_op_spelling(e->compare_ops()[i]), " ",
                    operand(ops[i + 1]), ")"});
      }
      return cat({out, ")"});
    }
    case ExprKind::kBinary:
      if (e->binary_op() == BinaryOp::kAnd)
        return cat({"(", condition(e->lhs()), conjunction, condition(e->rhs()), ")"});
      if (e->binary_op() == BinaryOp::kOr)
        return cat({"(", condition(e->lhs()), disjunction, condition(e->rhs()), ")"});
      break;
    case ExprKind::kNumber:
    case ExprKind::kInf:
    case ExprKind::kIndexVar:
    case ExprKind::kAccess:
    case ExprKind::kNeg:
    case ExprKind::kCall:
      break;
  }
  return cat({"(", value(e), " != 0.0)"});
}

std::string CExprPrinter::value(const ExprRef& e) const {
  switch (e->kind()) {
    case ExprKind::kNumber:
      return c_double_literal(*e);
    case ExprKind::kInf:
      return "HUGE_VAL";
    case ExprKind::kIndexVar:
      return cat({"((double)", c_var_name(e->name()), ")"});
    case ExprKind::kAccess:
      return load(e);
    case ExprKind::kNeg:
      return cat({"(-", value(e->operand()), ")"});
    case ExprKind::kCompare:
      if (vector_math_) return cat({"stp_select(", condition(e), ", 1.0, 0.0)"});
      return cat({"(", condition(e), " ? 1.0 : 0.0)"});
    case ExprKind::kBinary: {
      std::string a = value(e->lhs()), b = value(e->rhs());
      switch (e->binary_op()) {
        case BinaryOp::kAdd:
          return cat({"(", a, " + ", b, ")"});
        case BinaryOp::kSub:
          return cat({"(", a, " - ", b, ")"});
        case BinaryOp::kMul:
          return cat({"(", a, " * ", b, ")"});
        case BinaryOp::kDiv:
          return cat({"(", a, " / ", b, ")"});
        case BinaryOp::kFloorDiv:
          return cat({"stp_floordiv_f(", a, ", ", b, ")"});
        case BinaryOp::kMod:
          return cat({"stp_mod_f(", a, ", ", b, ")"});
        case BinaryOp::kPow:
          return cat({"pow(", a, ", ", b, ")"});
        case BinaryOp::kAnd:
        case BinaryOp::kOr:
          if (vector_math_) return cat({"stp_select(", condition(e), ", 1.0, 0.0)"});
          return cat({"(", condition(e), " ? 1.0 : 0.0)"});
      }
      break;
    }
    case ExprKind::kCall: {
      const auto& args = e->args();
      switch (e->function()) {
        case Function::kMax:
          return cat({"stp_max(", value(args[0]), ", ", value(args[1]), ")"});
        case Function::kMin:
          return cat({"stp_min(", value(args[0]), ", ", value(args[1]), ")"});
        case Function::kExp:
          return cat({"stp_exp(", value(args[0]), ")"});
        case Function::kLog:
          return cat({vector_math_ ? "stp_vlog(" : "stp_log(", value(args[0]), ")"});
        case Function::kSqrt:
          return cat({"sqrt(", value(args[0]), ")"});
        case Function::kAbs:
          return cat({"fabs(", value(args[0]), ")"});
        case Function::kErf:
          return cat({"stp_erf(", value(args[0]), ")"});
        case Function::kIfThenElse: {
          std::string test = condition(args[0]);
          if (vector_math_)
            return cat({"stp_select(", test, ", ", value(args[1]), ", ", value(args[2]), ")"});
          return cat({"(", test, " ? ", value(args[1]), " : ", value(args[2]), ")"});
        }
      }
      break;
    }
  }
  STEPTP_CHECK(false, "unhandled expression kind in the C printer");
  return "";
}

}  // namespace steptp::codegen
