// Accumulation identities over partially written tensors: the compiled C must read the identity
// for an element nobody wrote, for any accumulation (not only the tensor's first writer), as the
// interpreter does. Expected values are worked out by hand below; the interpreter must agree.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codegen/c_engine.h"
#include "codegen/cuda_emitter.h"
#include "codegen/lowering_facts.h"
#include "interp/interpreter.h"
#include "leir/parser.h"
#include "leir/tensor_table.h"

namespace steptp::codegen {
namespace {

CEngineOptions test_options() {
  CEngineOptions o;
  o.compiler.cache_dir = std::string(STEPTP_BINARY_DIR) + "/codegen-test-cache";
  o.threads = 2;
  return o;
}

leir::Program parse_or_die(const std::string& text) {
  Result<leir::Program> p = leir::parse_program(text, "identity.leir");
  STEPTP_CHECK(p.ok(), p.ok() ? "" : p.error().render());
  return std::move(p).value();
}

// Runs both engines and checks each against the hand-computed values.
void expect_both(const std::string& text, const std::vector<leir::TensorData>& inputs,
                 const std::vector<std::vector<double>>& expected) {
  leir::Program p = parse_or_die(text);
  Result<std::vector<leir::TensorData>> interp = interp::run_program(p, inputs);
  ASSERT_TRUE(interp.ok()) << interp.error().render();
  Result<CompiledKernel> kernel = CompiledKernel::build(p, test_options());
  ASSERT_TRUE(kernel.ok()) << kernel.error().render();
  Result<KernelBuffers> buffers = kernel->prepare(inputs);
  ASSERT_TRUE(buffers.ok()) << buffers.error().render();
  // Twice on the same buffers: the prefill and the flags are reset on every run.
  for (int run = 0; run < 2; ++run) {
    kernel->execute(*buffers);
    std::vector<leir::TensorData> got = kernel->outputs(*buffers);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(got[i].values.size(), expected[i].size());
      for (size_t k = 0; k < expected[i].size(); ++k) {
        EXPECT_DOUBLE_EQ(got[i].values[k], expected[i][k]) << "C, output " << i << "[" << k << "]";
        EXPECT_DOUBLE_EQ((*interp)[i].values[k], expected[i][k])
            << "interpreter, output " << i << "[" << k << "]";
      }
    }
  }
}

TEST(IdentityInit, MaxAfterPartialPlainStoreReadsMinusInfinity) {
  // C[0..1] = A, then C = max(C, -A) over all six: written elements keep A (A > 0 > -A), the
  // four nobody wrote start at -inf and become -A.
  std::vector<double> a = {1, 2, 3, 4, 5, 6};
  expect_both(
      "input A f64[6]\noutput C f64[6]\n"
      "B^{2}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];"
      "B^{6}_{tx=0}[C^{f64,g}_{tx}=max(C^{f64,g}_{tx},-A^{f64,g}_{tx});];\n",
      {{"A", leir::DType::kF64, {6}, a}}, {{1, 2, -3, -4, -5, -6}});
}

TEST(IdentityInit, MinAndProductAfterPartialStores) {
  // Row r of A is {r+1, r+2, r+3, r+4} (f32-exact). C writes columns 0 and 2 (A[r,0], A[r,1]);
  // D writes columns 1 and 2 (A[r,0], A[r,1]).
  // C = min(A+1, C): written columns keep their value when smaller; others read +inf.
  // D = D*3: written columns triple, unwritten ones read 1 → 3.
  std::vector<double> a;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) a.push_back(r + 1 + c);
  std::vector<double> c_exp, d_exp;
  for (int r = 0; r < 3; ++r) {
    double a0 = r + 1, a1 = r + 2, a2 = r + 3, a3 = r + 4;
    c_exp.insert(c_exp.end(), {std::min(a0 + 1, a0), a1 + 1, std::min(a2 + 1, a1), a3 + 1});
    d_exp.insert(d_exp.end(), {3, a0 * 3, a1 * 3, 3});
  }
  expect_both(
      "input A f32[3,4]\noutput C f32[3,4]\noutput D f32[3,4]\n"
      "B^{3}_{tx=0}L^{2}_{a=0}[C^{f32,g}_{tx,a*2}=A^{f32,g}_{tx,a};D^{f32,g}_{tx,a+1}=A^{f32,g}_{"
      "tx,a};];"
      "B^{3}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a}=min(A^{f32,g}_{tx,a}+1,C^{f32,g}_{tx,a});"
      "D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}*3;];\n",
      {{"A", leir::DType::kF32, {3, 4}, a}}, {c_exp, d_exp});
}

TEST(IdentityInit, MixedIdentitiesUseWrittenFlags) {
  // Rows 0..1 sum to A0+A1+A2 first (identity 0); then min with 2*A over every row: rows 2..3
  // were never written, so they start at +inf (not at 0 and not at the sum's identity).
  std::vector<double> a = {1, 2, 3, 2, 2, 2, 5, 6, 7, -1, 4, 0.5};
  expect_both(
      "input A f64[4,3]\noutput C f64[4]\n"
      "B^{2}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,k};];"
      "B^{4}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=min(C^{f64,g}_{tx},A^{f64,g}_{tx,k}*2);];\n",
      {{"A", leir::DType::kF64, {4, 3}, a}}, {{2, 4, 10, -2}});
}

TEST(IdentityInit, IntegerMaxReadsMinusInfinityNotAWrappedSentinel) {
  // C[0..1] = A+1; then C = max(C, A-5): unwritten C[2..4] read -inf, which no i32 holds.
  expect_both(
      "input A i32[5]\noutput C i32[5]\n"
      "B^{2}_{tx=0}[C^{i32,g}_{tx}=A^{i32,g}_{tx}+1;];"
      "B^{5}_{tx=0}[C^{i32,g}_{tx}=max(C^{i32,g}_{tx},A^{i32,g}_{tx}-5);];\n",
      {{"A", leir::DType::kI32, {5}, {1, 2, 3, 4, -7}}}, {{2, 3, -2, -1, -12}});
}

TEST(IdentityInit, PlanPerTensor) {
  auto plan_of = [](const std::string& text) {
    leir::Program p = parse_or_die(text);
    Result<leir::TensorTable> t = leir::infer_tensor_table(p);
    STEPTP_CHECK(t.ok(), "table");
    return plan_identity_inits(p, *t);
  };
  // A first-writer sum: prefilled with 0 before its block.
  auto sum = plan_of(
      "input A f64[4,3]\noutput C f64[4]\n"
      "B^{4}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,k};];\n");
  ASSERT_EQ(sum.count("C"), 1u);
  EXPECT_EQ(sum["C"].mode, IdentityInit::kPrefill);
  EXPECT_EQ(sum["C"].identity, 0.0);
  // A full plain store in an earlier block: the later max never reads an unwritten element.
  auto covered = plan_of(
      "input A f64[4]\noutput C f64[4]\n"
      "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];"
      "B^{4}_{tx=0}[C^{f64,g}_{tx}=max(C^{f64,g}_{tx},2*A^{f64,g}_{tx});];\n");
  EXPECT_EQ(covered.count("C"), 0u);
  // The same store in the same block does not count (the accumulation may run first).
  auto same_block = plan_of(
      "input A f64[4]\noutput C f64[4]\n"
      "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};"
      "C^{f64,g}_{tx}=max(C^{f64,g}_{tx},2*A^{f64,g}_{tx});];\n");
  ASSERT_EQ(same_block.count("C"), 1u);
  EXPECT_EQ(same_block["C"].mode, IdentityInit::kPrefill);
  EXPECT_EQ(same_block["C"].identity, -std::numeric_limits<double>::infinity());
  // Matmul then bias: both identities 0 → one prefill.
  auto bias = plan_of(
      "input A f64[2,3]\nparam B f64[2]\noutput C f64[2]\n"
      "B^{2}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,k};];"
      "B^{2}_{tx=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+B^{f64,g}_{tx};];\n");
  ASSERT_EQ(bias.count("C"), 1u);
  EXPECT_EQ(bias["C"].mode, IdentityInit::kPrefill);
  // Mixed identities, or -inf into an integer tensor: tracked.
  auto mixed = plan_of(
      "input A f64[4,3]\noutput C f64[4]\n"
      "B^{2}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,k};];"
      "B^{4}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{tx}=min(C^{f64,g}_{tx},A^{f64,g}_{tx,k});];\n");
  EXPECT_EQ(mixed["C"].mode, IdentityInit::kTracked);
  auto integer = plan_of(
      "input A i32[4,3]\noutput C i32[4]\n"
      "B^{4}_{tx=0}L^{3}_{k=0}[C^{i32,g}_{tx}=max(C^{i32,g}_{tx},A^{i32,g}_{tx,k});];\n");
  EXPECT_EQ(integer["C"].mode, IdentityInit::kTracked);
}

TEST(IdentityInit, CudaTracksFlagsAndKeepsTheirReductionsOnOneThread) {
  // The cross-thread min over tx would need an atomic flag+value update: one thread instead.
  leir::Program p = parse_or_die(
      "input A f64[4,3]\noutput C f64[3]\n"
      "B^{2}_{tx=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,0};];"
      "B^{4}_{tx=0}L^{3}_{k=0}[C^{f64,g}_{k}=min(C^{f64,g}_{k},A^{f64,g}_{tx,k});];\n");
  Result<CudaSource> src = emit_cuda(p);
  ASSERT_TRUE(src.ok()) << src.error().render();
  EXPECT_NE(src->code.find("__device__ uint8_t wt_C[3];"), std::string::npos) << src->code;
  EXPECT_NE(src->code.find("wt_C[lin] = 0;"), std::string::npos);
  bool serial_note = false;
  for (const std::string& n : src->notes)
    serial_note |= n.find("written-flags") != std::string::npos;
  EXPECT_TRUE(serial_note);
}

}  // namespace
}  // namespace steptp::codegen
