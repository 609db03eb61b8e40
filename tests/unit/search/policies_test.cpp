// The built-in policies over the real strategy registry, and the static cost model.
#include "search/policies.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "codegen/lowering_facts.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/tensor_table.h"
#include "search/cost_model.h"

namespace steptp::search {
namespace {

leir::Program parse(const std::string& text) {
  auto p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), p.ok() ? "" : p.error().render());
  return std::move(p).value();
}

const char* kMatmul =
    "input A f64[8,16]\ninput D f64[16,4]\noutput C f64[8,4]\n"
    "B^{8}_{tx=0}L^{4}_{a=0}L^{16}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*"
    "D^{f64,g}_{c,a};];";

std::vector<std::string> texts(const std::vector<strategy::Site>& sites) {
  std::vector<std::string> out;
  for (const auto& s : sites) out.push_back(s.to_string());
  return out;
}

std::vector<std::string> steps_of(const std::vector<Proposal>& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.step);
  return out;
}

struct Request {
  leir::Program program;
  std::vector<std::string> trace;
  std::set<std::string> tried;
  std::vector<std::string> failures;
  PolicyRequest make(int n) {
    return PolicyRequest{program, program, trace, 0, 1.0, tried, failures, n, "test"};
  }
};

TEST(EnumeratePolicy, ProposesTheFeasibleStepsInRegistryOrderSkippingTriedOnes) {
  Request r{parse(kMatmul), {}, {}, {}};
  std::vector<std::string> all = texts(feasible_steps(r.program));
  ASSERT_GE(all.size(), 4u);
  EnumeratePolicy policy;
  std::vector<Proposal> first = policy.propose(r.make(3));
  EXPECT_EQ(steps_of(first), (std::vector<std::string>(all.begin(), all.begin() + 3)));
  for (const Proposal& p : first) {
    ASSERT_TRUE(p.program.ok());
    auto expected = apply_step_text(r.program, p.step);
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(*p.program == *expected);
  }
  r.tried = {all[0], all[2]};
  EXPECT_EQ(steps_of(policy.propose(r.make(2))), (std::vector<std::string>{all[1], all[3]}));
  for (const auto& s : all) r.tried.insert(s);
  EXPECT_TRUE(policy.propose(r.make(2)).empty());
}

TEST(RandomPolicy, IsASeededPermutationOfTheFeasibleSteps) {
  Request r{parse(kMatmul), {}, {}, {}};
  std::vector<std::string> all = texts(feasible_steps(r.program));
  const int n = static_cast<int>(all.size());
  RandomPolicy a(7), b(7), c(8);
  std::vector<std::string> pa = steps_of(a.propose(r.make(n)));
  EXPECT_EQ(pa, steps_of(b.propose(r.make(n))));
  EXPECT_NE(pa, steps_of(c.propose(r.make(n))));
  EXPECT_EQ(std::multiset<std::string>(pa.begin(), pa.end()),
            std::multiset<std::string>(all.begin(), all.end()));
}

TEST(CostModel, ChargesStridedAccessAndRewardsUnitStrideAndVectors) {
  // 128x128 copy: 16384 executions; each of the 2 accesses costs 1.0 strided / 0.25 unit-stride.
  const std::string decls = "input A f64[128,128]\noutput C f64[128,128]\n";
  leir::Program strided =
      parse(decls + "L^{128}_{a=0}L^{128}_{c=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  leir::Program unit =
      parse(decls + "L^{128}_{c=0}L^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  leir::Program vec =
      parse(decls + "L^{128}_{c=0}V^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(strided), 16384 * 3.0);
  // Past L2 (131072 elements) every strided element costs a line from memory: 4.0; and the
  // block streams both tensors (A read: 1 per element, C written: 2).
  leir::Program from_memory = parse(
      "input A f64[1024,1024]\noutput C f64[1024,1024]\n"
      "L^{1024}_{a=0}L^{1024}_{c=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(from_memory), 1048576 * (9.0 + 3.0));
  // ... unless the loop right outside walks the same lines with unit stride and the inner
  // loop's lines fit in L1 (16 channels of a channel reduction): 1.0, as within L2.
  leir::Program channel_reduction = parse(
      "input A f64[16,256,256]\noutput C f64[256,256]\n"
      "L^{256}_{a=0}L^{256}_{c=0}L^{16}_{d=0}[C^{f64,g}_{a,c}=min(C^{f64,g}_{a,c},A^{f64,g}_{d,a,c}"
      ");];");
  leir::Program across_rows = parse(
      "input A f64[16,256,256]\noutput C f64[256,256]\n"
      "L^{256}_{c=0}L^{256}_{a=0}L^{16}_{d=0}[C^{f64,g}_{a,c}=min(C^{f64,g}_{a,c},A^{f64,g}_{d,a,c}"
      ");];");
  EXPECT_DOUBLE_EQ(estimated_cost(across_rows) - estimated_cost(channel_reduction),
                   1048576 * (4.0 - 1.0));
  // A contiguous independent innermost loop is vectorized by -O3 whether or not it is marked V:
  // 4 lanes of f64 (AVX2).
  EXPECT_DOUBLE_EQ(estimated_cost(unit), 16384 * 1.5 / 4);
  EXPECT_DOUBLE_EQ(estimated_cost(vec), 16384 * 1.5 / 4);
  // ... but not when it is shorter than a vector, or calls libm (pow: 67 per call, no lanes).
  leir::Program short_inner = parse(
      "input A f64[8192,2]\noutput C f64[8192,2]\n"
      "L^{8192}_{c=0}L^{2}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(short_inner), 16384 * 1.5);
  leir::Program libm =
      parse(decls + "L^{128}_{c=0}L^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a}**(3);];");
  EXPECT_DOUBLE_EQ(estimated_cost(libm), 16384 * (1.5 + 67));
  // Parallel loops divide by the thread count only when there are threads.
  leir::Program par =
      parse(decls + "P^{128}_{c=0}L^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(par, {.threads = 1}), 16384 * 1.5 / 4);
  EXPECT_DOUBLE_EQ(estimated_cost(par, {.threads = 4}), 16384 * 1.5 / 16);
}

// Library calls cost what they take on this class of machine (a general power 67 units:
// measured against a copying pass) and keep the loop scalar. exp is the kernels' own
// straight-line function (28, vectorizable), log and erf libm's with their libmvec variants (15
// and 28, vectorizable), a square root one vectorizable
// instruction under -fno-math-errno, and a square
// a multiply.
TEST(CostModel, PricesEachLibraryCallAtItsMeasuredCostAndOnlyLibmCallsStayScalar) {
  const std::string decls = "input A f64[128,128]\noutput C f64[128,128]\n";
  auto cost_of = [&](const std::string& rhs) {
    return estimated_cost(
        parse(decls + "L^{128}_{c=0}L^{128}_{a=0}[C^{f64,g}_{c,a}=" + rhs + ";];"));
  };
  const std::string a = "A^{f64,g}_{c,a}";
  EXPECT_DOUBLE_EQ(cost_of("exp(" + a + ")"), 16384 * (1.5 + 28) / 4);
  EXPECT_DOUBLE_EQ(cost_of("log(" + a + ")"), 16384 * (1.5 + 15) / 4);
  EXPECT_DOUBLE_EQ(cost_of("erf(" + a + ")"), 16384 * (1.5 + 28) / 4);
  EXPECT_DOUBLE_EQ(cost_of(a + "**(3)"), 16384 * (1.5 + 67));
  EXPECT_DOUBLE_EQ(cost_of("log(exp(" + a + "))"), 16384 * (1.5 + 28 + 15) / 4);
  EXPECT_DOUBLE_EQ(cost_of("erf(exp(" + a + "))"), 16384 * (1.5 + 28 + 28) / 4);
  EXPECT_DOUBLE_EQ(cost_of("exp(" + a + "**(3))"), 16384 * (1.5 + 67 + 28));  // pow: scalar
  EXPECT_DOUBLE_EQ(cost_of(a + "**(2)"), 16384 * 1.5 / 4);
  EXPECT_DOUBLE_EQ(cost_of("sqrt(" + a + ")"), 16384 * (1.5 + 1) / 4);
  // Removing an exp is worth more than any access it saves.
  EXPECT_LT(cost_of(a + "+log(" + a + "*" + a + "+1)"),
            cost_of("log(exp(" + a + ")*(" + a + "*" + a + "+1))"));
}

TEST(CostModel, ChargesEveryBlockForTheLargeTensorsItStreams) {
  // 512x512 = 262144 elements, past L2: each block pays 1 per element it reads and 2 per
  // element it writes. Fused, F is streamed once instead of written by one block and read back
  // by the next: one read stream cheaper, all else equal.
  const std::string decls = "input A f64[512,512]\noutput C f64[512,512]\n";
  leir::Program two_passes =
      parse(decls +
            "B^{512}_{tx=0}L^{512}_{a=0}[F^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];"
            "B^{512}_{tx=0}L^{512}_{a=0}[C^{f64,g}_{tx,a}=F^{f64,g}_{tx,a}+1;];");
  leir::Program fused = parse(decls +
                              "B^{512}_{tx=0}L^{512}_{a=0}[F^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;"
                              "C^{f64,g}_{tx,a}=F^{f64,g}_{tx,a}+1;];");
  EXPECT_DOUBLE_EQ(estimated_cost(two_passes) - estimated_cost(fused), 262144.0);
  // Of scope l and sliced by the block's loops, F lives in a local array
  // (codegen::plan_local_arrays): no stream and no global-intermediate charge at all.
  leir::Program local = parse(decls +
                              "B^{512}_{tx=0}[L^{512}_{a=0}[F^{f64,l}_{tx,a}=A^{f64,g}_{tx,a}*2;];"
                              "L^{512}_{c=0}[C^{f64,g}_{tx,c}=F^{f64,l}_{tx,c}+1;];];");
  leir::Program global = parse(decls +
                               "B^{512}_{tx=0}[L^{512}_{a=0}[F^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];"
                               "L^{512}_{c=0}[C^{f64,g}_{tx,c}=F^{f64,g}_{tx,c}+1;];];");
  EXPECT_DOUBLE_EQ(estimated_cost(global) - estimated_cost(local), 262144.0 * (2 + 2));
  // Fused under a loop whose slices do not fit in L2 (262144 elements each), each part still
  // streams them: no cheaper than two blocks.
  const std::string big = "input A f64[2,512,512]\noutput C f64[2,512,512]\n";
  leir::Program apart =
      parse(big +
            "B^{2}_{tx=0}L^{512}_{a=0}L^{512}_{c=0}[F^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*2;];"
            "B^{2}_{tx=0}L^{512}_{a=0}L^{512}_{c=0}[C^{f64,g}_{tx,a,c}=F^{f64,g}_{tx,a,c}+1;];");
  leir::Program under_batch =
      parse(big +
            "B^{2}_{tx=0}[L^{512}_{a=0}L^{512}_{c=0}[F^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*2;];"
            "L^{512}_{a=0}L^{512}_{c=0}[C^{f64,g}_{tx,a,c}=F^{f64,g}_{tx,a,c}+1;];];");
  EXPECT_DOUBLE_EQ(estimated_cost(apart), estimated_cost(under_batch));
}

TEST(CostModel, ChargesALargeTensorAgainForEveryPassItsLoopsMakeOverIt) {
  // C (512x1024, past L2) is read whole for each of the 4 rows r when r is outermost: three
  // passes more than once. With a outermost, one iteration of a touches a 1024-element row that
  // stays in cache across r: one pass. Nothing else about the two orders differs.
  const std::string decls = "input C f64[512,1024]\noutput D f64[4,512]\n";
  leir::Program rows_outside = parse(
      decls +
      "L^{4}_{r=0}L^{512}_{a=0}L^{1024}_{c=0}[D^{f64,g}_{r,a}=D^{f64,g}_{r,a}+C^{f64,g}_{a,c};];");
  leir::Program rows_inside = parse(
      decls +
      "L^{512}_{a=0}L^{4}_{r=0}L^{1024}_{c=0}[D^{f64,g}_{r,a}=D^{f64,g}_{r,a}+C^{f64,g}_{a,c};];");
  EXPECT_DOUBLE_EQ(estimated_cost(rows_outside) - estimated_cost(rows_inside), 3.0 * 524288);
  // A matrix product tile: 4x4 output tiles fetch the weight once per 4 input rows, 2x8 tiles
  // once per 2 (measured 6.4 against 10.2 ms on Gemm_Add_ReLU): twice the passes, dearer.
  const std::string gemm = "input A f64[128,1024]\ninput C f64[512,1024]\noutput F f64[128,512]\n";
  auto tile = [&](int rows, int cols) {
    return parse(
        gemm +
        fmt::format(
            "L^{{{}}}_{{d=0}}L^{{{}}}_{{f=0}}L^{{{}}}_{{tx=0}}L^{{{}}}_{{a=0}}L^{{1024}}_{{c=0}}"
            "[F^{{f64,g}}_{{d*{}+tx,f*{}+a}}=F^{{f64,g}}_{{d*{}+tx,f*{}+a}}+"
            "A^{{f64,g}}_{{d*{}+tx,c}}*C^{{f64,g}}_{{f*{}+a,c}};];",
            128 / rows, 512 / cols, rows, cols, rows, cols, rows, cols, rows, cols));
  };
  EXPECT_DOUBLE_EQ(estimated_cost(tile(2, 8)) - estimated_cost(tile(4, 4)), (64.0 - 32.0) * 524288);
}

TEST(CostModel, ReadsTheStrideFromTheShapeWhenTrailingDimensionsHaveExtentOne) {
  // C[c,0] of an [n,1] tensor is contiguous in c: the same memory walk as C[0,c] of a [1,n] one.
  leir::Program column = parse(
      "input A f64[131072,1]\noutput C f64[131072,1]\n"
      "L^{131072}_{c=0}[C^{f64,g}_{c,0}=A^{f64,g}_{c,0};];");
  leir::Program row = parse(
      "input A f64[1,131072]\noutput C f64[1,131072]\n"
      "L^{131072}_{c=0}[C^{f64,g}_{0,c}=A^{f64,g}_{0,c};];");
  EXPECT_DOUBLE_EQ(estimated_cost(column), 131072 * 1.5 / 4);
  EXPECT_DOUBLE_EQ(estimated_cost(column), estimated_cost(row));
  // A trailing dimension of extent 2 makes it strided again (L2-sized: 1.0 per access, no lanes).
  leir::Program pairs = parse(
      "input A f64[65536,2]\noutput C f64[65536,2]\n"
      "L^{65536}_{c=0}[C^{f64,g}_{c,0}=A^{f64,g}_{c,0};];");
  EXPECT_DOUBLE_EQ(estimated_cost(pairs), 65536 * 3.0);
}

// A subscript that scales the innermost variable skips elements: A[c*2] along c is strided even
// in the last dimension (L2-sized: 1.0 per access, no lanes), while A[131071-c] (coefficient -1)
// walks it with unit stride.
TEST(CostModel, ACoefficientOtherThanPlusOrMinusOneIsAStride) {
  const std::string decls = "input A f64[131072]\noutput C f64[65536]\n";
  leir::Program every_other = parse(decls + "L^{65536}_{c=0}[C^{f64,g}_{c}=A^{f64,g}_{c*2};];");
  leir::Program reversed = parse(decls + "L^{65536}_{c=0}[C^{f64,g}_{c}=A^{f64,g}_{131071-c};];");
  EXPECT_DOUBLE_EQ(estimated_cost(every_other), 65536 * (1 + 0.25 + 1.0));
  EXPECT_DOUBLE_EQ(estimated_cost(reversed), 65536 * 1.5 / 4);
}

TEST(CostModel, ChargesTheLatencyOfAReductionChainUnlessItRunsInLanes) {
  const std::string decls = "input A f64[128,128]\noutput D f64[128]\n";
  // Per execution: 1 + D read and written (invariant, 0.1 each) + A (unit, 0.25) + 3 for the
  // add that waits for the previous one.
  leir::Program serial =
      parse(decls + "L^{128}_{c=0}L^{128}_{a=0}[D^{f64,g}_{c}=D^{f64,g}_{c}+A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(serial), 16384 * 4.45);
  // Reduction lanes: 4 lanes; 16 of them are four independent vector accumulators, which
  // hides three quarters of the chain (4 lanes would hide none of it).
  leir::Program lanes = parse(
      decls +
      "L^{128}_{c=0}L^{8}_{b=0}V^{16}_{a=0}[D^{f64,g}_{c}=D^{f64,g}_{c}+A^{f64,g}_{c,b*16+a};];");
  // Plus 4 per run of the lane loop: load the accumulator, reduce the lanes, store it.
  EXPECT_DOUBLE_EQ(estimated_cost(lanes), 16384 * (1.45 + 0.75) / 4 + 16384 / 16 * 4);
  leir::Program four = parse(
      decls +
      "L^{128}_{c=0}L^{32}_{b=0}V^{4}_{a=0}[D^{f64,g}_{c}=D^{f64,g}_{c}+A^{f64,g}_{c,b*4+a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(four), 16384 * (1.45 + 3) / 4 + 16384 / 4 * 4);
  // A reduction shorter than a vector (an average pooling's 3-tap window) runs no faster in
  // lanes: priced as the scalar chain, the same as the plain loop.
  const std::string window = "input A f64[128,129]\noutput D f64[128]\n";
  leir::Program three_lanes = parse(
      window +
      "L^{128}_{c=0}L^{43}_{b=0}V^{3}_{a=0}[D^{f64,g}_{c}=D^{f64,g}_{c}+A^{f64,g}_{c,b*3+a};];");
  leir::Program three_serial = parse(
      window +
      "L^{128}_{c=0}L^{43}_{b=0}L^{3}_{a=0}[D^{f64,g}_{c}=D^{f64,g}_{c}+A^{f64,g}_{c,b*3+a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(three_lanes), 16512 * 4.45);
  EXPECT_DOUBLE_EQ(estimated_cost(three_serial), 16512 * 4.45);
  // A loop of extent 1 inside does not hide the chain: the innermost loop that iterates is 'a'.
  leir::Program unit_inner = parse(
      "input A f64[128,128]\noutput D f64[128,1]\n"
      "L^{128}_{c=0}L^{128}_{a=0}L^{1}_{e=0}[D^{f64,g}_{c,e}=D^{f64,g}_{c,e}+A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(unit_inner), 16384 * 4.45);
}

// The C backend jams the 2x4 (t, u) tile around the lanes into 8 accumulators, with the b loop
// collapsed into the SIMD loop: A's load is shared by the 4 u-copies, B's by the 2 t-copies, the
// 8 accumulators are independent chains, and a lane run is b and a together (128 iterations).
TEST(CostModel, JammedReductionLanesShareLoadsAndHideTheChain) {
  const std::string decls = "input A f64[64,128]\ninput B f64[4,128]\noutput C f64[64,4]\n";
  leir::Program jammed =
      parse(decls +
            "L^{32}_{d=0}L^{2}_{t=0}L^{4}_{u=0}L^{8}_{b=0}V^{16}_{a=0}[C^{f64,g}_{d*2+t,u}="
            "C^{f64,g}_{d*2+t,u}+A^{f64,g}_{d*2+t,b*16+a}*B^{f64,g}_{u,b*16+a};];");
  // Per execution: 1 + C read and written (0.1 each) + A (unit stride, 0.25, its 2 rows each
  // shared by 4 accumulators) + B (0.25, its 4 rows each shared by 2) + the chain,
  // 3 · 4 / (16 lanes · 8 accumulators).
  EXPECT_DOUBLE_EQ(estimated_cost(jammed),
                   32768 * (1 + 0.2 + 0.25 / 4 + 0.25 / 2 + 3.0 * 4 / 128) / 4 + 32768 / 128 * 4);
  // The same nest with the tile outside the b loop: jammed too, but every b iteration is a new
  // lane run (16 iterations), and the accumulators are reloaded each time.
  leir::Program outside =
      parse(decls +
            "L^{32}_{d=0}L^{8}_{b=0}L^{2}_{t=0}L^{4}_{u=0}V^{16}_{a=0}[C^{f64,g}_{d*2+t,u}="
            "C^{f64,g}_{d*2+t,u}+A^{f64,g}_{d*2+t,b*16+a}*B^{f64,g}_{u,b*16+a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(outside),
                   32768 * (1 + 0.2 + 0.25 / 4 + 0.25 / 2 + 3.0 * 4 / 128) / 4 + 32768 / 16 * 4);
  EXPECT_LT(estimated_cost(jammed), estimated_cost(outside));
}

TEST(CostModel, AJamThatNeedsMoreVectorRegistersThanThereArePaysForEverySpill) {
  // The GEMM tile of the test above with 4 rows instead of 2: 16 accumulators, and 4 rows of A
  // held while B's rows stream through a register, 2 more kept by the compiler: 22 registers,
  // 8 beyond codegen::kJamVectorRegisters (14). Each is stored and reloaded once per iteration
  // of the jam (1.5), shared by its 16 accumulator updates.
  const std::string decls = "input A f64[64,128]\ninput B f64[4,128]\noutput C f64[64,4]\n";
  auto tile = [&](int rows) {
    const std::string r = std::to_string(rows), row = "d*" + r + "+t";
    return parse(decls + "L^{" + std::to_string(64 / rows) + "}_{d=0}L^{" + r +
                 "}_{t=0}L^{4}_{u=0}L^{8}_{b=0}V^{16}_{a=0}[C^{f64,g}_{" + row + ",u}=C^{f64,g}_{" +
                 row + ",u}+A^{f64,g}_{" + row + ",b*16+a}*B^{f64,g}_{u,b*16+a};];");
  };
  const leir::Program four_by_four = tile(4);
  const std::optional<codegen::LaneJam> jam = codegen::find_lane_jam(four_by_four.blocks[0]);
  ASSERT_TRUE(jam.has_value());
  EXPECT_EQ(jam->accumulators, 16);
  EXPECT_EQ(jam->spilled, 8);
  EXPECT_DOUBLE_EQ(
      estimated_cost(four_by_four),
      32768 * (1 + 0.2 + 0.25 / 4 + 0.25 / 4 + 3.0 * 4 / 256 + 1.5 * 8 / 16) / 4 + 32768 / 128 * 4);
  // Without the spills the larger tile would be the cheaper one (more shared loads, more
  // chains); with them the 2 x 4 tile, which spills nothing, is, as measured on a GEMM.
  const leir::Program two_by_four = tile(2);
  ASSERT_TRUE(codegen::find_lane_jam(two_by_four.blocks[0]).has_value());
  EXPECT_EQ(codegen::find_lane_jam(two_by_four.blocks[0])->spilled, 0);
  EXPECT_LT(estimated_cost(two_by_four), estimated_cost(four_by_four));
}

// Where the kernels get AVX-512 (CostModelOptions::wide_vectors), a GEMM jam of f64 sums over
// whole 8-double vectors is written in explicit vectors with every load held in a register
// (codegen::is_explicit_wide_lane_jam): chosen for 32 registers, the 4 x 4 tile spills nothing
// (16 accumulators + 8 loads + a product = 25) and prices below the 2 x 4 one, as measured
// (a 128x512x1024 GEMM: 2.7-3.0 ms against 3.8-3.9 ms).
TEST(CostModel, WideVectorsJamFourByFourWithEveryLoadInARegister) {
  const std::string decls = "input A f64[64,128]\ninput B f64[4,128]\noutput C f64[64,4]\n";
  auto tile = [&](int rows, const std::string& lanes) {
    const std::string r = std::to_string(rows), row = "d*" + r + "+t";
    return parse(decls + "L^{" + std::to_string(64 / rows) + "}_{d=0}L^{" + r +
                 "}_{t=0}L^{4}_{u=0}L^{" + std::to_string(128 / std::stoi(lanes)) + "}_{b=0}V^{" +
                 lanes + "}_{a=0}[C^{f64,g}_{" + row + ",u}=C^{f64,g}_{" + row + ",u}+A^{f64,g}_{" +
                 row + ",b*" + lanes + "+a}*B^{f64,g}_{u,b*" + lanes + "+a};];");
  };
  const leir::Program four_by_four = tile(4, "16");
  // Whether the jam chosen for the wide registers (there must be one) is written explicitly.
  auto written_explicitly = [](const leir::Program& q) {
    const std::optional<codegen::LaneJam> jam =
        codegen::find_lane_jam(q.blocks[0], codegen::kWideJamRegisters);
    EXPECT_TRUE(jam.has_value()) << leir::print_program(q);
    return jam &&
           codegen::is_explicit_wide_lane_jam(q.blocks[0], *leir::infer_tensor_table(q), *jam);
  };
  const std::optional<codegen::LaneJam> wide = codegen::find_explicit_wide_lane_jam(
      four_by_four.blocks[0], *leir::infer_tensor_table(four_by_four));
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->accumulators, 16);
  EXPECT_EQ(wide->spilled, 0);
  EXPECT_TRUE(written_explicitly(four_by_four));
  const CostModelOptions on_wide{.wide_vectors = true};
  EXPECT_LT(estimated_cost(four_by_four, on_wide), estimated_cost(tile(2, "16"), on_wide));
  EXPECT_LT(estimated_cost(four_by_four, on_wide), estimated_cost(four_by_four));
  // A V loop of 4 lanes is not whole 8-double vectors: the omp simd jam, priced as before.
  const leir::Program partial =
      parse(decls +
            "L^{16}_{d=0}L^{4}_{t=0}L^{4}_{u=0}L^{8}_{b=0}L^{4}_{e=0}V^{4}_{a=0}"
            "[C^{f64,g}_{d*4+t,u}=C^{f64,g}_{d*4+t,u}+A^{f64,g}_{d*4+t,b*16+e*4+a}"
            "*B^{f64,g}_{u,b*16+e*4+a};];");
  EXPECT_FALSE(written_explicitly(partial));
  EXPECT_DOUBLE_EQ(estimated_cost(partial, on_wide), estimated_cost(partial));
  // A max is no sum, and an f32 destination no f64 vector: neither is written explicitly.
  const leir::Program maximum =
      parse(decls +
            "L^{16}_{d=0}L^{4}_{t=0}L^{4}_{u=0}L^{8}_{b=0}V^{16}_{a=0}[C^{f64,g}_{d*4+t,u}="
            "max(C^{f64,g}_{d*4+t,u},A^{f64,g}_{d*4+t,b*16+a}*B^{f64,g}_{u,b*16+a});];");
  EXPECT_FALSE(written_explicitly(maximum));
  const leir::Program single = parse(
      "input A f32[64,128]\ninput B f32[4,128]\noutput C f32[64,4]\n"
      "L^{16}_{d=0}L^{4}_{t=0}L^{4}_{u=0}L^{8}_{b=0}V^{16}_{a=0}[C^{f32,g}_{d*4+t,u}="
      "C^{f32,g}_{d*4+t,u}+A^{f32,g}_{d*4+t,b*16+a}*B^{f32,g}_{u,b*16+a};];");
  EXPECT_FALSE(written_explicitly(single));
}

// The C backend keeps the 2x8 elements of C in vector registers across k
// (codegen::find_stationary_tile): C's read and write cost nothing, and B's load serves both
// rows. The same nest with k parallel is not a tile and pays for all of them.
TEST(CostModel, RowsKeptInRegistersPayNeitherTheirLoadsNorTheirStores) {
  const std::string decls = "input A f64[64,16]\ninput B f64[16,8]\noutput C f64[64,8]\n";
  const std::string nest =
      "_{k=0}L^{2}_{t=0}L^{8}_{u=0}[C^{f64,g}_{d*2+t,u}=C^{f64,g}_{d*2+t,u}"
      "+A^{f64,g}_{d*2+t,k}*B^{f64,g}_{k,u};];";
  leir::Program tile = parse(decls + "L^{32}_{d=0}L^{16}" + nest);
  leir::Program plain = parse(decls + "L^{32}_{d=0}P^{16}" + nest);
  // Per execution (8192 of them, 4 lanes): 1 + A (invariant along u: 0.1; each row has its
  // own) + B (unit stride: 0.25, one load shared by the 2 rows).
  EXPECT_DOUBLE_EQ(estimated_cost(tile), 8192 * (1 + 0.1 + 0.25 / 2) / 4);
  EXPECT_DOUBLE_EQ(estimated_cost(plain), 8192 * (1 + 0.25 + 0.25 + 0.1 + 0.25) / 4);
}

TEST(CostModel, ChargesGlobalIntermediatesForTheirTraffic) {
  const std::string decls = "input A f64[64]\noutput C f64[64]\n";
  leir::Program two = parse(decls +
                            "L^{64}_{a=0}[D^{f64,g}_{a}=A^{f64,g}_{a}*2;];"
                            "L^{64}_{a=0}[C^{f64,g}_{a}=D^{f64,g}_{a}+1;];");
  leir::Program one = parse(decls + "L^{64}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}*2+1;];");
  // Each statement: 1 + 2 unit-stride accesses = 1.5 per execution, 64 executions in 4 lanes.
  EXPECT_DOUBLE_EQ(estimated_cost(one), 64 * 1.5 / 4);
  EXPECT_DOUBLE_EQ(estimated_cost(two), 2 * 64 * 1.5 / 4 + 2 * 64);
}

TEST(CostPolicy, OffersTheCheapestPredictedProgramsFirstAndOperandSwapsLast) {
  // Every statement calls libm (pow), so no step can gain lanes and the look-ahead never
  // applies: the order is the order of the steps' own programs, except that swapping the
  // operands of D+1 (the same code for the compiler) comes after every other step.
  Request r{parse("input A f64[8,64]\noutput C f64[8,64]\n"
                  "B^{8}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}**(3);];"
                  "B^{8}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=(D^{f64,g}_{tx,a}+1)**(3);];"),
            {},
            {},
            {}};
  CostPolicy policy({.threads = 1});
  std::vector<Proposal> ps = policy.propose(r.make(1000));
  ASSERT_EQ(ps.size(), feasible_steps(r.program).size());
  ASSERT_FALSE(ps.empty());
  EXPECT_EQ(ps.back().step.rfind("expression_reorder(", 0), 0u) << ps.back().step;
  double previous = 0;
  bool swaps_began = false;
  for (const Proposal& p : ps) {
    ASSERT_TRUE(p.program.ok()) << p.step;
    const bool swap = p.step.rfind("expression_reorder(", 0) == 0;
    if (swap && !swaps_began) previous = 0;  // the swaps are ranked among themselves
    EXPECT_TRUE(swap || !swaps_began) << p.step << " comes after an operand swap";
    swaps_began = swaps_began || swap;
    double c = estimated_cost(*p.program);
    EXPECT_GE(c, previous) << p.step;
    previous = c;
  }
}

TEST(CostPolicy, PutsAnIdeaThatMeasuredNoFasterAfterTheOthers) {
  // Once a step from this state measured no faster than it, the model misjudged that idea
  // (strategy and block) here: its other variants go after every other idea's steps, each group
  // in the model's order. Without such a step the order is the model's.
  Request r{parse(kMatmul), {}, {}, {}};
  CostPolicy policy({.threads = 1});
  const std::vector<std::string> ranked = steps_of(policy.propose(r.make(1000)));
  ASSERT_GE(ranked.size(), 4u);
  const std::string& misjudged = ranked.front();
  const std::string idea = misjudged.substr(0, misjudged.find(',')) + ",";  // "name(block=i,"
  ASSERT_NE(idea.find("block="), std::string::npos) << misjudged;
  auto same_idea = [&](const std::string& step) { return step.rfind(idea, 0) == 0; };
  std::vector<std::string> expected;
  for (const std::string& s : ranked)
    if (s != misjudged && !same_idea(s)) expected.push_back(s);
  const size_t others = expected.size();
  for (const std::string& s : ranked)
    if (s != misjudged && same_idea(s)) expected.push_back(s);
  ASSERT_GT(others, 0u);
  ASSERT_LT(others, expected.size()) << "the first idea needs more than one variant";

  r.tried.insert(misjudged);
  PolicyRequest request = r.make(1000);
  request.no_gain.insert(misjudged);
  EXPECT_EQ(steps_of(policy.propose(request)), expected);
  // A step that gained does not demote its idea.
  PolicyRequest gained = r.make(1000);
  EXPECT_EQ(steps_of(policy.propose(gained)),
            std::vector<std::string>(ranked.begin() + 1, ranked.end()));
}

// The lowest estimated cost one loop_vectorization step reaches from `p` (infinity if none).
double cheapest_after_one_vectorization(const leir::Program& p) {
  double best = std::numeric_limits<double>::infinity();
  for (const strategy::Site& site : feasible_steps(p)) {
    if (site.strategy() != "loop_vectorization") continue;
    Result<leir::Program> next = apply_step(p, site);
    EXPECT_TRUE(next.ok()) << site.to_string();
    if (next.ok()) best = std::min(best, estimated_cost(*next));
  }
  return best;
}

// `step` gains nothing by itself (within 1%), but one loop_vectorization right after it brings
// the estimate of `before` below `ratio` of what it was.
void expect_enables_lanes(const leir::Program& before, const Proposal& step, double ratio) {
  ASSERT_TRUE(step.program.ok()) << step.step;
  const double cost = estimated_cost(before);
  EXPECT_GE(estimated_cost(*step.program), cost * 0.99) << step.step;
  EXPECT_LT(cheapest_after_one_vectorization(*step.program), cost * ratio) << step.step;
}

TEST(CostPolicy, RanksASplitThatEnablesReductionLanesFirst) {
  // The reduction loop is too long for lanes; splitting it gains nothing by itself, but the
  // split's inner loop can then be vectorized, which beats every other single step.
  Request r{parse("input A f64[8,256]\noutput D f64[8]\n"
                  "B^{8}_{tx=0}L^{256}_{c=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+A^{f64,g}_{tx,c};];"),
            {},
            {},
            {}};
  CostPolicy policy({.threads = 1});
  std::vector<Proposal> ps = policy.propose(r.make(3));
  ASSERT_FALSE(ps.empty());
  ASSERT_TRUE(ps.front().program.ok());
  expect_enables_lanes(r.program, ps.front(), 0.5);
}

TEST(CostPolicy, LooksAheadInTheBlockAStepRewritesWhereverItStands) {
  // The same long reduction as above, now the middle of three blocks: the look-ahead only
  // vectorizes the blocks a step changed, and must still find that splitting block 1 enables
  // lanes there (the blocks around it are elementwise and unchanged by the split).
  Request r{parse("input A f64[8,256]\noutput F f64[8]\n"
                  "B^{8}_{tx=0}L^{256}_{c=0}[E^{f64,g}_{tx,c}=A^{f64,g}_{tx,c}*2;];"
                  "B^{8}_{tx=0}L^{256}_{c=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+E^{f64,g}_{tx,c};];"
                  "B^{8}_{tx=0}[F^{f64,g}_{tx}=D^{f64,g}_{tx}+1;];"),
            {},
            {},
            {}};
  CostPolicy policy({.threads = 1});
  std::vector<Proposal> ps = policy.propose(r.make(1));
  ASSERT_EQ(ps.size(), 1u);
  ASSERT_TRUE(ps.front().program.ok());
  // A split or a tile of block 1's loops: no gain by itself, lanes right after it.
  EXPECT_NE(ps.front().step.find("(block=1, loop"), std::string::npos) << ps.front().step;
  expect_enables_lanes(r.program, ps.front(), 0.75);
}

TEST(CostPolicy, RanksAnInlineThatLetsFactorizationRemoveAPowFirst) {
  // MinGPTNewGelu's tanh argument, x^3 in a block of its own. Inlining the argument into the
  // tanh is the cheapest single step, but after it x^3 can only join the whole tanh, whose
  // factorization keeps the pow. Inlining x^3 into the argument first lets one factorization
  // turn x + 0.044715 x^3 into x (8943 x^2 + 200000) / 200000, whose square is a product
  // (libm's pow, which keeps a loop scalar, is gone): the cheapest program two steps away, so
  // that inline is offered first.
  Request r{parse("input A f64[64,64]\noutput C f64[64,64]\n"
                  "B^{64}_{tx=0}L^{64}_{a=0}[E^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}**(3);];"
                  "B^{64}_{tx=0}L^{64}_{a=0}[H^{f64,g}_{tx,a}=(A^{f64,g}_{tx,a}+"
                  "E^{f64,g}_{tx,a}*0.044715)*0.7978845608028654;];"
                  "B^{64}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=1-2/(exp(2*H^{f64,g}_{tx,a})+1);];"),
            {},
            {},
            {}};
  const std::string inline_x3 = "compute_inline(block=0, tensor=E)";
  Result<leir::Program> inlined = apply_step_text(r.program, inline_x3);
  Result<leir::Program> inlined_argument =
      apply_step_text(r.program, "compute_inline(block=1, tensor=H)");
  ASSERT_TRUE(inlined.ok());
  ASSERT_TRUE(inlined_argument.ok());
  EXPECT_LT(estimated_cost(*inlined_argument), estimated_cost(*inlined));
  Result<leir::Program> factored = apply_step_text(*inlined, "factorization(block=0, stmt=0)");
  ASSERT_TRUE(factored.ok());
  const std::string text = leir::print_program(*factored);
  EXPECT_EQ(text.find("**(3)"), std::string::npos) << text;
  EXPECT_LT(estimated_cost(*factored), 0.5 * estimated_cost(r.program));
  CostPolicy policy({.threads = 1});
  std::vector<Proposal> ps = policy.propose(r.make(2));
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps.front().step, inline_x3);
  // Its own program is priced no lower than the other inline's, so the proposal promises the
  // factorization's predicted gain (what keeps it in a beam ranked by measurement); the runner-up
  // foresees nothing.
  EXPECT_GT(ps.front().promise, estimated_cost(*inlined) / estimated_cost(*factored) * 0.9);
  EXPECT_GT(ps.front().promise, 2.0);
  EXPECT_EQ(ps.back().promise, 1.0);
}

TEST(CostPolicy, BetweenStepsOfEqualEstimateRanksTheOneWithFewerLoopsFirst) {
  // A sum over a (64, 128) plane: splitting d by 16 and tiling (c, d) by (2, 16) both let the
  // next step run the sum in 16 lanes, and the model prices the two programs alike. The tile
  // interleaves two rows of each stream (measured at half the split's speed on LayerNorm's
  // sums); the split, one loop fewer, goes first.
  Request r{parse("input A f64[8,64,128]\noutput D f64[8]\n"
                  "B^{8}_{tx=0}L^{64}_{c=0}L^{128}_{d=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+"
                  "A^{f64,g}_{tx,c,d};];"),
            {},
            {},
            {}};
  CostPolicy policy({.threads = 1});
  const std::vector<std::string> ranked = steps_of(policy.propose(r.make(1000)));
  auto at = [&](const std::string& step) {
    return std::find(ranked.begin(), ranked.end(), step) - ranked.begin();
  };
  ASSERT_LT(at("loop_tiling(block=0, loops=c,d, factors=2,16)"), std::ssize(ranked));
  EXPECT_EQ(ranked.front(), "loop_split(block=0, loop=d, factor=16)");
  EXPECT_LT(at("loop_split(block=0, loop=d, factor=16)"),
            at("loop_tiling(block=0, loops=c,d, factors=2,16)"));
}

TEST(CostPolicy, RanksATileThatLanesTurnIntoARegisterTileFirst) {
  // Two matrix products (A·Bᵀ and C·Bᵀ). Tiling (tx, a) of either gains nothing by itself, but
  // after a split of c by 16 and one vectorization the C backend jams the tile into 16
  // accumulators. A reorder that only makes one product's estimate cheaper leaves the other
  // product's lanes exactly as reachable as before, so it must not borrow their gain.
  Request r{parse("input A f64[64,256]\ninput C f64[64,256]\nparam B f64[64,256]\n"
                  "output F f64[64,64]\noutput G f64[64,64]\n"
                  "B^{64}_{tx=0}L^{64}_{a=0}L^{256}_{c=0}[F^{f64,g}_{tx,a}=F^{f64,g}_{tx,a}+"
                  "A^{f64,g}_{tx,c}*B^{f64,g}_{a,c};];"
                  "B^{64}_{tx=0}L^{64}_{a=0}L^{256}_{c=0}[G^{f64,g}_{tx,a}=G^{f64,g}_{tx,a}+"
                  "C^{f64,g}_{tx,c}*B^{f64,g}_{a,c};];"),
            {},
            {},
            {}};
  CostPolicy policy({.threads = 1});
  std::vector<Proposal> ps = policy.propose(r.make(2));
  ASSERT_EQ(ps.size(), 2u);
  for (const Proposal& p : ps) EXPECT_EQ(p.step.rfind("loop_tiling(", 0), 0u) << p.step;
}

TEST(Replay, ReproducesTheProgramOfATrace) {
  leir::Program p0 = parse(kMatmul);
  EnumeratePolicy policy;
  Request r{p0, {}, {}, {}};
  Proposal first = std::move(policy.propose(r.make(1)).front());
  ASSERT_TRUE(first.program.ok());
  Request r1{*first.program, {}, {}, {}};
  Proposal second = std::move(policy.propose(r1.make(1)).front());
  ASSERT_TRUE(second.program.ok());
  auto replayed = replay(p0, {first.step, second.step});
  ASSERT_TRUE(replayed.ok());
  EXPECT_TRUE(*replayed == *second.program);
  auto bad = replay(p0, {"llm:loop_tiling"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().category, "not_replayable");
  auto infeasible = replay(p0, {"loop_unrolling(block=9, loop=zz)"});
  ASSERT_FALSE(infeasible.ok());
  EXPECT_EQ(infeasible.error().category, "infeasible");
}

}  // namespace
}  // namespace steptp::search
