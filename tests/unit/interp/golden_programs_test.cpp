// Golden tests of the interpreter: small hand-written LEIR programs whose expected values are
// computed in the test with plain loops in the same order as the semantics of record. The
// semantics' exp is stp_exp (support/kernel_math.h, which the C kernels share; within 1 ulp of
// libm's), so the expectations use it too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "program_fixture.h"
#include "support/kernel_math.h"

namespace steptp::interp::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(InterpGolden, MatmulAccumulatesFromZeroAcrossChunks) {
  // c runs 600 > one chunk, so the fold continues across chunks.
  auto p = parse_or_die(
      "input A f64[3,600]\ninput C f64[600,4]\noutput D f64[3,4]\n"
      "B^{3}_{tx=0}L^{4}_{a=0}L^{600}_{c=0}[D^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*"
      "C^{f64,g}_{c,a};];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  const auto& A = in[0].values;
  const auto& C = in[1].values;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double acc = 0;
      for (int k = 0; k < 600; ++k) acc = acc + A[i * 600 + k] * C[k * 4 + j];
      EXPECT_EQ(out["D"].values[i * 4 + j], acc);
    }
}

TEST(InterpGolden, SoftmaxThreeBlocks) {
  auto p = parse_or_die(
      "input A f64[4,300]\noutput C f64[4,300]\n"
      "B^{4}_{tx=0}L^{300}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];"
      "B^{4}_{tx=0}L^{300}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx})"
      ";];"
      "B^{4}_{tx=0}L^{300}_{a=0}[C^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx})/"
      "E^{f64,g}_{tx};];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  const auto& A = in[0].values;
  for (int i = 0; i < 4; ++i) {
    double m = -kInf, s = 0;
    for (int a = 0; a < 300; ++a) m = std::max(m, A[i * 300 + a]);
    for (int a = 0; a < 300; ++a) s = s + stp_exp(A[i * 300 + a] - m);
    for (int a = 0; a < 300; ++a)
      EXPECT_EQ(out["C"].values[i * 300 + a], stp_exp(A[i * 300 + a] - m) / s);
  }
}

TEST(InterpGolden, LayerNormSixBlocks) {
  auto p = parse_or_die(
      "input A f64[2,3,4,5]\ninput D f64[3,4,5]\ninput E f64[3,4,5]\noutput C f64[2,3,4,5]\n"
      "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F^{f64,g}_{tx}=F^{f64,g}_{tx}+A^{f64,g}_{tx,a,"
      "c,d};];"
      "B^{2}_{tx=0}[G^{f64,g}_{tx}=F^{f64,g}_{tx}/60;];"
      "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[H^{f64,g}_{tx}=H^{f64,g}_{tx}+(A^{f64,g}_{tx,"
      "a,c,d}-G^{f64,g}_{tx})**2;];"
      "B^{2}_{tx=0}[I^{f64,g}_{tx}=H^{f64,g}_{tx}/60;];"
      "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[J^{f64,g}_{tx,a,c,d}=(A^{f64,g}_{tx,a,c,d}-G^{"
      "f64,g}_{tx})/sqrt(I^{f64,g}_{tx}+1e-05);];"
      "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[C^{f64,g}_{tx,a,c,d}=D^{f64,g}_{a,c,d}*J^{f64,"
      "g}_{tx,a,c,d}+E^{f64,g}_{a,c,d};];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  const auto &A = in[0].values, &D = in[1].values, &E = in[2].values;
  for (int t = 0; t < 2; ++t) {
    double s = 0, v = 0;
    for (int k = 0; k < 60; ++k) s = s + A[t * 60 + k];
    double mean = s / 60;
    for (int k = 0; k < 60; ++k) v = v + std::pow(A[t * 60 + k] - mean, 2.0);
    double var = v / 60;
    for (int k = 0; k < 60; ++k) {
      double x = (A[t * 60 + k] - mean) / std::sqrt(var + 1e-05);
      EXPECT_EQ(out["C"].values[t * 60 + k], D[k] * x + E[k]);
    }
  }
}

TEST(InterpGolden, Conv2dWithPaddingAndStride) {
  // padding 1, stride 2, kernel 3: 5x5 → 3x3, through a zero-padded 7x7 intermediate.
  auto p = parse_or_die(
      "input A f64[1,2,5,5]\ninput W f64[3,2,3,3]\noutput C f64[1,3,3,3]\n"
      "B^{1}_{tx=0}L^{2}_{a=0}L^{7}_{c=0}L^{7}_{d=0}[E^{f64,g}_{tx,a,c,d}=if_then_else(1<=c<6&1<=d<"
      "6,"
      "A^{f64,g}_{tx,a,c-1,d-1},0);];"
      "B^{1}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}L^{3}_{d=0}L^{2}_{f=0}L^{3}_{g=0}L^{3}_{h=0}[C^{f64,g}_{"
      "tx,a,c,d}="
      "C^{f64,g}_{tx,a,c,d}+E^{f64,g}_{tx,f,c*2+g,d*2+h}*W^{f64,g}_{a,f,g,h};];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  const auto &A = in[0].values, &W = in[1].values;
  for (int o = 0; o < 3; ++o)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 3; ++x) {
        double acc = 0;
        for (int ci = 0; ci < 2; ++ci)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y * 2 + ky - 1, ix = x * 2 + kx - 1;
              double a = (iy >= 0 && iy < 5 && ix >= 0 && ix < 5) ? A[(ci * 5 + iy) * 5 + ix] : 0.0;
              acc = acc + a * W[((o * 2 + ci) * 3 + ky) * 3 + kx];
            }
        EXPECT_EQ(out["C"].values[(o * 3 + y) * 3 + x], acc);
      }
}

TEST(InterpGolden, ArgmaxKeepsTheLastMaximalIndex) {
  // Under sequential semantics the select-update keeps the LAST index whose value equals the
  // maximum (torch.argmax returns the first; the LEIR pattern does not).
  auto p = parse_or_die(
      "input A f64[2,5,3]\noutput C i64[2,3]\n"
      "B^{2}_{tx=0}L^{5}_{a=0}L^{3}_{c=0}[D^{f64,g}_{tx,c}=max(D^{f64,g}_{tx,c},A^{f64,g}_{tx,a,c})"
      ";"
      "C^{i64,g}_{tx,c}=0;];"
      "B^{2}_{tx=0}L^{5}_{a=0}L^{3}_{c=0}[C^{i64,g}_{tx,c}=if_then_else(A^{f64,g}_{tx,a,c}>="
      "D^{f64,g}_{tx,c},a,C^{i64,g}_{tx,c});];");
  auto in = seeded_inputs(p);
  for (double& v : in[0].values) v = std::floor(v);  // values in {-2,-1,0,1}: many ties
  auto out = run_ok(p, in);
  const auto& A = in[0].values;
  for (int t = 0; t < 2; ++t)
    for (int c = 0; c < 3; ++c) {
      double best = -kInf;
      int arg = 0;
      for (int a = 0; a < 5; ++a)
        if (A[(t * 5 + a) * 3 + c] >= best) best = A[(t * 5 + a) * 3 + c], arg = a;
      EXPECT_EQ(out["C"].values[t * 3 + c], arg) << t << "," << c;
    }
}

TEST(InterpGolden, CumsumMaskedQuadraticForm) {
  auto p = parse_or_die(
      "input A f64[3,6]\noutput C f64[3,6]\n"
      "B^{3}_{tx=0}L^{6}_{a=0}L^{6}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+if_then_else(c<=a,"
      "A^{f64,g}_{tx,c},0);];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int t = 0; t < 3; ++t)
    for (int a = 0; a < 6; ++a) {
      double s = 0;
      for (int c = 0; c < 6; ++c) s = s + (c <= a ? in[0].values[t * 6 + c] : 0.0);
      EXPECT_EQ(out["C"].values[t * 6 + a], s);
    }
}

TEST(InterpGolden, PrefixMaxRecurrenceReadsEarlierIterations) {
  auto p = parse_or_die(
      "input D f64[3,8]\noutput F f64[3]\n"
      "B^{3}_{tx=0}L^{8}_{a=0}[H^{f64,g}_{tx,a}=max(if_then_else(a-1<0,-inf,H^{f64,g}_{tx,a-1}),"
      "D^{f64,g}_{tx,a});];B^{3}_{tx=0}[F^{f64,g}_{tx}=H^{f64,g}_{tx,7};];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int t = 0; t < 3; ++t) {
    double m = -kInf;
    for (int a = 0; a < 8; ++a) m = std::max(m, in[0].values[t * 8 + a]);
    EXPECT_EQ(out["F"].values[t], m);
  }
}

TEST(InterpGolden, NestedBlockRunsItsLoopsAtEachPoint) {
  auto p = parse_or_die(
      "input A f64[2,3]\noutput C f64[2,3,4]\n"
      "B^{2}_{tx=0}L^{3}_{a=0}[X^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;L^{4}_{c=0}[C^{f64,g}_{tx,a,c}="
      "X^{f64,g}_{tx,a}+c;];];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int t = 0; t < 2; ++t)
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(out["C"].values[(t * 3 + a) * 4 + c], in[0].values[t * 3 + a] * 2 + c);
}

TEST(InterpGolden, IntegerFloorDivisionAndModuloOnNegatives) {
  auto p = parse_or_die(
      "input A i64[6]\ninput Q i64[6]\ninput V f64[4]\noutput C i64[6]\noutput E i64[6]\n"
      "output G f64[6]\noutput H f64[6]\n"
      "L^{6}_{a=0}[C^{i64,g}_{a}=A^{i64,g}_{a}//"
      "Q^{i64,g}_{a};E^{i64,g}_{a}=A^{i64,g}_{a}%Q^{i64,g}_{a};];"
      "L^{6}_{a=0}[G^{f64,g}_{a}=V^{f64,g}_{(a-3)%4};H^{f64,g}_{a}=V^{f64,g}_{(a-4)//2+2};];");
  std::vector<leir::TensorData> in = {{"A", leir::DType::kI64, {6}, {-7, -1, 7, 5, -8, 0}},
                                      {"Q", leir::DType::kI64, {6}, {2, -3, -2, 3, 3, 5}},
                                      {"V", leir::DType::kF64, {4}, {10, 11, 12, 13}}};
  auto out = run_ok(p, in);
  // Python: -7//2=-4, -1//-3=0, 7//-2=-4, 5//3=1, -8//3=-3, 0//5=0 and the matching moduli.
  EXPECT_EQ(out["C"].values, (std::vector<double>{-4, 0, -4, 1, -3, 0}));
  EXPECT_EQ(out["E"].values, (std::vector<double>{1, -1, -1, 2, 1, 0}));
  // (a-3)%4 for a=0..5 is 1,2,3,0,1,2; (a-4)//2+2 is 0,0,1,1,2,2.
  EXPECT_EQ(out["G"].values, (std::vector<double>{11, 12, 13, 10, 11, 12}));
  EXPECT_EQ(out["H"].values, (std::vector<double>{10, 10, 11, 11, 12, 12}));
}

TEST(InterpGolden, CommutedAccumulationsGetTheirIdentity) {
  auto p = parse_or_die(
      "input A f64[3,5]\noutput C f64[3]\noutput E f64[3]\noutput G f64[3]\n"
      "B^{3}_{tx=0}L^{5}_{a=0}[C^{f64,g}_{tx}=exp(A^{f64,g}_{tx,a})+C^{f64,g}_{tx};];"
      "B^{3}_{tx=0}L^{5}_{a=0}[E^{f64,g}_{tx}=A^{f64,g}_{tx,a}+E^{f64,g}_{tx}+1;];"
      "B^{3}_{tx=0}L^{5}_{a=0}[G^{f64,g}_{tx}=min(A^{f64,g}_{tx,a},G^{f64,g}_{tx});];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int t = 0; t < 3; ++t) {
    double c = 0, e = 0;
    for (int a = 0; a < 5; ++a) {
      c = stp_exp(in[0].values[t * 5 + a]) + c;
      e = in[0].values[t * 5 + a] + e + 1;
    }
    EXPECT_EQ(out["C"].values[t], c);
    EXPECT_EQ(out["E"].values[t], e);
    double g = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 5; ++a) g = std::min(in[0].values[t * 5 + a], g);
    EXPECT_EQ(out["G"].values[t], g);
  }
  // G's self-read is inside min(...)*1, which is not an accumulation position: an error.
  auto p2 = parse_or_die(
      "input A f64[3,5]\noutput G f64[3]\n"
      "B^{3}_{tx=0}L^{5}_{a=0}[G^{f64,g}_{tx}=min(A^{f64,g}_{tx,a},G^{f64,g}_{tx})*1;];");
  EXPECT_EQ(run_error(p2, seeded_inputs(p2)).category, "uninitialized_read");
}

TEST(InterpGolden, BiasAddAfterMatmulContinuesFromCurrentValues) {
  auto p = parse_or_die(
      "input A f64[2,3]\ninput G f64[4,3]\ninput H f64[4]\noutput E f64[2,4]\n"
      "B^{2}_{tx=0}L^{4}_{a=0}L^{3}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*G^{"
      "f64,g}_{a,c};];"
      "B^{2}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+H^{f64,g}_{a};];"
      "B^{2}_{tx=0}L^{4}_{a=0}[E^{f64,g}_{tx,a}=C^{f64,g}_{tx,a};];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int t = 0; t < 2; ++t)
    for (int a = 0; a < 4; ++a) {
      double acc = 0;
      for (int c = 0; c < 3; ++c) acc = acc + in[0].values[t * 3 + c] * in[1].values[a * 3 + c];
      EXPECT_EQ(out["E"].values[t * 4 + a], acc + in[2].values[a]);
    }
}

TEST(InterpGolden, LazyIfThenElseNeverEvaluatesTheUntakenRead) {
  auto p = parse_or_die(
      "input A f64[6]\noutput C f64[6]\n"
      "L^{6}_{a=0}[C^{f64,g}_{a}=if_then_else(a<4,A^{f64,g}_{a+2},-1);];");
  auto in = seeded_inputs(p);
  auto out = run_ok(p, in);
  for (int a = 0; a < 6; ++a) EXPECT_EQ(out["C"].values[a], a < 4 ? in[0].values[a + 2] : -1.0);
}

TEST(InterpGolden, ScalarAndGatherIndexing) {
  auto p = parse_or_die(
      "input A f64[3,4]\ninput J i64[3]\noutput C f64[3]\noutput S f64[]\n"
      "B^{3}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx,J^{i64,g}_{tx}};];"
      "B^{3}_{tx=0}L^{4}_{a=0}[S^{f64,g}=S^{f64,g}+A^{f64,g}_{tx,a};];");
  auto in = seeded_inputs(p);
  in[1].values = {3, 0, 2};
  auto out = run_ok(p, in);
  EXPECT_EQ(out["C"].values,
            (std::vector<double>{in[0].values[3], in[0].values[4], in[0].values[10]}));
  double s = 0;
  for (double v : in[0].values) s = s + v;
  EXPECT_EQ(out["S"].values, std::vector<double>{s});
}

}  // namespace
}  // namespace steptp::interp::testing
