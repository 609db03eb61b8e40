// Stores round to the destination dtype (f16, bf16, f32) exactly; checked against rounding
// computed here by nearest-neighbour search over every finite value of the 16-bit formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "program_fixture.h"

namespace steptp::interp::testing {
namespace {

double decode_f16(uint16_t h) {
  int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0x1f) return man ? std::nan("") : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(man, -24);
  return sign * std::ldexp(1024 + man, exp - 25);
}

double decode_bf16(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest representable value, ties to the one with an even last mantissa bit.
struct Format16 {
  std::vector<std::pair<double, uint16_t>> finite;  // sorted by value
  explicit Format16(double (*decode)(uint16_t)) {
    for (uint32_t b = 0; b < 65536; ++b) {
      double v = decode(static_cast<uint16_t>(b));
      if (std::isfinite(v) && !(v == 0 && (b & 0x8000))) finite.emplace_back(v, b);
    }
    std::sort(finite.begin(), finite.end());
  }
  double round(double x) const {
    auto it = std::lower_bound(finite.begin(), finite.end(), std::make_pair(x, uint16_t{0}));
    if (it == finite.end()) return finite.back().first;
    if (it == finite.begin() || it->first == x) return it->first;
    auto lo = std::prev(it);
    double dl = x - lo->first, dh = it->first - x;
    if (dl < dh) return lo->first;
    if (dh < dl) return it->first;
    return (lo->second & 1) ? it->first : lo->first;
  }
};

TEST(InterpRounding, F16StoresAndAccumulationsRoundEveryWrite) {
  auto p = parse_or_die(
      "input A f16[64]\noutput C f16[64]\noutput S f16[]\n"
      "L^{64}_{a=0}[C^{f16,g}_{a}=A^{f16,g}_{a}*3.3+0.1;];"
      "L^{64}_{a=0}[S^{f16,g}=S^{f16,g}+A^{f16,g}_{a}*7.77;];");
  Format16 f16(decode_f16);
  auto in = seeded_inputs(p);
  for (double v : in[0].values) ASSERT_EQ(f16.round(v), v);  // inputs are f16 values already
  auto out = run_ok(p, in);
  double s = 0;
  for (int a = 0; a < 64; ++a) {
    double x = in[0].values[a];
    EXPECT_EQ(out["C"].values[a], f16.round(x * 3.3 + 0.1)) << a;
    s = f16.round(s + x * 7.77);
  }
  EXPECT_EQ(out["S"].values[0], s);
}

TEST(InterpRounding, Bf16AndF32Stores) {
  auto p = parse_or_die(
      "input A f64[50]\noutput C bf16[50]\noutput D f32[50]\n"
      "L^{50}_{a=0}[C^{bf16,g}_{a}=A^{f64,g}_{a}/3;D^{f32,g}_{a}=A^{f64,g}_{a}/3;];");
  Format16 bf16(decode_bf16);
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int a = 0; a < 50; ++a) {
    double q = in[0].values[a] / 3;
    EXPECT_EQ(out["C"].values[a], bf16.round(q));
    EXPECT_EQ(out["D"].values[a], static_cast<double>(static_cast<float>(q)));
  }
}

TEST(InterpRounding, IntegerStoresTruncate) {
  auto p =
      parse_or_die("input A f64[4]\noutput C i32[4]\nL^{4}_{a=0}[C^{i32,g}_{a}=A^{f64,g}_{a}*1;];");
  std::vector<leir::TensorData> in = {{"A", leir::DType::kF64, {4}, {2.7, -2.7, 0.5, 7}}};
  auto out = run_ok(p, in);
  EXPECT_EQ(out["C"].values, (std::vector<double>{2, -2, 0, 7}));
}

}  // namespace
}  // namespace steptp::interp::testing
