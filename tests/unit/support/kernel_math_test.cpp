// stp_exp and stp_log (support/kernel_math.h), the exp and log that the interpreter and the C
// kernels share: within one unit in the last place of libm's everywhere, and exact at the edges
// of their ranges.
#include "support/kernel_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

// The distance between two finite doubles of the same sign, in units in the last place.
int64_t ulps_apart(double a, double b) {
  int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  return ia > ib ? ia - ib : ib - ia;
}

TEST(KernelMath, ExpIsWithinOneUlpOfLibmAcrossTheWholeFiniteRange) {
  int64_t worst = 0, differing = 0, points = 0;
  // -745.2 .. 709.8 covers the subnormal results, the normal ones and the last finite one.
  for (double x = -745.2; x < 709.8; x += 0.0009765625 * 3.1) {
    const double want = std::exp(x), got = stp_exp(x);
    ++points;
    if (got == want) continue;
    ++differing;
    worst = std::max(worst, ulps_apart(got, want));
  }
  EXPECT_LE(worst, 1);
  EXPECT_LT(differing, points / 5);  // most results are libm's exactly
  EXPECT_GT(points, 400000);
}

TEST(KernelMath, ExpHandlesTheEdgesOfItsRangeLikeLibm) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(stp_exp(0.0), 1.0);
  EXPECT_EQ(stp_exp(-0.0), 1.0);
  EXPECT_EQ(stp_exp(1e-300), 1.0);
  EXPECT_EQ(stp_exp(709.78), std::exp(709.78));  // the largest results stay finite
  EXPECT_EQ(stp_exp(709.79), inf);               // just past DBL_MAX: overflow
  EXPECT_EQ(stp_exp(1e6), inf);
  EXPECT_EQ(stp_exp(inf), inf);
  EXPECT_EQ(stp_exp(-708.5), std::exp(-708.5));  // subnormal results, rounded once
  EXPECT_EQ(stp_exp(-730.0), std::exp(-730.0));
  EXPECT_EQ(stp_exp(-745.13), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(stp_exp(-745.14), 0.0);  // below half the least subnormal
  EXPECT_EQ(stp_exp(-1e6), 0.0);
  EXPECT_EQ(stp_exp(-inf), 0.0);
  EXPECT_TRUE(std::isnan(stp_exp(std::numeric_limits<double>::quiet_NaN())));
}

TEST(KernelMath, LogIsWithinOneUlpOfLibmFromTheLeastSubnormalToTheLargestDouble) {
  int64_t worst = 0, differing = 0, points = 0;
  auto compare = [&](double x) {
    const double want = std::log(x), got = stp_log(x);
    ++points;
    if (got == want) return;
    ++differing;
    worst = std::max(worst, want == 0 || got == 0 ? int64_t{1} << 62 : ulps_apart(got, want));
  };
  // Every binade; among the least subnormals the product rounds back to x, hence nextafter.
  for (double x = 4.9e-324; x < 1.7e308; x = std::max(x * 1.0001234, std::nextafter(x, 1.0e308)))
    compare(x);
  for (double x = 0.5; x < 2.0; x += 3.0517578125e-6) compare(x);  // around 1, densely
  EXPECT_LE(worst, 1);
  EXPECT_LT(differing, points / 20);
  EXPECT_GT(points, 5000000);
}

TEST(KernelMath, LogHandlesZeroNegativesInfinityAndNaNLikeLibm) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(stp_log(1.0), 0.0);
  EXPECT_EQ(stp_log(0.0), -inf);
  EXPECT_EQ(stp_log(-0.0), -inf);
  EXPECT_TRUE(std::isnan(stp_log(-1.0)));
  EXPECT_TRUE(std::isnan(stp_log(-inf)));
  EXPECT_EQ(stp_log(inf), inf);
  EXPECT_TRUE(std::isnan(stp_log(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(stp_log(std::numeric_limits<double>::denorm_min()),
            std::log(std::numeric_limits<double>::denorm_min()));
  EXPECT_EQ(stp_log(std::numeric_limits<double>::max()),
            std::log(std::numeric_limits<double>::max()));
  EXPECT_EQ(stp_log(std::exp(1.0)), 1.0);
}

}  // namespace
