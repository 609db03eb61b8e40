// The C emitter's vector code: reduction lanes, lane jams, wide (512-bit) versions, stationary
// tiles, wide math, streaming stores and merged rows, read in the emitted C and its assembly.
#include <gtest/gtest.h>

#include "c_engine_test_support.h"

namespace steptp::codegen {
namespace {

// A vectorized innermost reduction loop becomes an OpenMP simd reduction into a private
// accumulator when nothing around it can be jammed.
TEST(CEmitter, ReductionLanesBecomeSimdReductions) {
  CSource c = emitted("reduction_lanes_unjammed");
  EXPECT_EQ(count(c.code, "#pragma omp simd reduction(+:stp_acc)"), 1) << c.code;
  EXPECT_EQ(count(c.code, "stp_acc0"), 0) << c.code;
}

// Small independent loops around lanes become separate accumulators of one SIMD loop (the
// loops between them and the lanes, more of the same reduction, are collapsed into it).
// The omp simd jam is the version every compiler sees (narrow_part); where the machine has
// AVX-512 the eligible jams also get an explicit 512-bit one (tested below).
TEST(CEmitter, SmallLoopsAroundReductionLanesAreJammed) {
  CSource sum = emitted("reduction_lanes_sum_product");
  sum.code = narrow_part(sum.code);
  EXPECT_EQ(count(sum.code, "#pragma omp simd collapse(2) reduction(+:stp_acc0,stp_acc1,stp_acc2)"),
            1)
      << sum.code;
  EXPECT_EQ(count(sum.code, "#pragma omp simd reduction(+:stp_acc0,stp_acc1,stp_acc2)"), 1)
      << sum.code;
  EXPECT_EQ(count(sum.code, "#pragma omp simd collapse(2) reduction(*:stp_acc0,stp_acc1,stp_acc2)"),
            1)
      << sum.code;
  // tx pinned to 2 in the load, update and store of accumulator 2 of each of the 3 blocks.
  EXPECT_EQ(count(sum.code, "const int64_t i_tx = 2;"), 3 * 3) << sum.code;
  CSource minmax = emitted("reduction_lanes_max_min_f32");
  EXPECT_EQ(count(minmax.code,
                  "collapse(2) reduction(stp_maxr:stp_acc0,stp_acc1,stp_acc2,"
                  "stp_acc3,stp_acc4)"),
            1)
      << minmax.code;
  EXPECT_EQ(count(minmax.code,
                  "collapse(2) reduction(stp_minr:stp_acc0,stp_acc1,stp_acc2,"
                  "stp_acc3,stp_acc4)"),
            1)
      << minmax.code;
  EXPECT_NE(minmax.code.find("float stp_acc0"), std::string::npos) << minmax.code;
  // A register tile of a matrix product, the k tiles collapsed. Jamming all of tx (4 rows of
  // A) and a (4 rows of C) would take 16 accumulators + 4 held A rows + a streamed C row + a
  // product = 22 registers: it would spill. The jam takes the 4 A rows and f's 2 C rows (8
  // accumulators, 12 registers, 6 loads for 8 multiply-adds) and keeps a as a loop around it.
  CSource tile = emitted("register_tiled_matmul");
  tile.code = narrow_part(tile.code);
  EXPECT_EQ(count(tile.code, "#pragma omp simd collapse(2) reduction(+:stp_acc0,"), 1) << tile.code;
  EXPECT_EQ(count(tile.code, "stp_acc7 = "), 2) << tile.code;  // load and update, ...
  EXPECT_EQ(count(tile.code, "= stp_acc7;"), 1) << tile.code;  // ... and store
  EXPECT_EQ(count(tile.code, "stp_acc8"), 0) << tile.code;
  const size_t hoisted = tile.code.find("for (int64_t i_a = 0; i_a < 4; ++i_a) {");
  EXPECT_LT(hoisted, tile.code.find("#pragma omp simd collapse(2)")) << tile.code;
  EXPECT_EQ(count(tile.code, "const int64_t i_f = 1; const int64_t i_tx = 3;"), 3) << tile.code;
  // Over 5 lanes every load is assembled element by element (4 times a whole-vector load): the
  // 4x4 jam's 8 loads and 8 spilled registers per 16 updates (2.5 each) beat the 4x2 jam's 6
  // loads per 8 (3) and the 1x4 jam's 5 per 4 (5).
  CSource assembled = emitted("register_tiled_matmul_assembled_lanes");
  EXPECT_EQ(count(assembled.code, "= stp_acc15;"), 1) << assembled.code;
  // Under a parallel loop the jam is found on the whole block and kept in the region the loop
  // is outlined into (found again there, where e is a free variable of unknown range in the
  // same subscript, it would be missed: nothing shows that f and a own their elements).
  CSource region = emitted("register_tiled_matmul_under_parallel_loop");
  const std::string body = block_code(narrow_part(region.code), 0);
  EXPECT_EQ(count(body, "#pragma omp parallel for"), 1) << body;
  EXPECT_EQ(count(body, "#pragma omp simd collapse(2) reduction(+:stp_acc0,"), 1) << body;
  EXPECT_EQ(count(body, "= stp_acc7;"), 1) << body;
}

// Vectorized sums and products of lane-wise arithmetic run in functions marked STP_WIDE (512-bit
// vectors where the compiler driver defines STP_WIDE_VECTORS); max/min lanes, selects, calls and
// loops that are not reduction lanes keep the kernel's own vectors.
TEST(CEmitter, LaneWiseSumAndProductLanesAreMarkedWide) {
  CSource tile = emitted("register_tiled_matmul");
  EXPECT_EQ(count(narrow_part(tile.code), "STP_WIDE static void stp_block0("), 1) << tile.code;
  EXPECT_EQ(count(tile.code, "STP_WIDE static void stp_block0("), 2) << tile.code;  // + explicit
  CSource region = emitted("register_tiled_matmul_under_parallel_loop");
  EXPECT_EQ(count(narrow_part(region.code), "STP_WIDE static void stp_block0"), 2)
      << region.code;  // the block and the parallel region it outlines
  CSource products = emitted("reduction_lanes_sum_product");
  EXPECT_EQ(count(narrow_part(products.code), "STP_WIDE static void"), 3) << products.code;
  EXPECT_EQ(count(emitted("reduction_lanes_max_min_f32").code, "STP_WIDE static"), 0);
  for (const char* rhs : {"C^{f64,g}_{tx}+if_then_else(A^{f64,g}_{tx,c}>0,A^{f64,g}_{tx,c},0)",
                          "C^{f64,g}_{tx}+exp(A^{f64,g}_{tx,c})"}) {
    std::string text = fmt::format(
        "input A f64[4,16]\noutput C "
        "f64[4]\nB^{{4}}_{{tx=0}}V^{{16}}_{{c=0}}[C^{{f64,g}}_{{tx}}={};];"
        "\n",
        rhs);
    CSource c = emitted_text(text, "narrow.leir");
    EXPECT_EQ(count(c.code, "reduction(+:stp_acc0,stp_acc1,stp_acc2,stp_acc3)"), 1) << c.code;
    EXPECT_EQ(count(c.code, "STP_WIDE static"), 0) << c.code;
  }
  CSource serial = emitted_text(
      "input A f64[4,16]\noutput C f64[4]\n"
      "B^{4}_{tx=0}L^{16}_{c=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,c};];\n",
      "serial.leir");
  EXPECT_NE(serial.code.find("for (int64_t i_c = 0; i_c < 16; ++i_c)"), std::string::npos)
      << serial.code;
  EXPECT_EQ(count(serial.code, "STP_WIDE static"), 0) << serial.code;
}

// A block with a row kept in vector registers (find_stationary_tile) is written twice: with
// 8-double vectors under #if STP_WIDE_ENABLED (STP_WIDE_VECTORS and GCC), with 4-double ones
// after #else. Rows shorter than
// 8 and blocks with a select have one version.
TEST(CEmitter, StationaryTilesGetAWideVersionBesideTheNarrowOne) {
  CSource c = emitted("stationary_vector_tiles", as_written());
  // The block's parallel region comes first, then the block's own function.
  const size_t wide =
      c.code.find("#if defined(STP_WIDE_ENABLED)\nSTP_WIDE_TILE static void stp_block0_region1(");
  const size_t narrow = c.code.find("#else\nstatic void stp_block0_region1(");
  ASSERT_NE(wide, std::string::npos) << c.code;
  ASSERT_NE(narrow, std::string::npos) << c.code;
  ASSERT_LT(wide, narrow);
  const std::string wide_code = c.code.substr(wide, narrow - wide);
  // The row of 10: vectors at 0 and an overlapping one at 2.
  EXPECT_NE(wide_code.find("stp_v8d stp_v0_0, stp_v0_1;"), std::string::npos) << wide_code;
  EXPECT_NE(wide_code.find("const int64_t i_d = 2;"), std::string::npos) << wide_code;
  EXPECT_EQ(wide_code.find("stp_v4d"), std::string::npos) << wide_code;
  const size_t end = c.code.find("#endif\n", narrow);
  ASSERT_NE(end, std::string::npos);
  EXPECT_NE(c.code.substr(narrow, end - narrow).find("stp_v4d stp_v0_0, stp_v0_1, stp_v0_2;"),
            std::string::npos)
      << c.code;
  EXPECT_EQ(count(c.code, "STP_WIDE_TILE static void stp_block0("), 1) << c.code;
  EXPECT_EQ(count(c.code, "static void stp_block1("), 1) << c.code;  // rows of 6
  EXPECT_EQ(count(c.code, "static void stp_block2("), 1) << c.code;  // rows of 5

  CSource guarded = emitted_text(
      "input A f64[2,3,6,12]\nparam C f64[4,3,3,3]\noutput H f64[2,4,4,10]\n"
      "B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}[L^{3}_{f=0}L^{3}_{h=0}L^{3}_{g=0}L^{10}_{d=0}"
      "[G^{f64,g}_{tx,a,c,d}=G^{f64,g}_{tx,a,c,d}+C^{f64,g}_{a,f,g,h}*A^{f64,g}_{tx,f,c+g,d+h};];"
      "L^{10}_{d=0}[H^{f64,g}_{tx,a,c,d}=if_then_else(G^{f64,g}_{tx,a,c,d}>0,G^{f64,g}_{tx,a,c,d},"
      "0);];];\n",
      "guarded.leir");
  EXPECT_NE(guarded.code.find("stp_v4d stp_v0_0"), std::string::npos) << guarded.code;
  EXPECT_EQ(guarded.code.find("stp_v8d"), std::string::npos) << guarded.code;
  EXPECT_EQ(count(guarded.code, "static void stp_block0("), 1) << guarded.code;
}

// On a machine with AVX-512 the driver defines STP_WIDE_VECTORS, and GCC vectorizes a marked
// reduction with 64-byte vectors despite -mno-avx512f; elsewhere every loop keeps 32-byte ones.
TEST(CEngine, WideReductionsGet512BitVectorsExactlyWhereTheMachineHasThem) {
  const std::vector<std::string> flags = CompilerOptions{}.flags;
  const bool defined = std::find(flags.begin(), flags.end(), "-DSTP_WIDE_VECTORS") != flags.end();
  EXPECT_EQ(defined, machine_has_wide_vectors());
  std::string report;
  ASSERT_NO_FATAL_FAILURE(report = gcc_optimization_report(emitted("reduction_lanes_unjammed").code,
                                                           "codegen-wide-test",
                                                           "-fopt-info-vec-optimized"));
  EXPECT_EQ(report.find("loop vectorized using 64 byte vectors") != std::string::npos,
            machine_has_wide_vectors())
      << report;
  ASSERT_NO_FATAL_FAILURE(
      report = gcc_optimization_report(emitted("reduction_lanes_max_min_f32").code,
                                       "codegen-narrow-test", "-fopt-info-vec-optimized"));
  EXPECT_NE(report.find("loop vectorized using 32 byte vectors"), std::string::npos) << report;
  EXPECT_EQ(report.find("64 byte vectors"), std::string::npos) << report;
}

// Every vector load of a lane jam feeds several multiplies (register_tiled_matmul: 4 rows of A
// and 2 of C, 6 loads for 8 multiply-adds). GCC folds such a load into each multiply as a memory
// operand unless it schedules before register allocation, which STP_WIDE asks for: a 2x4 GEMM jam
// made 16 loads per reduction step instead of 6 and ran 5-30% slower (searched GEMM programs).
// The omp simd version (narrow_part: what wide jams that are not written explicitly keep).
TEST(CEngine, WideLaneJamsLoadEachVectorOnce) {
  const std::string assembly =
      gcc_assembly(narrow_part(emitted("register_tiled_matmul").code), "codegen-wide-loads-test");
  const std::string block = function_assembly(assembly, "stp_block0");
  ASSERT_FALSE(block.empty()) << assembly;
  const std::regex multiply_of_memory("\tvmulpd\t[^\n]*\\(");  // a memory operand: "(%reg"
  const std::regex wide_multiply("\tvmulpd\t[^\n]*%zmm");
  // The attribute adds to the command line's options: products are still not contracted into
  // fused multiply-adds (-ffp-contract=off), which would round differently.
  EXPECT_EQ(matches(block, std::regex("\tvfn?m(add|sub)")), 0) << block;
  if (machine_has_wide_vectors()) {
    EXPECT_GT(matches(block, wide_multiply), 0) << block;
    EXPECT_EQ(matches(block, multiply_of_memory), 0) << block;
  } else {
    EXPECT_EQ(matches(block, wide_multiply), 0) << block;  // 4-double vectors, loads as GCC likes
  }
}

// The 512-bit version of a lane jam of f64 sums over whole 8-double vectors is written in
// explicit vectors: chosen for AVX-512's 32 registers (4 x 4 here, where the omp simd version
// keeps to 8 accumulators), one stp_v8d accumulator per jam iteration, each distinct row loaded
// once per step and pinned in a register by an empty asm, the broadcast factor a scalar, the
// lanes summed into the destination after the loop. GCC left to the omp simd form spilled a
// 4 x 4 jam (4.0-4.9 ms on a 128x512x1024 GEMM against 2.7-3.0 ms written this way).
TEST(CEngine, WideLaneJamsAreExplicitVectorsWithEveryLoadInARegister) {
  CSource c = emitted("explicit_wide_lane_jam");
  const size_t wide = c.code.find("#if defined(STP_WIDE_ENABLED)\nSTP_WIDE static");
  const size_t narrow = c.code.find("#else\n", wide);
  ASSERT_NE(wide, std::string::npos) << c.code;
  ASSERT_NE(narrow, std::string::npos) << c.code;
  const std::string wide_code = c.code.substr(wide, narrow - wide);
  const std::string narrow_code = c.code.substr(narrow, c.code.find("#endif\n", narrow) - narrow);
  EXPECT_NE(wide_code.find("stp_v8d stp_w0 = {0.0}, "), std::string::npos) << wide_code;
  EXPECT_NE(wide_code.find("stp_w15 = {0.0};"), std::string::npos) << wide_code;
  EXPECT_EQ(wide_code.find("stp_w16"), std::string::npos) << wide_code;
  EXPECT_NE(wide_code.find("for (int64_t i_c = 0; i_c < 16; i_c += 8) {"), std::string::npos)
      << wide_code;
  // A's 4 rows and C's 4 rows, once each per step; S is a scalar of each update.
  EXPECT_EQ(count(wide_code, "(*(stp_v8d*)&t_A["), 4) << wide_code;
  EXPECT_EQ(count(wide_code, "(*(stp_v8d*)&t_C["), 4) << wide_code;
  EXPECT_EQ(count(wide_code, "(*(stp_v8d*)&t_S["), 0) << wide_code;
  EXPECT_NE(wide_code.find("__asm__(\"\" : \"+v\"(stp_l0), "), std::string::npos) << wide_code;
  EXPECT_NE(wide_code.find("(stp_w15[6] + stp_w15[7])"), std::string::npos) << wide_code;
  EXPECT_EQ(wide_code.find("omp simd"), std::string::npos) << wide_code;
  EXPECT_NE(narrow_code.find("#pragma omp simd collapse(2) reduction(+:stp_acc0,"),
            std::string::npos)
      << narrow_code;
  EXPECT_EQ(narrow_code.find("stp_v8d"), std::string::npos) << narrow_code;

  if (!machine_has_wide_vectors()) return;  // the wide version is not compiled here
  const std::string assembly = gcc_assembly(c.code, "codegen-explicit-jam-test");
  const std::string block = function_assembly(assembly, "stp_block0");
  ASSERT_FALSE(block.empty()) << assembly;
  // A memory operand other than a constant (A / 2 is A * 0.5 from the constant pool).
  const std::regex multiply_of_memory("\tvmulpd\t[^\n{]*\\((?!%rip)[^\n{]*\n");
  EXPECT_GT(count(block, "%zmm"), 0) << block;
  EXPECT_EQ(matches(block, multiply_of_memory), 0) << block;
  // -ffp-contract=off holds in the asm too.
  EXPECT_EQ(matches(block, std::regex("\tvfn?m(add|sub)")), 0) << block;
}

// In a wide tile whose rows are jammed, a row read that no jammed variable enters (the input
// row of a convolution jammed over output channels) is loaded once per tap into a variable and
// passed through an empty asm statement; GCC otherwise folded it into each channel's multiply
// (4 loads where 1 would do, accumulators spilled: 4.5-5.2 ms against 3.4-3.7 ms for
// Conv2D_ReLU_BiasAdd jammed over 4 channels). The narrow tile, also for clang, is unchanged.
TEST(CEngine, WideJammedTilesLoadSharedRowsOnce) {
  CSource c = emitted("jammed_wide_tiles");
  const size_t wide = c.code.find("#if defined(STP_WIDE_ENABLED)\nSTP_WIDE_TILE static");
  const size_t narrow = c.code.find("#else\n", wide);
  ASSERT_NE(wide, std::string::npos) << c.code;
  ASSERT_NE(narrow, std::string::npos) << c.code;
  const std::string wide_code = c.code.substr(wide, narrow - wide);
  const std::string narrow_code = c.code.substr(narrow, c.code.find("#endif\n", narrow) - narrow);
  // 4 channels x 2 vectors (at 0 and 2) accumulate; A's row is 2 shared vectors, W's is not.
  EXPECT_NE(wide_code.find("stp_v8d stp_v0_0, stp_v0_1, stp_v1_0, stp_v1_1, stp_v2_0, "
                           "stp_v2_1, stp_v3_0, stp_v3_1;"),
            std::string::npos)
      << wide_code;
  EXPECT_NE(wide_code.find("__asm__(\"\" : \"+v\"(stp_r0_0), \"+v\"(stp_r0_1));"),
            std::string::npos)
      << wide_code;
  EXPECT_EQ(count(wide_code, "(*(stp_v8d*)&t_A["), 2) << wide_code;  // once per vector
  EXPECT_EQ(count(wide_code, "(*(stp_v8d*)&t_W["), 8) << wide_code;  // per channel and vector
  EXPECT_EQ(narrow_code.find("__asm__"), std::string::npos) << narrow_code;
  EXPECT_EQ(narrow_code.find("stp_r0_0"), std::string::npos) << narrow_code;

  if (!machine_has_wide_vectors()) return;  // the wide tile is not compiled here
  const std::string assembly = gcc_assembly(c.code, "codegen-jammed-tile-test");
  const std::string region = function_assembly(assembly, "stp_block0_region1");
  ASSERT_FALSE(region.empty()) << assembly;
  const std::regex multiply_of_memory("\tvmulpd\t[^\n{]*\\([^\n{]*\n");  // not {1to8}
  EXPECT_GT(count(region, "\tvmulpd\t"), 0) << region;
  EXPECT_EQ(matches(region, multiply_of_memory), 0) << region;
}

// A perfect nest of elementwise exp/log (selects allowed when their branches read only what
// the condition reads) is marked STP_WIDE_MATH: AVX-512 and 512-bit vectors by target alone, so
// stp_exp still inlines (and log takes libmvec's 8-lane variant). erf may join them; alone it
// does not make a nest wide. Accumulations, guarded reads and nests inside another block's body
// keep the kernel's 256-bit vectors.
TEST(CEmitter, ElementwiseExpAndLogNestsAreMarkedWideMath) {
  const std::string softplus =
      "input A f64[4,40]\noutput C f64[4,40]\n"
      "B^{4}_{tx=0}L^{40}_{a=0}[C^{f64,g}_{tx,a}=if_then_else(A^{f64,g}_{tx,a}>20,"
      "A^{f64,g}_{tx,a},log(1+exp(A^{f64,g}_{tx,a})));];\n";
  CSource marked = emitted_text(softplus, "softplus.leir", with_regions());
  EXPECT_NE(marked.code.find("#define STP_WIDE_MATH __attribute__((target(\"avx512f,avx512vl,"
                             "avx512dq,avx512bw,prefer-vector-width=512\")))"),
            std::string::npos)
      << marked.code;
  EXPECT_EQ(count(marked.code, "STP_WIDE_MATH static void"), 2) << marked.code;  // region + block
  CSource with_erf = emitted_text(
      "input A f64[4,40]\noutput C f64[4,40]\n"
      "B^{4}_{tx=0}L^{40}_{a=0}[C^{f64,g}_{tx,a}=erf(A^{f64,g}_{tx,a})*exp(A^{f64,g}_{tx,a});];\n",
      "erf_exp.leir", with_regions());
  EXPECT_EQ(count(with_erf.code, "STP_WIDE_MATH static void"), 2) << with_erf.code;
  const char* const unmarked[] = {
      // an accumulation
      "input A f64[4,40]\noutput C f64[4]\n"
      "B^{4}_{tx=0}L^{40}_{a=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a});];\n",
      // a read only the select's branch makes (a masked load)
      "input A f64[4,40]\noutput C f64[4,40]\n"
      "B^{4}_{tx=0}L^{40}_{a=0}[C^{f64,g}_{tx,a}=if_then_else(a>=1,exp(A^{f64,g}_{tx,a-1}),0);];"
      "\n",
      // erf without exp or log
      "input A f64[4,40]\noutput C f64[4,40]\n"
      "B^{4}_{tx=0}L^{40}_{a=0}[C^{f64,g}_{tx,a}=erf(A^{f64,g}_{tx,a})*2;];\n",
      // no exp or log
      "input A f64[4,40]\noutput C f64[4,40]\n"
      "B^{4}_{tx=0}L^{40}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0)*2;];\n",
      // a nest inside another block's body
      "input A f64[4,40]\noutput C f64[4,40]\n"
      "B^{4}_{tx=0}[L^{40}_{a=0}[C^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});];];\n"};
  for (const char* text : unmarked) {
    CSource c = emitted_text(text, "unmarked.leir");
    EXPECT_EQ(count(c.code, "STP_WIDE_MATH static"), 0) << text << "\n" << c.code;
  }
  std::string report;
  ASSERT_NO_FATAL_FAILURE(report = gcc_optimization_report(marked.code, "codegen-wide-math-test",
                                                           "-fopt-info-vec-optimized"));
  EXPECT_EQ(report.find("loop vectorized using 64 byte vectors") != std::string::npos,
            machine_has_wide_vectors())
      << report;
}

// A nest assigning a tensor far larger than the cache (64 MiB by default) along a unit-stride,
// independent innermost loop whose 4-element runs are 32-byte aligned stages each row in a
// local array and streams it out with non-temporal stores, then fences them.
TEST(CEmitter, HugeAssignedTensorsAreWrittenWithStreamingStores) {
  const std::string huge =  // 8 x 1024 x 1024 doubles: 64 MiB
      "input A f64[8,1024,1024]\noutput C f64[8,1024,1024]\n"
      "B^{8}_{tx=0}L^{1024}_{a=0}L^{1024}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*2+1;];\n";
  CSource streamed = emitted_text(huge, "huge.leir");
  EXPECT_EQ(count(streamed.code, "stp_stream_row(&t_C["), 1) << streamed.code;
  EXPECT_EQ(count(streamed.code, "stp_stream_fence();"), 1) << streamed.code;
  EXPECT_NE(streamed.code.find("__builtin_ia32_movntpd256("), std::string::npos);
  // The prelude reaches the instructions through builtins: <immintrin.h> alone costs GCC ~0.8 s
  // per compile under -march=native.
  EXPECT_EQ(streamed.code.find("immintrin"), std::string::npos);
  if (__builtin_cpu_supports("avx")) {
    const std::string assembly = gcc_assembly(streamed.code, "codegen-streaming-test");
    EXPECT_NE(assembly.find("vmovntpd"), std::string::npos);
    EXPECT_NE(assembly.find("sfence"), std::string::npos);
  }
  const char* const plain[] = {
      // half the size
      "input A f64[4,1024,1024]\noutput C f64[4,1024,1024]\n"
      "B^{4}_{tx=0}L^{1024}_{a=0}L^{1024}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*2;];\n",
      // an accumulation
      "input A f64[8,1024,1024]\noutput C f64[8,1024,1024]\n"
      "B^{8}_{tx=0}L^{1024}_{a=0}L^{1024}_{c=0}[C^{f64,g}_{tx,a,c}=C^{f64,g}_{tx,a,c}+A^{f64,g}_{"
      "tx,a,c};];\n",
      // the innermost loop walks the tensor with stride 1024
      "input A f64[8,1024,1024]\noutput C f64[8,1024,1024]\n"
      "B^{8}_{tx=0}L^{1024}_{c=0}L^{1024}_{a=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c};];\n",
      // rows of 1022 elements from a 1024-element pitch: runs not a multiple of 4
      "input A f64[8,1024,1024]\noutput C f64[8,1024,1024]\n"
      "B^{8}_{tx=0}L^{1024}_{a=0}L^{1022}_{c=0}[C^{f64,g}_{tx,a,c+1}=A^{f64,g}_{tx,a,c};];\n",
      // an unrolled innermost loop
      "input A f64[8,1024,1024]\noutput C f64[8,1024,1024]\n"
      "B^{8}_{tx=0}L^{1024}_{a=0}L^{256}_{c=0}U^{4}_{d=0}[C^{f64,g}_{tx,a,c*4+d}=A^{f64,g}_{tx,a,c*"
      "4+d};];\n"};
  for (const char* text : plain) {
    CSource c = emitted_text(text, "plain.leir");
    EXPECT_EQ(count(c.code, "stp_stream_row(&"), 0) << text << "\n" << c.code;
  }
}

// A parallel loop opens an OpenMP region only where its block does enough work to pay for one,
// and even then a kernel set to one thread runs the same loops without the region (libgomp's
// team start was most of a small program's time). Both paths compute what the interpreter does.
TEST(CEmitter, ParallelRegionsOnlyWhereTheWorkPaysAndNotOnOneThread) {
  auto relu = [](int64_t rows) {
    return fmt::format(
        "input A f64[{0},64]\noutput C f64[{0},64]\n"
        "B^{{{0}}}_{{tx=0}}L^{{64}}_{{a=0}}[C^{{f64,g}}_{{tx,a}}=max(A^{{f64,g}}_{{tx,a}},0);];\n",
        rows);
  };
  const int64_t small_rows = kMinParallelWork / 64 - 1;
  const std::string small = emitted_text(relu(small_rows), "small.leir").code;
  EXPECT_EQ(count(small, "#pragma omp parallel"), 0) << small;
  const std::string large = emitted_text(relu(kMinParallelWork / 64), "large.leir").code;
  EXPECT_EQ(count(large, "#pragma omp parallel"), 1) << large;
  EXPECT_NE(large.find("if (stp_nthreads != 1) {\n    #pragma omp parallel for"), std::string::npos)
      << large;
  EXPECT_EQ(count(large, "stp_block0_region1(t_A, t_C, i_tx);"), 2) << large;  // both branches

  Result<leir::Program> p = leir::parse_program(relu(kMinParallelWork / 64), "large.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  const std::vector<leir::TensorData> inputs = seeded_inputs(*p, 7);
  Result<std::vector<leir::TensorData>> want = interp::run_program(*p, inputs);
  ASSERT_TRUE(want.ok()) << want.error().render();
  for (int threads : {1, 2}) {
    CEngineOptions o = test_options();
    o.threads = threads;
    Result<std::vector<leir::TensorData>> got = run_compiled(*p, inputs, o);
    ASSERT_TRUE(got.ok()) << got.error().render();
    EXPECT_EQ(got->front().values, want->front().values) << threads << " thread(s)";
  }
}

// Rows shorter than kMergedRowTarget merge with the loops around them while every access walks
// both loops as one run of memory; a loop variable read as a value, or an access that walks
// them otherwise, keeps the nest as written.
TEST(CEmitter, ShortRowsOfContiguousNestsMergeIntoOneLoop) {
  CSource c = emitted("merged_short_rows", with_regions());
  const std::string exp_nest = block_code(c.code, 0);
  EXPECT_EQ(count(exp_nest, "for (int64_t i_a = 0; i_a < 6; ++i_a)"), 1) << exp_nest;
  EXPECT_EQ(count(exp_nest, "for (int64_t i_d = 0; i_d < 35; ++i_d)"), 1) << exp_nest;
  EXPECT_EQ(count(exp_nest, "i_c"), 0) << exp_nest;
  const std::string sum = block_code(c.code, 1);
  EXPECT_EQ(count(sum, "for (int64_t i_d = 0; i_d < 210; ++i_d)"), 1) << sum;
  EXPECT_EQ(count(sum, "i_a"), 0) << sum;
  const std::string shifted = block_code(c.code, 2);
  EXPECT_EQ(count(shifted, "#pragma omp simd\n    for (int64_t i_d = 0; i_d < 35; ++i_d)"), 1)
      << shifted;
  EXPECT_EQ(count(shifted, "t_P[i_tx*294 + i_a*49 + (0 + 1)*7 + i_d]"), 1) << shifted;
  const std::string guarded = block_code(c.code, 3);
  EXPECT_EQ(count(guarded, "for (int64_t i_c = 0; i_c < 5; ++i_c)"), 1) << guarded;
  EXPECT_EQ(count(guarded, "for (int64_t i_d = 0; i_d < 7; ++i_d)"), 1) << guarded;

  const char* const kept[] = {
      // the row reads a transposed tensor: its elements are not one run of memory
      "input A f64[4,7,5]\noutput C f64[4,5,7]\n"
      "B^{4}_{tx=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f64,g}_{tx,c,d}=A^{f64,g}_{tx,d,c};];\n",
      // rows of 6 out of a pitch of 7
      "input A f64[4,5,7]\noutput C f64[4,5,6]\n"
      "B^{4}_{tx=0}L^{5}_{c=0}L^{6}_{d=0}[C^{f64,g}_{tx,c,d}=A^{f64,g}_{tx,c,d+1};];\n",
      // a vectorized reduction: its lanes would regroup
      "input A f64[4,5,7]\noutput C f64[4]\n"
      "B^{4}_{tx=0}L^{5}_{c=0}V^{7}_{d=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,c,d};];\n",
      // an unrolled row
      "input A f64[4,5,7]\noutput C f64[4,5,7]\n"
      "B^{4}_{tx=0}L^{5}_{c=0}U^{7}_{d=0}[C^{f64,g}_{tx,c,d}=A^{f64,g}_{tx,c,d}*2;];\n",
      // the outer variable is a value
      "input A f64[4,5,7]\noutput C f64[4,5,7]\n"
      "B^{4}_{tx=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f64,g}_{tx,c,d}=A^{f64,g}_{tx,c,d}*c;];\n"};
  for (const char* text : kept) {
    CSource k = emitted_text(text, "kept.leir");
    EXPECT_EQ(count(k.code, "for (int64_t i_c = 0; i_c < 5; ++i_c)"), 1) << text << "\n" << k.code;
  }
}

}  // namespace
}  // namespace steptp::codegen
