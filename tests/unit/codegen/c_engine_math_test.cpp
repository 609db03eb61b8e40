// The compiled C's loops and math against the interpreter: streaming stores, bound loops, slice
// arrays, index guards, register tiles, exp/log/erf through libmvec, guarded loop ranges.
#include <gtest/gtest.h>

#include "c_engine_test_support.h"

namespace steptp::codegen {
namespace {

// The staged rows hold exactly the values the statement computes: the streamed tensors equal
// the interpreter's bit for bit, with 2 threads each fencing its own stores.
TEST(CEngine, StreamingStoresWriteTheInterpretersValues) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[6,16,24]\noutput C f64[6,16,24]\noutput D f64[6,17,20]\n"
      "B^{6}_{tx=0}L^{16}_{a=0}L^{24}_{c=0}[C^{f64,g}_{tx,a,c}=exp(A^{f64,g}_{tx,a,c})/3;];"
      "B^{6}_{tx=0}L^{17}_{a=0}L^{20}_{c=0}[D^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a%16,c+1}*7-1;];\n",
      "stream.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  CEngineOptions options = test_options();
  options.emit.streaming_store_min_bytes = 0;
  Result<CSource> c = emit_c(*p, options.emit);
  ASSERT_TRUE(c.ok()) << c.error().render();
  // Rows of 24 and of 20 elements: every 4-element run starts on a 32-byte boundary of the
  // engine's cache-line-aligned buffers. Both nests stream.
  EXPECT_EQ(count(c->code, "stp_stream_row(&"), 2) << c->code;
  std::vector<leir::TensorData> inputs = seeded_inputs(*p, 5);
  Result<std::vector<leir::TensorData>> expected = interp::run_program(*p, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().render();
  Result<std::vector<leir::TensorData>> got = run_compiled(*p, inputs, options);
  ASSERT_TRUE(got.ok()) << got.error().render();
  ASSERT_EQ(got->size(), 2u);
  for (size_t out = 0; out < 2; ++out) {
    ASSERT_EQ((*got)[out].values.size(), (*expected)[out].values.size());
    for (size_t k = 0; k < (*got)[out].values.size(); ++k)
      ASSERT_EQ((*got)[out].values[k], (*expected)[out].values[k])
          << "output " << out << " element " << k;
  }
}

// A bound loop inside a sequential loop opens a parallel region on every iteration of that
// loop, so only one with enough work per region (2^15 statement executions) becomes one.
TEST(CEmitter, SmallBoundLoopsInsideSerialLoopsRunSequentially) {
  const NamedProgram* np = nullptr;
  for (const NamedProgram& q : codegen_programs())
    if (q.name == "bound_loops_inside_serial_loops") np = &q;
  ASSERT_NE(np, nullptr);
  Result<leir::Program> p = leir::parse_program(np->text, "nested.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  Result<CSource> c = emit_c(*p, CEmitOptions{});
  ASSERT_TRUE(c.ok()) << c.error().render();
  std::string tiled = block_code(c->code, 0);
  std::string large = block_code(c->code, 1);
  ASSERT_FALSE(tiled.empty()) << c->code;
  ASSERT_FALSE(large.empty()) << c->code;
  EXPECT_EQ(count(tiled, "#pragma omp parallel"), 0) << tiled;
  EXPECT_EQ(count(tiled, "#pragma omp simd"), 1) << tiled;
  EXPECT_EQ(count(large, "#pragma omp parallel for"), 1) << large;
}

// What GCC does with the emitted unit: tensor pointers reach every loop nest as restrict
// parameters (also inside the function an OpenMP parallel region is outlined into), so a
// loop that stores is vectorized without a run-time aliasing check, and GCC's own loop
// interchange leaves the schedule's order alone. A convolution row (d innermost, stored every
// step) ran 2x slower behind the check and 3x slower interchanged.
TEST(CEmitter, LoopNestsGetRestrictPointersAndKeepTheirOrder) {
  // Rows of 200, too wide to stay in registers (find_stationary_tile), even in 8-double
  // vectors: GCC vectorizes the loop.
  Result<leir::Program> p = leir::parse_program(
      "input A f64[2,3,32,202]\nparam C f64[16,3,3,3]\noutput F f64[2,16,30,200]\n"
      "B^{2}_{tx=0}L^{16}_{a=0}L^{30}_{c=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{200}_{d=0}"
      "[F^{f64,g}_{tx,a,c,d}=F^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
      "\n",
      "conv.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  Result<CSource> c = emit_c(*p, CEmitOptions{});
  ASSERT_TRUE(c.ok()) << c.error().render();
  std::string region = block_code(c->code, 0);
  EXPECT_NE(region.find("static void stp_block0_region1(double* restrict t_A, double* restrict "
                        "t_C, double* restrict t_F, int64_t i_tx) {"),
            std::string::npos)
      << c->code;
  EXPECT_NE(region.find("stp_block0_region1(t_A, t_C, t_F, i_tx);"), std::string::npos) << region;

  std::string report;
  ASSERT_NO_FATAL_FAILURE(
      report = gcc_optimization_report(c->code, "codegen-restrict-test",
                                       "-fopt-info-vec-optimized -fopt-info-loop-optimized"));
  EXPECT_NE(report.find("loop vectorized"), std::string::npos) << report;
  EXPECT_EQ(report.find("possible aliasing"), std::string::npos) << report;
  EXPECT_EQ(report.find("interchanged"), std::string::npos) << report;
  EXPECT_EQ(report.find("unroll and jam"), std::string::npos) << report;
}

// An intermediate of scope l touched by one block, whose header loops fix some of its
// subscripts, lives in an array holding one slice, declared (and given its identity) inside the
// last fixing loop; inside a parallel loop the slice is declared in the loop's own function.
TEST(CEmitter, IntermediatesFixedByHeaderLoopsLiveInSliceArrays) {
  CSource c = emitted("fused_row_local_slice", with_regions());
  std::string row = block_code(c.code, 0);
  EXPECT_NE(row.find("for (int64_t i_c = 0; i_c < 4; ++i_c) {\n      double t_G[4];\n"
                     "      for (int64_t k = 0; k < 4; ++k) t_G[k] = 0.0;"),
            std::string::npos)
      << row;
  EXPECT_NE(row.find("t_G[i_d] = (t_G[i_d] + t_D[i_a]);"), std::string::npos) << row;
  std::string pair = block_code(c.code, 1);
  EXPECT_NE(pair.find("int64_t i_tx, int64_t i_ty) {\n  double t_H[5];\n"
                      "  for (int64_t k = 0; k < 5; ++k) t_H[k] = (-HUGE_VAL);"),
            std::string::npos)
      << pair;
  EXPECT_EQ(count(c.code, "t_G[k] = "), 1) << c.code;  // no whole-tensor prefill
  EXPECT_EQ(count(c.code, "buffers["), 5) << c.code;   // A, C, D, F, K: G and H have none
}

// Guards made of index arithmetic compare in int64 (the naive C of a strided transposed
// convolution called libm's fmod six times per iteration and ran 25x slower); a comparison
// with a fractional side keeps the interpreter's double arithmetic.
TEST(CEmitter, IndexGuardsCompareInIntegers) {
  CSource c = emitted("strided_transposed_conv_guard");
  std::string kernel = c.code.substr(c.code.find("static void stp_block"));
  // Stride 2: the floor modulo and division by a power of two print as a mask and a shift.
  EXPECT_NE(kernel.find("((((i_c + 1) - i_h) & 1) == 0)"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("(0 <= (((i_c + 1) - i_h) >> 1))"), std::string::npos) << kernel;
  EXPECT_EQ(count(kernel, "stp_floordiv_f("), 0) << kernel;
  EXPECT_EQ(count(kernel, "stp_mod_f("), 1) << kernel;  // (c-4)%3 < c*0.5
  EXPECT_NE(kernel.find("(stp_mod_f((((double)i_c) - 4.0), 3.0) < (((double)i_c) * 0.5))"),
            std::string::npos)
      << kernel;
}

// A guarded accumulation's innermost loop of 16+ iterations runs over the range its guard
// allows, with no per-iteration test left (links without the loop variable stay a test); the
// bounds divide with floor semantics. A loop of 5 keeps its guard: GCC unrolls it.
TEST(CEmitter, GuardedAccumulationsLoopOverTheRangeTheirGuardAllows) {
  CSource c = emitted("guarded_accumulation_ranges");
  std::string conv = block_code(c.code, 0);
  EXPECT_NE(conv.find("for (int64_t i_c = stp_max_i(0, (0 + (2 * i_f))); "
                      "i_c < stp_min_i(24, (19 + (2 * i_f)) + 1); ++i_c)"),
            std::string::npos)
      << conv;
  EXPECT_EQ(count(conv, "?"), 0) << conv;
  std::string taps = block_code(c.code, 1);  // 0 <= c-3f < 20: ceil((c-19)/3) <= f <= floor(c/3)
  EXPECT_NE(taps.find("i_f = stp_max_i(0, -stp_floordiv_i((19 + ((-1) * i_c)), 3)); "
                      "i_f < stp_min_i(16, stp_floordiv_i((0 + (1 * i_c)), 3) + 1)"),
            std::string::npos)
      << taps;
  std::string prefix = block_code(c.code, 2);
  EXPECT_NE(prefix.find("i_c = 0; i_c < stp_min_i(20, ((-1) + (1 * i_a)) + 1)"), std::string::npos)
      << prefix;
  EXPECT_EQ(count(prefix, "?"), 0) << prefix;
  std::string with_residual = block_code(c.code, 3);
  EXPECT_NE(with_residual.find("if (((i_a >= 1)))"), std::string::npos) << with_residual;
  EXPECT_EQ(count(with_residual, "?"), 0) << with_residual;

  Result<leir::Program> short_taps = leir::parse_program(
      "input Y f64[20]\noutput S f64[40]\n"
      "L^{40}_{c=0}L^{5}_{f=0}[S^{f64,g}_{c}=S^{f64,g}_{c}+if_then_else(0<=c-f*3<20,"
      "Y^{f64,g}_{c-f*3},0);];\n");
  ASSERT_TRUE(short_taps.ok()) << short_taps.error().render();
  Result<CSource> kept = emit_c(*short_taps, CEmitOptions{});
  ASSERT_TRUE(kept.ok()) << kept.error().render();
  EXPECT_NE(block_code(kept->code, 0).find("for (int64_t i_f = 0; i_f < 5; ++i_f)"),
            std::string::npos)
      << kept->code;
}

TEST(CEmitter, RowsAccumulatedAcrossReductionLoopsStayInVectorRegisters) {
  CSource c = emitted("stationary_vector_tiles", as_written());
  auto after_loops = [](const std::string& code, const std::string& last_loop,
                        const std::string& store) {  // every store follows the last loop
    size_t loop = code.rfind(last_loop), first_store = code.find(store);
    return loop != std::string::npos && first_store != std::string::npos && first_store > loop;
  };
  std::string conv = block_code(without_wide_versions(c.code), 0);
  EXPECT_NE(conv.find("stp_v4d stp_v0_0, stp_v0_1, stp_v0_2;"), std::string::npos) << conv;
  EXPECT_NE(conv.find("const int64_t i_d = 6;"), std::string::npos) << conv;  // overlapping
  EXPECT_EQ(conv.find("for (int64_t i_d"), std::string::npos) << conv;
  EXPECT_TRUE(after_loops(conv, "for (int64_t i_g", ") = stp_v0_")) << conv;
  std::string kernel = block_code(c.code, 1);  // 6 rows x 2 vectors, only k stays a loop
  EXPECT_NE(kernel.find("stp_v5_1"), std::string::npos) << kernel;
  EXPECT_EQ(count(kernel, "for (int64_t"), 1) << kernel;
  EXPECT_NE(kernel.find("for (int64_t i_k = 0; i_k < 16; ++i_k)"), std::string::npos) << kernel;
  std::string rows = block_code(c.code, 2);
  EXPECT_NE(rows.find("const int64_t i_a = 4; const int64_t i_d = 1;"), std::string::npos) << rows;

  // A product is not a sum: its rows stay in memory.
  Result<leir::Program> product = leir::parse_program(
      "input Y f64[3,8]\noutput E f64[8]\n"
      "L^{3}_{k=0}L^{8}_{n=0}[E^{f64,g}_{n}=E^{f64,g}_{n}*Y^{f64,g}_{k,n};];\n");
  ASSERT_TRUE(product.ok()) << product.error().render();
  Result<CSource> plain = emit_c(*product, CEmitOptions{});
  ASSERT_TRUE(plain.ok()) << plain.error().render();
  EXPECT_EQ(plain->code.find("stp_v4d"), std::string::npos) << plain->code;
}

// Registers change where the running sums live, not how they are rounded: every element gets
// its updates in the program's order, so the compiled outputs equal the interpreter's exactly.
TEST(CEngine, StationaryVectorTilesAreBitIdenticalToTheInterpreter) {
  Result<leir::Program> p =
      leir::parse_program(program_named("stationary_vector_tiles").text, "tiles.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  std::vector<leir::TensorData> inputs = seeded_inputs(*p, 7);
  Result<std::vector<leir::TensorData>> expected = interp::run_program(*p, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().render();
  Result<std::vector<leir::TensorData>> got = run_compiled(*p, inputs, test_options());
  ASSERT_TRUE(got.ok()) << got.error().render();
  ASSERT_EQ(got->size(), expected->size());
  for (size_t i = 0; i < got->size(); ++i) EXPECT_EQ((*got)[i].values, (*expected)[i].values);
}

// The interpreter's outputs and the compiled kernel's for input `a`, whose first values
// `specials` replace first.
void run_both_ways(const leir::Program& p, leir::TensorData& a, const std::vector<double>& specials,
                   std::vector<leir::TensorData>& expected, std::vector<leir::TensorData>& got) {
  std::copy(specials.begin(), specials.end(), a.values.begin());
  Result<std::vector<leir::TensorData>> interpreted = interp::run_program(p, {a});
  ASSERT_TRUE(interpreted.ok()) << interpreted.error().render();
  Result<std::vector<leir::TensorData>> compiled = run_compiled(p, {a}, test_options());
  ASSERT_TRUE(compiled.ok()) << compiled.error().render();
  expected = std::move(interpreted).value();
  got = std::move(compiled).value();
}

// exp is the interpreter's own stp_exp, pasted into the kernel, and log libm's through
// libmvec's vector variants (stp_vlog): over the whole range (overflow to infinity, results in
// the subnormals, underflow to zero, NaN, log of negatives and zero) the compiled exp equals the
// interpreter's bit for bit and the compiled log is within 2 ulp of it, special values exact;
// and GCC vectorizes the loop that takes both, a NaN-propagating max (ReLU) and a select whose
// arm calls them (softplus, printed as a bit blend: one branch in a loop that calls a function
// keeps GCC from vectorizing it).
TEST(CEngine, ExpIsTheInterpretersOwnAndLogGoesThroughLibmvecAndTheirLoopsVectorize) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[6,64]\noutput C f64[6,64]\noutput D f64[6,64]\noutput E f64[6,64]\n"
      "B^{6}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(exp(A^{f64,g}_{tx,a}),0.5);"
      "D^{f64,g}_{tx,a}=log(A^{f64,g}_{tx,a}*A^{f64,g}_{tx,a}*0.01-1);"
      "E^{f64,g}_{tx,a}=if_then_else(A^{f64,g}_{tx,a}>20,A^{f64,g}_{tx,a},"
      "log(1+exp(A^{f64,g}_{tx,a})));];\n",
      "exp.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  leir::TensorData a{"A", leir::DType::kF64, {6, 64}, {}};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> wide(-760.0, 720.0);
  for (int64_t k = 0; k < 6 * 64; ++k) a.values.push_back(wide(rng));
  const std::vector<double> specials = {0.0,
                                        -0.0,
                                        1.0,
                                        -1.0,
                                        709.78,
                                        709.79,
                                        -745.13,
                                        -745.14,
                                        -708.5,
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN()};
  std::vector<leir::TensorData> expected, got;
  ASSERT_NO_FATAL_FAILURE(run_both_ways(*p, a, specials, expected, got));
  ASSERT_EQ(got.size(), 3u);
  for (size_t out = 0; out < 3; ++out) {
    const std::vector<double>& want = expected[out].values;
    const std::vector<double>& have = got[out].values;
    ASSERT_EQ(have.size(), want.size());
    for (size_t k = 0; k < have.size(); ++k) {
      if (std::isnan(want[k])) {
        EXPECT_TRUE(std::isnan(have[k])) << "output " << out << " element " << k;
        continue;
      }
      if (out == 0 || (out == 1 && k < specials.size()) || std::isinf(want[k]))
        EXPECT_EQ(have[k], want[k])
            << "output " << out << " element " << k << ": A = " << a.values[k];
      else  // log's 2 ulp, in softplus on a bit-identical 1 + exp(x)
        EXPECT_TRUE(within_ulps(have[k], want[k], 2))
            << "output " << out << " element " << k << ": A = " << a.values[k] << ", " << have[k]
            << " vs " << want[k];
    }
  }
  const std::vector<double>& c_out = expected[0].values;
  const std::vector<double>& d_out = expected[1].values;
  EXPECT_TRUE(std::isnan(c_out[11]));  // NaN propagates through max too
  EXPECT_EQ(c_out[5], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(d_out[0]));                             // log(-1)
  EXPECT_EQ(d_out[9], std::numeric_limits<double>::infinity());  // log(inf)
  EXPECT_EQ(expected[2].values[5], 709.79);                      // the select's other arm

  Result<CSource> c = emit_c(*p, with_regions());
  ASSERT_TRUE(c.ok()) << c.error().render();
  EXPECT_NE(c->code.find("stp_exp(t_A["), std::string::npos) << c->code;
  EXPECT_NE(c->code.find("stp_vlog("), std::string::npos) << c->code;
  EXPECT_NE(c->code.find("stp_select(((t_A["), std::string::npos) << c->code;
  // 512-bit vectors where the machine has them: the comparison above ran those.
  EXPECT_EQ(count(c->code, "STP_WIDE_MATH static"), 2) << c->code;
  std::string assembly;
  ASSERT_NO_FATAL_FAILURE(assembly = gcc_assembly(c->code, "codegen-exp-test"));
  const std::string lanes = machine_has_wide_vectors() ? "_ZGVeN8v_" : "_ZGVdN4v_";
  EXPECT_NE(assembly.find(lanes + "log"), std::string::npos);
  EXPECT_EQ(assembly.find("v_exp"), std::string::npos);
  std::string report;
  ASSERT_NO_FATAL_FAILURE(
      report = gcc_optimization_report(c->code, "codegen-exp-test", "-fopt-info-vec-optimized"));
  EXPECT_NE(report.find("loop vectorized"), std::string::npos) << report;
}

// A block with a read only a select's branch may make (a guard) keeps that select a branch,
// and with it the interpreter's inline stp_log, which GCC if-converts along with it: the loop
// still vectorizes, and the outputs equal the interpreter's bit for bit. So does a block whose
// selects need no libmvec call around them.
TEST(CEngine, GuardedReadsKeepTheInlineLogAndStillVectorize) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[6,64]\noutput C f64[6,64]\noutput D f64[6,64]\n"
      "B^{6}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=if_then_else(a>=1,log(A^{f64,g}_{tx,a-1}),0)"
      "+log(A^{f64,g}_{tx,a});];"
      "B^{6}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=if_then_else(A^{f64,g}_{tx,a}>1,"
      "exp(A^{f64,g}_{tx,a}),0);];\n",
      "guarded_log.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  Result<CSource> c = emit_c(*p, CEmitOptions{});
  ASSERT_TRUE(c.ok()) << c.error().render();
  EXPECT_EQ(c->code.find("stp_vlog(t_A"), std::string::npos) << c->code;
  EXPECT_EQ(c->code.find("stp_select("), c->code.find("stp_select(int")) << c->code;
  EXPECT_NE(c->code.find("stp_log(t_A["), std::string::npos) << c->code;
  std::string report;
  ASSERT_NO_FATAL_FAILURE(report = gcc_optimization_report(c->code, "codegen-guarded-log-test",
                                                           "-fopt-info-vec-optimized"));
  EXPECT_GE(count(report, "loop vectorized"), 2) << report;
  leir::TensorData a{"A", leir::DType::kF64, {6, 64}, {}};
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> values(0.001, 30.0);
  for (int64_t k = 0; k < 6 * 64; ++k) a.values.push_back(values(rng));
  std::vector<leir::TensorData> expected, got;
  ASSERT_NO_FATAL_FAILURE(run_both_ways(*p, a, {}, expected, got));
  EXPECT_EQ(got[0].values, expected[0].values);
  EXPECT_EQ(got[1].values, expected[1].values);
}

// erf is libm's, declared with libmvec's vector variants (stp_erf): a GELU row vectorizes, and
// the variants stay within 2 ulp of the interpreter's scalar erf over its whole range, special
// values exact (signed zeros, infinities, NaN, subnormals, the saturated tails).
TEST(CEngine, ErfLoopsVectorizeThroughLibmvecWithin2UlpOfTheInterpreter) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[8,512]\noutput C f64[8,512]\noutput D f64[8]\n"
      "B^{8}_{tx=0}L^{512}_{a=0}[C^{f64,g}_{tx,a}=erf(A^{f64,g}_{tx,a});];"
      "B^{8}_{tx=0}V^{512}_{a=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+A^{f64,g}_{tx,a}*0.5*"
      "(1+erf(A^{f64,g}_{tx,a}*0.7071067811865476));];\n",
      "erf.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  leir::TensorData a{"A", leir::DType::kF64, {8, 512}, {}};
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> core(-6.5, 6.5), exponent(-1070.0, 8.0);
  for (int64_t k = 0; k < 8 * 512; ++k) {
    double x = k % 2 == 0 ? core(rng) : std::ldexp(1.0, static_cast<int>(exponent(rng)));
    a.values.push_back(k % 3 == 0 ? -x : x);
  }
  const std::vector<double> specials = {0.0,
                                        -0.0,
                                        1e-310,
                                        -1e-310,
                                        5.9,
                                        -5.9,
                                        27.0,
                                        -27.0,
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN()};
  std::vector<leir::TensorData> expected, got;
  ASSERT_NO_FATAL_FAILURE(run_both_ways(*p, a, specials, expected, got));
  const std::vector<double>& want = expected[0].values;
  const std::vector<double>& have = got[0].values;
  ASSERT_EQ(have.size(), want.size());
  for (size_t k = 0; k < std::size(specials); ++k) {
    if (std::isnan(want[k])) {
      EXPECT_TRUE(std::isnan(have[k])) << "element " << k;
      continue;
    }
    EXPECT_EQ(have[k], want[k]) << "A = " << a.values[k];
    EXPECT_EQ(std::signbit(have[k]), std::signbit(want[k])) << "A = " << a.values[k];
  }
  for (size_t k = std::size(specials); k < have.size(); ++k)
    EXPECT_TRUE(within_ulps(have[k], want[k], 2)) << "A = " << a.values[k];
  // The GELU sums differ by the rounding of their terms and their order (lanes) only; row 0
  // holds the specials (its infinities and NaN make it NaN).
  EXPECT_TRUE(std::isnan(got[1].values[0]));
  for (size_t row = 1; row < 8; ++row)
    EXPECT_NEAR(got[1].values[row], expected[1].values[row],
                1e-12 * std::fabs(expected[1].values[row]))
        << "row " << row;
  Result<CSource> c = emit_c(*p, CEmitOptions{});
  ASSERT_TRUE(c.ok()) << c.error().render();
  EXPECT_NE(c->code.find("= stp_erf(t_A["), std::string::npos) << c->code;
  EXPECT_NE(c->code.find("(1.0 + stp_erf((t_A["), std::string::npos) << c->code;
  std::string assembly;
  ASSERT_NO_FATAL_FAILURE(assembly = gcc_assembly(c->code, "codegen-erf-test"));
  EXPECT_NE(assembly.find("_ZGVdN4v_erf"), std::string::npos);  // libmvec's AVX2 variant
  std::string report;
  ASSERT_NO_FATAL_FAILURE(
      report = gcc_optimization_report(c->code, "codegen-erf-test", "-fopt-info-vec-optimized"));
  EXPECT_GE(count(report, "loop vectorized"), 2) << report;
}

// Which nests keep a row in registers: a sum whose row moves along the last subscript of the
// destination and of every read that mentions it, with loops to reduce over.
TEST(StationaryTile, KeepsARowInRegistersAcrossTheLoopsThatReduceIntoIt) {
  auto tile = [](const std::string& decls, const std::string& body) {
    Result<leir::Program> p = leir::parse_program(decls + body + "\n");
    STEPTP_CHECK(p.ok(), "test program does not parse");
    Result<leir::TensorTable> table = leir::infer_tensor_table(*p);
    STEPTP_CHECK(table.ok(), "test program has no tensor table");
    return find_stationary_tile(p->blocks.front(), *table);
  };
  const std::string d = "input X f64[6,16]\ninput Y f64[16,64]\noutput E f64[6,64]\n";
  std::optional<StationaryTile> kernel =
      tile(d,
           "L^{2}_{i=0}L^{16}_{k=0}L^{3}_{j=0}L^{6}_{n=0}[E^{f64,g}_{i*3+j,n}="
           "E^{f64,g}_{i*3+j,n}-X^{f64,g}_{i*3+j,k}*Y^{f64,g}_{k,n};];");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->first, 0u);
  EXPECT_EQ(kernel->reduction, (std::vector<size_t>{1}));
  EXPECT_EQ(kernel->jammed, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(kernel->rows, 6);
  EXPECT_EQ(kernel->vectors, 2);
  ASSERT_EQ(kernel->row_reads.size(), 1u);
  EXPECT_EQ(leir::print(kernel->row_reads[0]), "Y^{f64,g}_{k,n}");
  EXPECT_EQ(stationary_vector_start(6, 1), 2);
  // Only loops inside the first refused one join: 6 rows of 12 would need 18 vectors, more
  // than the registers hold, so i stays an ordinary loop outside the tile's 3 rows.
  std::optional<StationaryTile> inner =
      tile(d,
           "L^{2}_{i=0}L^{3}_{j=0}L^{16}_{k=0}L^{12}_{n=0}[E^{f64,g}_{i*3+j,n}="
           "E^{f64,g}_{i*3+j,n}+X^{f64,g}_{i*3+j,k}*Y^{f64,g}_{k,n};];");
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->first, 1u);
  EXPECT_EQ(inner->jammed, (std::vector<size_t>{1}));
  EXPECT_EQ(inner->rows, 3);
  EXPECT_EQ(inner->vectors, 3);
  auto refused = [&](const std::string& body) { return !tile(d, body); };
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{8}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}*Y^{f64,g}_{k,n};];"));
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{8}_{n=0}[E^{f64,g}_{0,n}=max(E^{f64,g}_{0,n},"
              "Y^{f64,g}_{k,n});];"));
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{8}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}+"
              "exp(Y^{f64,g}_{k,n});];"));
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{8}_{n=0}[E^{f64,g}_{0,n*2}=E^{f64,g}_{0,n*2}+"
              "Y^{f64,g}_{k,n};];"));  // not consecutive
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{6}_{n=0}[E^{f64,g}_{n,0}=E^{f64,g}_{n,0}+"
              "Y^{f64,g}_{k,n};];"));  // the row is not the last subscript
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{6}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}+"
              "Y^{f64,g}_{n,k};];"));  // a read that strides along the row
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{3}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}+"
              "Y^{f64,g}_{k,n};];"));  // shorter than a vector
  EXPECT_TRUE(
      refused("L^{16}_{k=0}L^{49}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}+"
              "Y^{f64,g}_{k,n};];"));  // 13 vectors
  EXPECT_TRUE(
      refused("L^{6}_{j=0}L^{8}_{n=0}[E^{f64,g}_{j,n}=E^{f64,g}_{j,n}+"
              "Y^{f64,g}_{j,n};];"));  // nothing to reduce over
  EXPECT_TRUE(
      refused("L^{1}_{k=0}L^{8}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}+"
              "Y^{f64,g}_{k,n};];"));  // one update per element
  EXPECT_TRUE(
      refused("P^{16}_{k=0}L^{8}_{n=0}[E^{f64,g}_{0,n}=E^{f64,g}_{0,n}+"
              "Y^{f64,g}_{k,n};];"));  // a parallel loop is not reduced here
  EXPECT_TRUE(!tile("input Y f32[16,8]\noutput E f32[8]\n",
                    "L^{16}_{k=0}L^{8}_{n=0}[E^{f32,g}_{n}=E^{f32,g}_{n}+Y^{f32,g}_{k,n};];"));
}

// Which guards give a loop range: only when a false guard leaves the accumulation unchanged
// (0 for +, -inf for max, inf for min) and every link on the loop variable is affine.
TEST(GuardedLoopRange, BoundsTheLoopOnlyWhereAFalseGuardIsANoOp) {
  auto range = [](const char* stmt, const char* var) {
    Result<std::vector<leir::Block>> body = leir::parse_body(stmt);
    STEPTP_CHECK(body.ok(), "test statement does not parse");
    return guarded_loop_range(*body->front().body[0].stmt, var);
  };
  std::optional<GuardedLoopRange> taps = range(
      "L^{8}_{c=0}L^{5}_{f=0}[S^{f64,g}_{c}=S^{f64,g}_{c}+if_then_else(0<=c-f*3<256,"
      "Y^{f64,g}_{c-f*3},0);];",
      "f");
  ASSERT_TRUE(taps);
  ASSERT_EQ(taps->bounds.size(), 2u);
  // 0 <= c-3f: f <= floor(c/3); c-3f < 256: f >= ceil((c-255)/3).
  EXPECT_FALSE(taps->bounds[0].lower);
  EXPECT_EQ(taps->bounds[0].divisor, 3);
  EXPECT_EQ(taps->bounds[0].numerator.constant, 0);
  EXPECT_EQ(taps->bounds[0].numerator.coefs, (std::map<std::string, int64_t>{{"c", 1}}));
  EXPECT_TRUE(taps->bounds[1].lower);
  EXPECT_EQ(taps->bounds[1].divisor, 3);
  EXPECT_EQ(taps->bounds[1].numerator.constant, -255);
  EXPECT_EQ(taps->bounds[1].numerator.coefs, (std::map<std::string, int64_t>{{"c", 1}}));
  EXPECT_EQ(leir::print(taps->stmt.rhs), "S^{f64,g}_{c}+Y^{f64,g}_{c-f*3}");
  EXPECT_TRUE(
      range("L^{8}_{a=0}L^{8}_{c=0}[M^{f64,g}_{a}=min(if_then_else(c>=a,Y^{f64,g}_{c},"
            "inf),M^{f64,g}_{a});];",
            "c"));
  // Not a no-op when false: a plain store, another else value, max with +inf.
  EXPECT_FALSE(
      range("L^{8}_{a=0}L^{8}_{c=0}[P^{f64,g}_{a}=if_then_else(c<a,Y^{f64,g}_{c},0);];", "c"));
  EXPECT_FALSE(
      range("L^{8}_{a=0}L^{8}_{c=0}[P^{f64,g}_{a}=P^{f64,g}_{a}+"
            "if_then_else(c<a,Y^{f64,g}_{c},1);];",
            "c"));
  EXPECT_FALSE(
      range("L^{8}_{a=0}L^{8}_{c=0}[M^{f64,g}_{a}=max(M^{f64,g}_{a},"
            "if_then_else(c<a,Y^{f64,g}_{c},inf));];",
            "c"));
  // Not a range: !=, a tensor in a link on the variable, no link on the variable at all.
  EXPECT_FALSE(
      range("L^{8}_{a=0}L^{8}_{c=0}[P^{f64,g}_{a}=P^{f64,g}_{a}+"
            "if_then_else(c!=a,Y^{f64,g}_{c},0);];",
            "c"));
  EXPECT_FALSE(
      range("L^{8}_{a=0}L^{8}_{c=0}[P^{f64,g}_{a}=P^{f64,g}_{a}+"
            "if_then_else(Y^{f64,g}_{c}>0,Y^{f64,g}_{c},0);];",
            "c"));
  EXPECT_FALSE(
      range("L^{8}_{a=0}L^{8}_{c=0}[P^{f64,g}_{a}=P^{f64,g}_{a}+"
            "if_then_else(a<3,Y^{f64,g}_{c},0);];",
            "c"));
}

}  // namespace
}  // namespace steptp::codegen
