// The CUDA backend: the emitted code compiles with nvcc for sm_90 (every program of the codegen
// set, the golden set among them), maps bindings to the right hardware indices, and handles
// cross-thread reductions. CudaRuntime.* runs the binaries and is enabled only on GPU machines.
#include "codegen/cuda_emitter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/timing.h"
#include "codegen_programs.h"
#include "interp/interpreter.h"
#include "leir/parser.h"

namespace steptp::codegen {
namespace {

using testing::codegen_programs;

leir::Program parse_or_die(const std::string& text) {
  Result<leir::Program> p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), p.ok() ? "" : p.error().render());
  return std::move(p).value();
}

std::string work_dir() {
  std::string d = std::string(STEPTP_BINARY_DIR) + "/codegen-cuda-test";
  std::filesystem::create_directories(d);
  return d;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs nvcc with `args` on `source`; returns "" on success, else the compiler output.
std::string nvcc(const std::string& source, const std::string& name, const std::string& args) {
  std::string dir = work_dir();
  std::string cu = dir + "/" + name + ".cu", log = dir + "/" + name + ".log";
  std::ofstream(cu) << source;
  std::string cmd = find_nvcc() + " " + args + " " + cu + " > " + log + " 2>&1";
  int rc = std::system(cmd.c_str());
  return rc == 0 ? "" : "nvcc failed:\n" + slurp(log);
}

#define REQUIRE_NVCC() \
  if (find_nvcc().empty()) GTEST_SKIP() << "nvcc not found: CUDA compile tests skipped"

TEST(CudaEmitter, EveryProgramCompilesWithNvcc) {
  REQUIRE_NVCC();
  std::string unit;
  for (size_t i = 0; i < codegen_programs().size(); ++i) {
    CudaEmitOptions o;
    o.harness = false;
    o.wrap_namespace = "program_" + std::to_string(i);
    Result<CudaSource> src = emit_cuda(parse_or_die(codegen_programs()[i].text), o);
    ASSERT_TRUE(src.ok()) << codegen_programs()[i].name << ": " << src.error().render();
    unit += src->code;
  }
  std::string err = nvcc(unit, "all_programs", "-arch=sm_90 -c -o " + work_dir() + "/all.o");
  EXPECT_EQ(err, "");
}

TEST(CudaEmitter, HarnessCompilesWithNvcc) {
  REQUIRE_NVCC();
  // The Hingeloss-like program: an atomic cross-thread reduction plus the full host harness.
  Result<CudaSource> src = emit_cuda(parse_or_die(codegen_programs()[14].text));
  ASSERT_TRUE(src.ok());
  std::string err = nvcc(src->code, "harness", "-arch=sm_90 -c -o " + work_dir() + "/harness.o");
  EXPECT_EQ(err, "");
}

TEST(CudaEmitter, ThreadAndBlockBindingsMapToHardwareIndices) {
  leir::Program p = parse_or_die(
      "input A f64[64,32]\noutput C f64[64,32]\n"
      "B^{64}_{bx=0}B^{32}_{tx=0}[C^{f64,g}_{bx,tx}=A^{f64,g}_{bx,tx}*2;];\n");
  Result<CudaSource> src = emit_cuda(p);
  ASSERT_TRUE(src.ok());
  const std::string& c = src->code;
  EXPECT_NE(c.find("for (int64_t lin_bx = blockIdx.x; lin_bx < 64; lin_bx += gridDim.x)"),
            std::string::npos);
  EXPECT_NE(c.find("for (int64_t lin_tx = threadIdx.x; lin_tx < 32; lin_tx += blockDim.x)"),
            std::string::npos);
  EXPECT_NE(c.find("steptp_block_0<<<dim3(64, 1, 1), dim3(32, 1, 1)>>>"), std::string::npos);
  EXPECT_EQ(c.find("atomicCAS"), std::string::npos);
}

TEST(CudaEmitter, LargeThreadExtentIsCappedAndStrided) {
  leir::Program p = parse_or_die(
      "input A f64[4096]\noutput C "
      "f64[4096]\nB^{4096}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}+1;];\n");
  Result<CudaSource> src = emit_cuda(p);
  ASSERT_TRUE(src.ok());
  EXPECT_NE(src->code.find("dim3(1024, 1, 1)>>>"), std::string::npos);
  EXPECT_NE(src->code.find("lin_tx < 4096; lin_tx += blockDim.x"), std::string::npos);
}

TEST(CudaEmitter, CrossThreadReductionUsesCompareAndSwapAfterAnInitKernel) {
  Result<CudaSource> src = emit_cuda(parse_or_die(codegen_programs()[14].text));
  ASSERT_TRUE(src.ok());
  EXPECT_NE(src->code.find("atomicCAS(stp_addr, stp_seen, stp_bits)"), std::string::npos);
  EXPECT_NE(src->code.find("steptp_init_1<<<"), std::string::npos);
  EXPECT_TRUE(src->notes.empty());
}

TEST(CudaEmitter, OneByteReductionFallsBackToOneThread) {
  leir::Program p = parse_or_die(
      "input A f64[16]\noutput C bool[]\n"
      "B^{16}_{tx=0}[C^{bool,g}=max(C^{bool,g},A^{f64,g}_{tx}>0);];\n");
  Result<CudaSource> src = emit_cuda(p);
  ASSERT_TRUE(src.ok());
  ASSERT_EQ(src->notes.size(), 1u);
  EXPECT_NE(src->notes[0].find("one thread"), std::string::npos);
  EXPECT_NE(src->code.find("steptp_block_0<<<dim3(1, 1, 1), dim3(1, 1, 1)>>>"), std::string::npos);
}

TEST(CudaEmitter, ScopesBecomeSharedAndLocalWhereLegal) {
  Result<CudaSource> src = emit_cuda(parse_or_die(codegen_programs()[16].text));
  ASSERT_TRUE(src.ok());
  EXPECT_NE(src->code.find("__shared__ double t_F[32];"), std::string::npos) << src->code;
  EXPECT_NE(src->code.find("  double t_D[32];"), std::string::npos);
}

// ---- runtime (GPU machines only: STEPTP_GPU_TESTS=1, set by the ctest label "gpu") ----

TEST(CudaRuntime, BinariesMatchTheInterpreter) {
  if (!std::getenv("STEPTP_GPU_TESTS")) GTEST_SKIP() << "set STEPTP_GPU_TESTS=1 on a GPU machine";
  REQUIRE_NVCC();
  for (size_t i = 0; i < codegen_programs().size(); ++i) {
    SCOPED_TRACE(codegen_programs()[i].name);
    leir::Program p = parse_or_die(codegen_programs()[i].text);
    Result<CudaSource> src = emit_cuda(p);
    ASSERT_TRUE(src.ok());
    std::string name = "run_" + std::to_string(i), dir = work_dir();
    ASSERT_EQ(nvcc(src->code, name, "-arch=sm_90 -o " + dir + "/" + name), "");
    std::string dump = dir + "/" + name + ".out";
    ASSERT_EQ(std::system((dir + "/" + name + " 1 " + dump + " > /dev/null").c_str()), 0);
    Result<std::vector<leir::TensorData>> want = interp::run_program(p, deterministic_inputs(p));
    ASSERT_TRUE(want.ok()) << want.error().render();
    std::ifstream in(dump);
    for (const leir::TensorData& t : *want) {
      for (double e : t.values) {
        double g = 0;
        ASSERT_TRUE(static_cast<bool>(in >> g));
        if (std::isnan(e) && std::isnan(g)) continue;
        EXPECT_LE(std::fabs(g - e), 1e-6 * std::max(1.0, std::fabs(e))) << t.name;
      }
    }
  }
}

}  // namespace
}  // namespace steptp::codegen
