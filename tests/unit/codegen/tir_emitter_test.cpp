// The TIR backend: golden TVMScript for small programs (checked by hand against the TVMScript
// grammar and leir_spec §6: axis kinds, T.init on the first accumulation, thread bindings, nested
// loops), determinism, and the typing rules (float64 compute, casts at loads and stores).
#include "codegen/tir_emitter.h"

#include <gtest/gtest.h>

#include <string>

#include "codegen_programs.h"
#include "leir/parser.h"

namespace steptp::codegen {
namespace {

std::string tir_of(const std::string& text) {
  Result<leir::Program> p = leir::parse_program(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().render());
  if (!p.ok()) return "";
  Result<std::string> t = emit_tir(*p);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().render());
  return t.ok() ? *t : "";
}

TEST(TirEmitter, MatmulGolden) {
  EXPECT_EQ(tir_of("input A f64[8,16]\ninput C f64[16,12]\noutput D "
                   "f64[8,12]\nB^{8}_{tx=0}L^{12}_{a=0}L^{16}_{c=0}[D^{f64,g}_{tx,a}=D^{f64,g}_{tx,"
                   "a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n"),
            R"TIR(from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float64"), C: T.Buffer((16, 12), "float64"), D: T.Buffer((8, 12), "float64")):
        T.func_attr({"tir.noalias": True})
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            for a, c in T.grid(12, 16):
                with T.sblock("D"):
                    v_tx, v_a, v_c = T.axis.remap("SSR", [tx, a, c])
                    with T.init():
                        D[v_tx, v_a] = T.float64(0)
                    D[v_tx, v_a] = (D[v_tx, v_a] + (A[v_tx, v_c] * C[v_c, v_a]))
)TIR");
}

// A statement before a nested block, a first accumulation without a reduction axis (it reads
// the identity directly), a later accumulation (no init), and V/U loops: the V loop reduces into
// S, so it stays serial (TVM's vectorizer would store the lanes independently).
TEST(TirEmitter, NestedBlockGolden) {
  EXPECT_EQ(tir_of("input A f64[4,6]\noutput R "
                   "f64[4]\nB^{4}_{tx=0}[S^{f64,g}_{tx}=S^{f64,g}_{tx}+A^{f64,g}_{tx,0};L^{6}_{a=0}"
                   "V^{2}_{c=0}[S^{f64,g}_{tx}=max(S^{f64,g}_{tx},A^{f64,g}_{tx,a}*c);];U^{2}_{d=0}"
                   "[R^{f64,g}_{tx}=S^{f64,g}_{tx}*2;];];\n"),
            R"TIR(from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float64"), R: T.Buffer((4,), "float64")):
        T.func_attr({"tir.noalias": True})
        S = T.alloc_buffer((4,), "float64")
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            with T.sblock("S"):
                v_tx = T.axis.remap("S", [tx])
                S[v_tx] = (T.float64(0) + A[v_tx, 0])
            for a in T.serial(6):
                for c in T.serial(2):
                    with T.sblock("S_1"):
                        v_tx, v_a, v_c = T.axis.remap("SRR", [tx, a, c])
                        S[v_tx] = T.max(S[v_tx], (A[v_tx, v_a] * T.Cast("float64", v_c)))
            for d in T.unroll(2):
                with T.sblock("R"):
                    v_tx, v_d = T.axis.remap("SS", [tx, d])
                    R[v_tx] = (S[v_tx] * T.float64(2))
)TIR");
}

// TVM's CPU target: the thread-bound loop becomes the nest's one parallel loop (a bound loop
// inside it stays serial) and storage scopes are dropped.
TEST(TirEmitter, LlvmTargetParallelisesTheOutermostBoundLoopOnly) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[4,6]\noutput C f64[4,6]\nB^{4}_{tx=0}B^{6}_{ty=0}[S^{f64,s}_{tx,ty}=A^{f64,g}_"
      "{tx,ty}*2;];B^{4}_{tx=0}L^{6}_{a=0}[C^{f64,g}_{tx,a}=S^{f64,s}_{tx,a};];\n");
  ASSERT_TRUE(p.ok()) << p.error().render();
  Result<std::string> t = emit_tir(*p, TirTarget::kLlvm);
  ASSERT_TRUE(t.ok()) << t.error().render();
  EXPECT_EQ(*t, R"TIR(from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float64"), C: T.Buffer((4, 6), "float64")):
        T.func_attr({"tir.noalias": True})
        S = T.alloc_buffer((4, 6), "float64")
        for tx in T.parallel(4):
            for ty in T.serial(6):
                with T.sblock("S"):
                    v_tx, v_ty = T.axis.remap("SS", [tx, ty])
                    S[v_tx, v_ty] = (A[v_tx, v_ty] * T.float64(2))
        for tx in T.parallel(4):
            for a in T.serial(6):
                with T.sblock("C"):
                    v_tx, v_a = T.axis.remap("SS", [tx, a])
                    C[v_tx, v_a] = S[v_tx, v_a]
)TIR");
  Result<std::string> gpu = emit_tir(*p, TirTarget::kCuda);
  ASSERT_TRUE(gpu.ok());
  EXPECT_NE(gpu->find("T.alloc_buffer((4, 6), \"float64\", scope=\"shared\")"), std::string::npos);
  EXPECT_NE(gpu->find("T.thread_binding(6, thread=\"threadIdx.y\")"), std::string::npos);
}

TEST(TirEmitter, SameProgramSameTextEveryTime) {
  for (const auto& np : testing::codegen_programs()) {
    SCOPED_TRACE(np.name);
    std::string a = tir_of(np.text), b = tir_of(np.text);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b);
  }
}

TEST(TirEmitter, NarrowDtypesComputeInFloat64AndCastOnStore) {
  std::string t =
      tir_of("input A f32[4]\noutput C f16[4]\nB^{4}_{tx=0}[C^{f16,g}_{tx}=A^{f32,g}_{tx}*2;];\n");
  EXPECT_NE(t.find("C[v_tx] = T.Cast(\"float16\", (T.Cast(\"float64\", A[v_tx]) * T.float64(2)))"),
            std::string::npos)
      << t;
}

TEST(TirEmitter, BindingsScopesAndIndexArithmetic) {
  std::string t = tir_of(
      "input A f64[64,8]\noutput C f64[512]\n"
      "B^{64}_{bya=0}B^{8}_{tz=0}[D^{f64,s}_{bya*8+tz}=A^{f64,g}_{bya,tz};];"
      "B^{512}_{tx=0}[C^{f64,g}_{tx}=D^{f64,s}_{tx//8*8+tx%8};];\n");
  EXPECT_NE(t.find("for bya in T.thread_binding(64, thread=\"blockIdx.y\"):"), std::string::npos)
      << t;
  EXPECT_NE(t.find("for tz in T.thread_binding(8, thread=\"threadIdx.z\"):"), std::string::npos);
  EXPECT_NE(t.find("D = T.alloc_buffer((512,), \"float64\", scope=\"shared\")"), std::string::npos);
  EXPECT_NE(t.find("D[((v_bya * 8) + v_tz)] = A[v_bya, v_tz]"), std::string::npos);
  EXPECT_NE(t.find("C[v_tx] = D[((T.floordiv(v_tx, 8) * 8) + T.floormod(v_tx, 8))]"),
            std::string::npos)
      << t;
}

// TVM's schedules want one writing block per buffer: a later top-level block that rewrites a
// whole tensor pointwise (a bias added to an accumulated output) writes a buffer of its own;
// the earlier value moves to `D_v0` and the output keeps its name, so callers see no change.
TEST(TirEmitter, APointwiseRewriteOfAWholeTensorGetsItsOwnBuffer) {
  std::string t = tir_of(
      "input A f64[4,6]\ninput E f64[4]\noutput D f64[4]\n"
      "B^{4}_{tx=0}L^{6}_{a=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+A^{f64,g}_{tx,a};];"
      "B^{4}_{tx=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+E^{f64,g}_{tx};];"
      "B^{4}_{tx=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},0);];\n");
  EXPECT_NE(t.find("D_v0 = T.alloc_buffer((4,), \"float64\")"), std::string::npos) << t;
  EXPECT_NE(t.find("D_v1 = T.alloc_buffer((4,), \"float64\")"), std::string::npos) << t;
  EXPECT_NE(t.find("D_v0[v_tx] = (D_v0[v_tx] + A[v_tx, v_a])"), std::string::npos) << t;
  EXPECT_NE(t.find("D_v1[v_tx] = (D_v0[v_tx] + E[v_tx])"), std::string::npos) << t;
  EXPECT_NE(t.find("D[v_tx] = T.max(D_v1[v_tx], T.float64(0))"), std::string::npos) << t;
}

// Renaming would change the result where a later block writes part of the tensor, reads it at
// another element, or reduces into it: those keep the one buffer.
TEST(TirEmitter, PartialOrNonPointwiseRewritesKeepTheirBuffer) {
  for (const char* second : {
           "B^{2}_{tx=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+1;];",                   // part of D
           "B^{3}_{tx=0}[D^{f64,g}_{tx+1}=D^{f64,g}_{tx}+D^{f64,g}_{tx+1};];",  // a scan
           "B^{4}_{tx=0}L^{6}_{a=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+A^{f64,g}_{tx,a};];",
       }) {
    std::string t = tir_of(
        std::string("input A f64[4,6]\noutput D f64[4]\n"
                    "B^{4}_{tx=0}L^{6}_{a=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+A^{f64,g}_{tx,a};];") +
        second + "\n");
    EXPECT_EQ(t.find("D_v0"), std::string::npos) << second << "\n" << t;
  }
}

}  // namespace
}  // namespace steptp::codegen
