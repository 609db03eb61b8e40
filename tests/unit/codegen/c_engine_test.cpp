// Compiled C must compute what the interpreter (the semantics of record) computes, for every
// program of the codegen set, on two seeds.
#include <gtest/gtest.h>

#include "c_engine_test_support.h"

namespace steptp::codegen {
namespace {

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
