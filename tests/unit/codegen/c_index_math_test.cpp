// Floor division and modulo of integer index expressions by a power of two: the C backend prints
// them as an arithmetic shift and a mask, which must give the interpreter's floor semantics for
// negative dividends too.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/c_emitter.h"
#include "codegen/c_engine.h"
#include "interp/interpreter.h"
#include "leir/parser.h"

namespace steptp::codegen {
namespace {

// Every subscript divides or reduces a value that is negative for some iterations: tx - 7 runs
// from -7 to 8, tx - 9 from -9 to 6. The divisors are 2^2, 2^3, 2^0 and 2^10.
const char* const kProgram =
    "input A f64[16]\noutput C f64[16]\n"
    "B^{16}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{(tx-7)//4+2}+2*A^{f64,g}_{(tx-9)%8}"
    "+3*A^{f64,g}_{(tx-5)//1+5}+5*A^{f64,g}_{(tx-9)//1024+1}"
    "+if_then_else((tx-3)%2==1&(tx-5)%1==0,7,0);];\n";

TEST(CIndexMath, PowerOfTwoDivisorsBecomeShiftsAndMasks) {
  Result<leir::Program> p = leir::parse_program(kProgram, "pow2.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  Result<CSource> c = emit_c(*p);
  ASSERT_TRUE(c.ok()) << c.error().render();
  for (const char* form : {"((i_tx - 7) >> 2)", "((i_tx - 9) & 7)", "((i_tx - 5) >> 0)",
                           "((i_tx - 9) >> 10)", "((i_tx - 3) & 1)", "((i_tx - 5) & 0)"})
    EXPECT_NE(c->code.find(form), std::string::npos) << form << "\n" << c->code;
  EXPECT_EQ(c->code.find("stp_floordiv_i(("), std::string::npos) << c->code;
  EXPECT_EQ(c->code.find("stp_mod_i(("), std::string::npos) << c->code;
}

TEST(CIndexMath, ShiftsAndMasksKeepFloorSemanticsOnNegativeDividends) {
  Result<leir::Program> p = leir::parse_program(kProgram, "pow2.leir");
  ASSERT_TRUE(p.ok()) << p.error().render();
  leir::TensorData a{"A", leir::DType::kF64, {16}, {}};
  for (int k = 0; k < 16; ++k) a.values.push_back(1 << (k % 12));  // every index tells apart
  Result<std::vector<leir::TensorData>> want = interp::run_program(*p, {a});
  ASSERT_TRUE(want.ok()) << want.error().render();
  CEngineOptions o;
  o.compiler.cache_dir = std::string(STEPTP_BINARY_DIR) + "/codegen-test-cache";
  Result<std::vector<leir::TensorData>> got = run_compiled(*p, {a}, o);
  ASSERT_TRUE(got.ok()) << got.error().render();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ(got->front().values, want->front().values);
  // The floor semantics, worked by hand for tx = 0: (0-7)//4 = -2, (0-9)%8 = 7, (0-5)//1 = -5,
  // (0-9)//1024 = -1, (0-3)%2 = 1 and (0-5)%1 = 0: C[0] = A[0] + 2 A[7] + 3 A[0] + 5 A[0] + 7.
  EXPECT_EQ(got->front().values[0], 1 + 2 * 128 + 3 * 1 + 5 * 1 + 7);
}

}  // namespace
}  // namespace steptp::codegen
