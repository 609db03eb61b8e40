// Compiled C must compute what the interpreter (the semantics of record) computes, for every
// program of the codegen set, on two seeds.
#include "codegen/c_engine.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "codegen/c_emitter.h"
#include "codegen/compiler_driver.h"
#include "codegen/lowering_facts.h"
#include "codegen/timing.h"
#include "codegen_programs.h"
#include "interp/interpreter.h"
#include "leir/parser.h"
#include "leir/printer.h"

namespace steptp::codegen {
namespace {

using testing::codegen_programs;
using testing::NamedProgram;

CEngineOptions test_options() {
  CEngineOptions o;
  o.compiler.cache_dir = std::string(STEPTP_BINARY_DIR) + "/codegen-test-cache";
  o.threads = 2;
  return o;
}

// Seeded inputs: floats uniform in [-2, 2) rounded to their dtype, integers in [0, 10).
std::vector<leir::TensorData> seeded_inputs(const leir::Program& p, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int> integer(0, 9);
  std::vector<leir::TensorData> out;
  for (const leir::TensorDecl& d : p.decls) {
    if (d.role == leir::TensorRole::kOutput) continue;
    leir::TensorData t{d.name, d.dtype, d.shape, {}};
    for (int64_t k = 0; k < leir::element_count(d.shape); ++k) {
      double v = leir::is_float(d.dtype) ? real(rng) : integer(rng);
      t.values.push_back(leir::round_to_dtype(v, d.dtype));
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Writes `code` to DIR/kernel.c in the test binary's folder and returns "gcc <the engine's
// flags but -shared and -fPIC> DIR/kernel.c"; the caller adds what to make of it.
std::string gcc_with_engine_flags(const std::string& code, const std::string& dir) {
  EXPECT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  { std::ofstream(dir + "/kernel.c") << code; }
  std::string cmd = "gcc";
  for (const std::string& f : CompilerOptions{}.flags)
    if (f != "-shared" && f != "-fPIC") cmd += " " + f;
  return cmd + " " + dir + "/kernel.c";
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compiles `code` as an object with the engine's flags plus GCC's -fopt-info `info_flags`, in
// $BINARY_DIR/`dir_name`, and returns GCC's report.
std::string gcc_optimization_report(const std::string& code, const std::string& dir_name,
                                    const std::string& info_flags) {
  std::string dir = std::string(STEPTP_BINARY_DIR) + "/" + dir_name;
  std::string cmd = gcc_with_engine_flags(code, dir) + " " + info_flags + " -c -o " + dir +
                    "/kernel.o > " + dir + "/kernel.log 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return file_text(dir + "/kernel.log");
}

// The assembly GCC makes of `code` with the engine's flags.
std::string gcc_assembly(const std::string& code, const std::string& dir_name) {
  std::string dir = std::string(STEPTP_BINARY_DIR) + "/" + dir_name;
  std::string cmd = gcc_with_engine_flags(code, dir) + " -S -o " + dir + "/kernel.s 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return file_text(dir + "/kernel.s");
}

// Whether `have` is within `n` units in the last place of `want` (at want's magnitude).
bool within_ulps(double have, double want, int n) {
  double ulp = std::nextafter(std::fabs(want), HUGE_VAL) - std::fabs(want);
  return std::fabs(have - want) <= n * ulp;
}

double tolerance(leir::DType t) {
  switch (t) {
    case leir::DType::kF64:
      return 1e-12;
    case leir::DType::kF32:
      return 1e-6;
    case leir::DType::kF16:
    case leir::DType::kBF16:
      return 1e-2;
    default:
      return 0.0;
  }
}

class CompiledMatchesInterpreter : public ::testing::TestWithParam<std::tuple<size_t, uint64_t>> {};

TEST_P(CompiledMatchesInterpreter, OutputsAgree) {
  const NamedProgram& np = codegen_programs()[std::get<0>(GetParam())];
  uint64_t seed = std::get<1>(GetParam());
  SCOPED_TRACE(np.name);
  Result<leir::Program> p = leir::parse_program(np.text, np.name + ".leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  std::vector<leir::TensorData> inputs = seeded_inputs(*p, seed);
  Result<std::vector<leir::TensorData>> expected = interp::run_program(*p, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().render();
  Result<std::vector<leir::TensorData>> got = run_compiled(*p, inputs, test_options());
  ASSERT_TRUE(got.ok()) << got.error().render();
  ASSERT_EQ(got->size(), expected->size());
  for (size_t i = 0; i < got->size(); ++i) {
    const leir::TensorData& g = (*got)[i];
    const leir::TensorData& e = (*expected)[i];
    ASSERT_EQ(g.name, e.name);
    ASSERT_EQ(g.shape, e.shape);
    ASSERT_EQ(g.values.size(), e.values.size());
    double tol = tolerance(e.dtype);
    for (size_t k = 0; k < g.values.size(); ++k) {
      double a = g.values[k], b = e.values[k];
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;
      ASSERT_LE(std::fabs(a - b), tol * std::max(1.0, std::fabs(b)))
          << g.name << "[" << k << "]: compiled " << a << " vs interpreter " << b;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, CompiledMatchesInterpreter,
                         ::testing::Combine(::testing::Range<size_t>(0, codegen_programs().size()),
                                            ::testing::Values<uint64_t>(1, 2)),
                         [](const ::testing::TestParamInfo<std::tuple<size_t, uint64_t>>& info) {
                           return codegen_programs()[std::get<0>(info.param)].name + "_seed" +
                                  std::to_string(std::get<1>(info.param));
                         });

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const NamedProgram& program_named(const std::string& name) {
  for (const NamedProgram& q : codegen_programs())
    if (q.name == name) return q;
  throw std::logic_error("no codegen program " + name);
}

// The definitions of the functions that run top-level block b: stp_block<b> and its parallel
// regions stp_block<b>_region<k>.
std::string block_code(const std::string& code, size_t b) {
  std::string out;
  for (const std::string& head :
       {fmt::format("static void stp_block{}(", b), fmt::format("static void stp_block{}_", b)}) {
    for (size_t at = code.find(head); at != std::string::npos; at = code.find(head, at + 1)) {
      size_t end = code.find("\n}\n", at);
      out += code.substr(at, end == std::string::npos ? std::string::npos : end + 3 - at);
    }
  }
  return out;
}

// The emitted C less the wide versions of blocks (#if STP_WIDE_ENABLED ... #else), keeping their
// narrow versions.
std::string without_wide_versions(std::string code) {
  const std::string open = "#if defined(STP_WIDE_ENABLED)\n";
  for (size_t at = code.find(open); at != std::string::npos; at = code.find(open, at)) {
    size_t other = code.find("#else\n", at);
    size_t end = code.find("#endif\n", other);
    code.erase(end, 7);
    code.erase(at, other + 6 - at);
  }
  return code;
}

// The C of a LEIR program text (an empty source, after a failed expectation, when it does not
// parse or emit).
CSource emitted_text(const std::string& text, const std::string& file,
                     const CEmitOptions& options = {}) {
  Result<leir::Program> p = leir::parse_program(text, file);
  EXPECT_TRUE(p.ok()) << p.error().render();
  if (!p.ok()) return CSource{};
  Result<CSource> c = emit_c(*p, options);
  EXPECT_TRUE(c.ok()) << c.error().render();
  return c.ok() ? *c : CSource{};
}

CSource emitted(const std::string& name, const CEmitOptions& options = {}) {
  return emitted_text(program_named(name).text, name + ".leir", options);
}

// Options under which every parallel loop of these small programs opens an OpenMP region, as
// one of a realistic size does (CEmitOptions::min_parallel_work).
CEmitOptions with_regions() {
  CEmitOptions o;
  o.min_parallel_work = 0;
  return o;
}

// Options that lower each nest as written: without the channel jam (jam_tile_channels),
// which would jam the convolution of stationary_vector_tiles over its 4 output channels.
CEmitOptions as_written() {
  CEmitOptions o;
  o.jam_tile_channels = false;
  return o;
}

// The assembly of one function (from its label to its .size directive), "" when absent.
std::string function_assembly(const std::string& assembly, const std::string& name) {
  const size_t begin = assembly.find("\n" + name + ":");
  if (begin == std::string::npos) return "";
  return assembly.substr(begin, assembly.find(".size\t" + name + ",", begin) - begin);
}

// How many times `pattern` matches in `text`.
long matches(const std::string& text, const std::regex& pattern) {
  return std::distance(std::sregex_iterator(text.begin(), text.end(), pattern),
                       std::sregex_iterator());
}

// The C a compiler without STP_WIDE_ENABLED sees: every `#if defined(STP_WIDE_ENABLED)`
// version (512-bit tiles and explicit wide lane jams) dropped, its `#else` part kept.
std::string narrow_part(std::string code) {
  const std::string open = "#if defined(STP_WIDE_ENABLED)\n", other = "#else\n", close = "#endif\n";
  for (size_t at = code.find(open); at != std::string::npos; at = code.find(open, at)) {
    const size_t mid = code.find(other, at), end = code.find(close, at);
    if (mid == std::string::npos || end == std::string::npos || mid > end) break;
    code = code.substr(0, at) + code.substr(mid + other.size(), end - mid - other.size()) +
           code.substr(end + close.size());
  }
  return code;
}

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
  EXPECT_NE(streamed.code.find("_mm256_stream_pd("), std::string::npos);
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

// Benchmark inputs are written straight into the kernel's buffers (a workload's inputs can be
// several GB); the bytes are those of the TensorData path, for every dtype of the test programs.
TEST(CEngine, GeneratedInputsEqualTheTensorDataPath) {
  for (const NamedProgram& np : codegen_programs()) {
    SCOPED_TRACE(np.name);
    Result<leir::Program> p = leir::parse_program(np.text, np.name + ".leir");
    ASSERT_TRUE(p.ok()) << p.error().render();
    Result<CompiledKernel> k = CompiledKernel::build(*p, test_options());
    ASSERT_TRUE(k.ok()) << k.error().render();
    Result<KernelBuffers> via_data = k->prepare(deterministic_inputs(*p));
    ASSERT_TRUE(via_data.ok()) << via_data.error().render();
    KernelBuffers generated = deterministic_buffers(*k, *p);
    ASSERT_EQ(generated.storage().size(), via_data->storage().size());
    for (size_t i = 0; i < generated.storage().size(); ++i)
      EXPECT_TRUE(generated.storage()[i] == via_data->storage()[i]) << k->tensors().tensors[i].name;
  }
}

// Buffers start on cache lines; those of 2 MiB or more on 2 MiB boundaries too, advised as
// transparent huge pages, so a large tensor's page walks neither slow a kernel down nor make
// its timing depend on where the allocator put it.
TEST(CEngine, BuffersAreAlignedToCacheLinesAndLargeOnesToHugePages) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[3]\ninput B f64[512,1024]\noutput C f64[512,1024]\n"
      "B^{512}_{tx=0}L^{1024}_{a=0}[C^{f64,g}_{tx,a}=B^{f64,g}_{tx,a}*A^{f64,g}_{0};];");
  ASSERT_TRUE(p.ok()) << p.error().render();
  Result<CompiledKernel> k = CompiledKernel::build(*p, test_options());
  ASSERT_TRUE(k.ok()) << k.error().render();
  KernelBuffers b = deterministic_buffers(*k, *p);
  for (size_t i = 0; i < b.storage().size(); ++i) {
    const auto address = reinterpret_cast<std::uintptr_t>(b.storage()[i].data());
    const size_t bytes = b.storage()[i].size();
    SCOPED_TRACE(k->tensors().tensors[i].name);
    EXPECT_EQ(address % 64, 0u);
    if (bytes >= (size_t{2} << 20)) {
      EXPECT_EQ(address % (size_t{2} << 20), 0u);
    }
  }
  ASSERT_EQ(k->tensors().tensors.size(), 3u);
  k->execute(b);
  std::vector<leir::TensorData> out = k->outputs(b);
  ASSERT_EQ(out.size(), 1u);
  const std::vector<double>& c = out[0].values;
  std::vector<leir::TensorData> in = deterministic_inputs(*p);
  EXPECT_DOUBLE_EQ(c[1000], in[1].values[1000] * in[0].values[0]);
}

TEST(CEngine, CompileOnceRunsManyInputs) {
  Result<leir::Program> p = leir::parse_program(codegen_programs()[0].text);
  ASSERT_TRUE(p.ok());
  Result<CompiledKernel> k = CompiledKernel::build(*p, test_options());
  ASSERT_TRUE(k.ok()) << k.error().render();
  for (uint64_t seed : {7u, 8u}) {
    std::vector<leir::TensorData> in = seeded_inputs(*p, seed);
    Result<std::vector<leir::TensorData>> got = k->run(in);
    ASSERT_TRUE(got.ok());
    // Independent check of one element: D[3,5] = sum_c A[3,c] * C[c,5].
    double want = 0;
    for (int c = 0; c < 16; ++c) want += in[0].values[3 * 16 + c] * in[1].values[c * 12 + 5];
    EXPECT_NEAR((*got)[0].values[3 * 12 + 5], want, 1e-12);
  }
}

TEST(CEngine, RejectsMissingInput) {
  Result<leir::Program> p = leir::parse_program(codegen_programs()[0].text);
  ASSERT_TRUE(p.ok());
  std::vector<leir::TensorData> in = seeded_inputs(*p, 1);
  in.pop_back();
  Result<std::vector<leir::TensorData>> got = run_compiled(*p, in, test_options());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().category, "bad_input");
}

TEST(CEngine, RefusesIllFormedProgramsBeforeCompiling) {
  // A write to an input is rejected statically, as the interpreter does.
  Result<leir::Program> p = leir::parse_program(
      "input A f64[4]\noutput C f64[4]\nB^{4}_{tx=0}[A^{f64,g}_{tx}=1;C^{f64,g}_{tx}=2;];\n");
  ASSERT_TRUE(p.ok()) << p.error().render();
  int64_t before = compiler_invocation_count();
  Result<CompiledKernel> k = CompiledKernel::build(*p, test_options());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().category, "ill_formed");
  EXPECT_EQ(compiler_invocation_count(), before);
}

TEST(CEngine, RefusesOverBudgetPrograms) {
  Result<leir::Program> p = leir::parse_program(codegen_programs()[0].text);
  ASSERT_TRUE(p.ok());
  CEngineOptions o = test_options();
  o.work_budget = 100;  // the matmul executes 8*12*16 statements
  Result<CompiledKernel> k = CompiledKernel::build(*p, o);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().category, "budget_exceeded");
}

}  // namespace
}  // namespace steptp::codegen
