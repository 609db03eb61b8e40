#include "leir/tensor_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace steptp::leir {
namespace {

// Round a double to a binary floating format with `mantissa_bits` explicit fraction bits and
// exponent range [min_exp, max_exp] (IEEE semantics, subnormals included, RNE).
double round_to_format(double v, int mantissa_bits, int min_exp, int max_exp) {
  if (std::isnan(v) || std::isinf(v) || v == 0.0) return v;
  int exp;
  std::frexp(v, &exp);  // v = m * 2^exp, 0.5 <= |m| < 1  → unbiased exponent is exp-1
  int e = exp - 1;
  if (e < min_exp) e = min_exp;  // subnormal range: fixed quantum
  double quantum = std::ldexp(1.0, e - mantissa_bits);
  double r = std::nearbyint(v / quantum) * quantum;  // default rounding mode is to-nearest-even
  double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -mantissa_bits), max_exp);
  if (std::fabs(r) > max_finite) return std::copysign(std::numeric_limits<double>::infinity(), v);
  return r;
}

double wrap_integer(double v, int bits, bool is_signed) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (std::isinf(t)) return 0;
  // Two's-complement wrap for values that fit in 64 bits; beyond that saturate.
  if (bits >= 64) {
    if (is_signed) {
      if (t >= 9.2233720368547758e18) return 9.2233720368547758e18;
      if (t < -9.2233720368547758e18) return -9.2233720368547758e18;
      return t;
    }
    if (t < 0) return 0;
    return std::min(t, 1.8446744073709552e19);
  }
  double range = std::ldexp(1.0, bits);
  double m = std::fmod(t, range);
  if (m < 0) m += range;
  if (is_signed && m >= range / 2) m -= range;
  return m;
}

}  // namespace

double round_to_dtype(double v, DType t) {
  switch (t) {
    case DType::kF64:
      return v;
    case DType::kF32:
      return static_cast<double>(static_cast<float>(v));
    case DType::kF16:
      return round_to_format(v, 10, -14, 15);
    case DType::kBF16:
      return round_to_format(v, 7, -126, 127);
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
      return round_to_format(v, 3, -6, 8);
    case DType::kF8E5M2:
      return round_to_format(v, 2, -14, 15);
    case DType::kI8:
      return wrap_integer(v, 8, true);
    case DType::kI16:
      return wrap_integer(v, 16, true);
    case DType::kI32:
      return wrap_integer(v, 32, true);
    case DType::kI64:
      return wrap_integer(v, 64, true);
    case DType::kU8:
      return wrap_integer(v, 8, false);
    case DType::kU16:
      return wrap_integer(v, 16, false);
    case DType::kU32:
      return wrap_integer(v, 32, false);
    case DType::kU64:
      return wrap_integer(v, 64, false);
    case DType::kI4:
      return wrap_integer(v, 4, true);
    case DType::kU4:
      return wrap_integer(v, 4, false);
    case DType::kBool:
      return (v != 0.0 && !std::isnan(v)) ? 1.0 : (std::isnan(v) ? 1.0 : 0.0);
    case DType::kC64:
    case DType::kC128:
      return v;
  }
  return v;
}

}  // namespace steptp::leir
