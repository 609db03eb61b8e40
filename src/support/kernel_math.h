/* support/kernel_math.h — the elementary functions that the reference interpreter and the
 * generated C kernels share, so that both compute the same bits.
 *
 * Written in the common subset of C and C++: the interpreter includes this header, and the C
 * emitter pastes its text (embedded at build time as codegen's kKernelMathSource) into every
 * kernel. Compile it with -ffp-contract=off (both sides do): a fused multiply-add would round
 * differently.
 *
 * Why not libm: glibc's exp is a scalar call (5-10 ns an element on the benchmark machine) and
 * GCC vectorizes no loop that calls it without -ffast-math, whose libmvec variants round
 * differently from the scalar ones; log likewise. stp_exp and stp_log are straight-line
 * arithmetic with selects: under -fno-trapping-math GCC vectorizes the loops around them (AVX2:
 * about 1.5 and 2.5 ns an element against 5.5 and 5), and each is within 1 ulp of glibc's
 * (tests/unit/support/kernel_math_test.cpp). A loop that calls libm's pow stays scalar; erf
 * goes through libmvec's vector variants (stp_erf, codegen/c_emitter.cpp). */
#ifndef STEPTP_SUPPORT_KERNEL_MATH_H
#define STEPTP_SUPPORT_KERNEL_MATH_H
#include <stdint.h>
#include <string.h>

/* exp(x) = 2^k * exp(r) with k = round(x / ln 2) and r = x - k ln 2, |r| <= ln 2 / 2.
 *  - Adding 1.5 * 2^52 rounds to an integer, which then sits in the low bits of the sum.
 *  - ln 2 comes in two parts: the first has 21 trailing zero bits, so k * ln2_hi is exact.
 *  - exp(r) is its Taylor polynomial to degree 13 (the first omitted term is below 2^-60).
 *  - 2^k is applied as two exact powers of two, 2^k1 * 2^k2 with k1 = round(k / 2): each is a
 *    normal double for every k reached, the first product is exact, and the second rounds once,
 *    into the subnormals or to infinity when the result lies there.
 *  - x is clamped to [-746, 710] first, outside which the result is 0 or infinity anyway; a NaN
 *    passes every comparison as false and propagates through the arithmetic. */
static inline double stp_pow2_of_integral(double k) {
  const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
  double biased = k + shifter;
  uint64_t bits;
  memcpy(&bits, &biased, sizeof bits);
  bits = (bits << 52) + ((uint64_t)1023 << 52); /* (k + 1023) in the exponent field */
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  return scale;
}

static inline double stp_exp(double x) {
  const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
  const double log2e = 1.4426950408889634;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  double xc = x < -746.0 ? -746.0 : (x > 710.0 ? 710.0 : x);
  double k = (xc * log2e + shifter) - shifter;
  double r = (xc - k * ln2_hi) - k * ln2_lo;
  /* The terms of degree 4..13 by Estrin's scheme (pairs, then pairs of pairs: 4 dependent
   * steps instead of 10), the leading ones by Horner, where the rounding matters most. A long
   * Horner chain made a loop calling stp_exp twice latency-bound: the out-of-order window
   * could no longer overlap iterations. */
  double r2 = r * r, r4 = r2 * r2;
  double q4 = 1.0 / 24.0 + r * (1.0 / 120.0), q6 = 1.0 / 720.0 + r * (1.0 / 5040.0);
  double q8 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
  double q10 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
  double q12 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  double high = (q4 + r2 * q6) + r4 * ((q8 + r2 * q10) + r4 * q12);
  double p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * high)));
  double k1 = (k * 0.5 + shifter) - shifter;
  double k2 = k - k1;
  return p * stp_pow2_of_integral(k1) * stp_pow2_of_integral(k2);
}

/* log(x) = e ln 2 + log(m), x = m * 2^e with m in [sqrt(1/2), sqrt(2)), all from the bits of x
 * (subnormals are first scaled by 2^52).
 *  - The exponent field becomes a double exactly: its bits ORed into those of 2^52 give
 *    2^52 + field (AVX2 has no int64-to-double conversion to vectorize).
 *  - log(1 + f), f = m - 1, is fdlibm's form: s = f / (2 + f), z = s^2,
 *    log(1 + f) = f - (f^2/2 - s (f^2/2 + R(z))) with R(z) = sum_{k=1..10} 2 z^k / (2k + 1),
 *    the series of 2 atanh(s) - 2s (|s| < 0.172, so the first omitted term is below 2^-54 s).
 *  - Special arguments are selected at the end: 0 gives -infinity, a negative number NaN,
 *    +infinity itself, NaN itself. */
static inline double stp_log(double x) {
  const double two52 = 4503599627370496.0; /* 2^52 */
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  int tiny = x < 2.2250738585072014e-308; /* subnormal (or not positive) */
  double xs = tiny ? x * two52 : x;
  uint64_t bits;
  memcpy(&bits, &xs, sizeof bits);
  uint64_t field_bits = (bits >> 52) | ((uint64_t)0x433 << 52);
  double field;
  memcpy(&field, &field_bits, sizeof field);
  double e = (field - two52) - 1023.0 - (tiny ? 52.0 : 0.0);
  uint64_t m_bits = (bits & (uint64_t)0x000fffffffffffff) | ((uint64_t)0x3ff << 52);
  double m;
  memcpy(&m, &m_bits, sizeof m);
  int high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  e = high ? e + 1.0 : e;
  double f = m - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  /* R by Estrin's scheme in z (see stp_exp), the leading 2/3 z last. */
  double z2 = z * z, z4 = z2 * z2;
  double w2 = 2.0 / 5.0 + z * (2.0 / 7.0), w4 = 2.0 / 9.0 + z * (2.0 / 11.0);
  double w6 = 2.0 / 13.0 + z * (2.0 / 15.0), w8 = 2.0 / 17.0 + z * (2.0 / 19.0);
  double tail = (w2 + z2 * w4) + z4 * ((w6 + z2 * w8) + z4 * (2.0 / 21.0));
  double r = z * (2.0 / 3.0 + z * tail);
  double hfsq = 0.5 * f * f;
  double y = e * ln2_hi - ((hfsq - (s * (hfsq + r) + e * ln2_lo)) - f);
  y = x == 0.0 ? -__builtin_inf() : y;
  y = x < 0.0 ? __builtin_nan("") : y;
  y = x == __builtin_inf() ? x : y;
  y = x != x ? x : y;
  return y;
}

#endif /* STEPTP_SUPPORT_KERNEL_MATH_H */
