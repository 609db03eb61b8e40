// Helpers of the compiled-C tests (c_engine_test.cpp, c_emitter_lanes_test.cpp,
// c_engine_math_test.cpp): seeded inputs, compiler runs, and reading the emitted C and assembly.
#pragma once

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
#include "codegen/c_engine.h"
#include "codegen/compiler_driver.h"
#include "codegen/lowering_facts.h"
#include "codegen/timing.h"
#include "codegen_programs.h"
#include "interp/interpreter.h"
#include "leir/parser.h"
#include "leir/printer.h"

namespace steptp::codegen {

using testing::codegen_programs;
using testing::NamedProgram;

inline CEngineOptions test_options() {
  CEngineOptions o;
  o.compiler.cache_dir = std::string(STEPTP_BINARY_DIR) + "/codegen-test-cache";
  o.threads = 2;
  return o;
}

// Seeded inputs: floats uniform in [-2, 2) rounded to their dtype, integers in [0, 10).
inline std::vector<leir::TensorData> seeded_inputs(const leir::Program& p, uint64_t seed) {
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
inline std::string gcc_with_engine_flags(const std::string& code, const std::string& dir) {
  EXPECT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  { std::ofstream(dir + "/kernel.c") << code; }
  std::string cmd = "gcc";
  for (const std::string& f : CompilerOptions{}.flags)
    if (f != "-shared" && f != "-fPIC") cmd += " " + f;
  return cmd + " " + dir + "/kernel.c";
}

inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compiles `code` as an object with the engine's flags plus GCC's -fopt-info `info_flags`, in
// $BINARY_DIR/`dir_name`, and returns GCC's report.
inline std::string gcc_optimization_report(const std::string& code, const std::string& dir_name,
                                           const std::string& info_flags) {
  std::string dir = std::string(STEPTP_BINARY_DIR) + "/" + dir_name;
  std::string cmd = gcc_with_engine_flags(code, dir) + " " + info_flags + " -c -o " + dir +
                    "/kernel.o > " + dir + "/kernel.log 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return file_text(dir + "/kernel.log");
}

// The assembly GCC makes of `code` with the engine's flags.
inline std::string gcc_assembly(const std::string& code, const std::string& dir_name) {
  std::string dir = std::string(STEPTP_BINARY_DIR) + "/" + dir_name;
  std::string cmd = gcc_with_engine_flags(code, dir) + " -S -o " + dir + "/kernel.s 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return file_text(dir + "/kernel.s");
}

// Whether `have` is within `n` units in the last place of `want` (at want's magnitude).
inline bool within_ulps(double have, double want, int n) {
  double ulp = std::nextafter(std::fabs(want), HUGE_VAL) - std::fabs(want);
  return std::fabs(have - want) <= n * ulp;
}

inline double tolerance(leir::DType t) {
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

inline int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline const NamedProgram& program_named(const std::string& name) {
  for (const NamedProgram& q : codegen_programs())
    if (q.name == name) return q;
  throw std::logic_error("no codegen program " + name);
}

// The definitions of the functions that run top-level block b: stp_block<b> and its parallel
// regions stp_block<b>_region<k>.
inline std::string block_code(const std::string& code, size_t b) {
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
inline std::string without_wide_versions(std::string code) {
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
inline CSource emitted_text(const std::string& text, const std::string& file,
                            const CEmitOptions& options = {}) {
  Result<leir::Program> p = leir::parse_program(text, file);
  EXPECT_TRUE(p.ok()) << p.error().render();
  if (!p.ok()) return CSource{};
  Result<CSource> c = emit_c(*p, options);
  EXPECT_TRUE(c.ok()) << c.error().render();
  return c.ok() ? *c : CSource{};
}

inline CSource emitted(const std::string& name, const CEmitOptions& options = {}) {
  return emitted_text(program_named(name).text, name + ".leir", options);
}

// Options under which every parallel loop of these small programs opens an OpenMP region, as
// one of a realistic size does (CEmitOptions::min_parallel_work).
inline CEmitOptions with_regions() {
  CEmitOptions o;
  o.min_parallel_work = 0;
  return o;
}

// Options that lower each nest as written: without the channel jam (jam_tile_channels),
// which would jam the convolution of stationary_vector_tiles over its 4 output channels.
inline CEmitOptions as_written() {
  CEmitOptions o;
  o.jam_tile_channels = false;
  return o;
}

// The assembly of one function (from its label to its .size directive), "" when absent.
inline std::string function_assembly(const std::string& assembly, const std::string& name) {
  const size_t begin = assembly.find("\n" + name + ":");
  if (begin == std::string::npos) return "";
  return assembly.substr(begin, assembly.find(".size\t" + name + ",", begin) - begin);
}

// How many times `pattern` matches in `text`.
inline long matches(const std::string& text, const std::regex& pattern) {
  return std::distance(std::sregex_iterator(text.begin(), text.end(), pattern),
                       std::sregex_iterator());
}

// The C a compiler without STP_WIDE_ENABLED sees: every `#if defined(STP_WIDE_ENABLED)`
// version (512-bit tiles and explicit wide lane jams) dropped, its `#else` part kept.
inline std::string narrow_part(std::string code) {
  const std::string open = "#if defined(STP_WIDE_ENABLED)\n", other = "#else\n", close = "#endif\n";
  for (size_t at = code.find(open); at != std::string::npos; at = code.find(open, at)) {
    const size_t mid = code.find(other, at), end = code.find(close, at);
    if (mid == std::string::npos || end == std::string::npos || mid > end) break;
    code = code.substr(0, at) + code.substr(mid + other.size(), end - mid - other.size()) +
           code.substr(end + close.size());
  }
  return code;
}

}  // namespace steptp::codegen
