// Parser diagnostics: for malformed inputs, the exact line:col (counted by hand from the text)
// and the exact sentence, plus the caret rendering of STYLE.md §4.
#include <gtest/gtest.h>

#include "leir/parser.h"

namespace steptp::leir {
namespace {

struct Case {
  const char* text;
  int line;
  int column;
  const char* message;
};

void expect_diagnostic(const Case& c) {
  auto r = parse_program(c.text, "t.leir");
  ASSERT_FALSE(r.ok()) << c.text;
  const Error& e = r.error();
  EXPECT_EQ(e.category, "parse_error");
  ASSERT_TRUE(e.diagnostic.has_value()) << c.text;
  EXPECT_EQ(e.diagnostic->where.file, "t.leir");
  EXPECT_EQ(e.diagnostic->where.line, c.line) << c.text;
  EXPECT_EQ(e.diagnostic->where.column, c.column) << c.text;
  EXPECT_EQ(e.message, c.message) << c.text;
}

TEST(ParserDiagnostics, SuperscriptErrors) {
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64 g}_{tx}=1;];", 1, 21,
                     "expected ',' between dtype and scope in a superscript, found 'g'"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f65,g}_{tx}=1;];", 1, 17,
                     "unknown dtype 'f65' (expected one of f16, bf16, f32, f64, i8, i16, i32, "
                     "i64, u8, u16, u32, u64, bool, c64, c128, f8e4m3fn, f8e4m3fnuz, f8e5m2, u4, "
                     "i4)"});
  expect_diagnostic(
      {"B^{4}_{tx=0}[C^{f64,q}_{tx}=1;];", 1, 21, "unknown scope 'q' (expected g, s or l)"});
}

TEST(ParserDiagnostics, BlockAndStatementTerminators) {
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=1;]", 1, 32,
                     "block is missing its ';' after ']'; expected ';', found end of input"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=1 D^{f64,g}_{tx}=2;];", 1, 31,
                     "statement is missing its ';'; expected ';' after the statement, found 'D'"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=(A^{f64,g}_{tx}+1;];", 1, 46,
                     "expected ')' to close the parenthesis, found ';'"});
  expect_diagnostic({"C^{f64,g}=1;", 1, 1,
                     "expected a loop header such as 'L^{8}_{a=0}' or '[' to start a block, "
                     "found 'C'; statements must be inside a block's [...]"});
}

TEST(ParserDiagnostics, Functions) {
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=tanh(A^{f64,g}_{tx});];", 1, 29,
                     "unknown function 'tanh' (the functions are max, min, exp, log, sqrt, abs, "
                     "erf, if_then_else)"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=max(A^{f64,g}_{tx});];", 1, 29,
                     "'max' takes 2 arguments, found 1"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=exp;];", 1, 29,
                     "function 'exp' must be called: expected '(' after it"});
}

TEST(ParserDiagnostics, Loops) {
  expect_diagnostic({"L^{4}_{a=1}[C^{f64,g}=1;];", 1, 10,
                     "loop start must be 0 (loops always run from 0 to extent-1), found '1'"});
  expect_diagnostic(
      {"L^{0}_{a=0}[C^{f64,g}=1;];", 1, 4, "loop extent must be at least 1, found '0'"});
  expect_diagnostic(
      {"Q^{4}_{a=0}[C^{f64,g}=1;];", 1, 1, "unknown loop kind 'Q' (expected L, B, P, V or U)"});
  expect_diagnostic(
      {"L^{4}_{max=0}[C^{f64,g}=1;];", 1, 8, "'max' is reserved and cannot name a loop variable"});
}

TEST(ParserDiagnostics, Literals) {
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=1e999999;];", 1, 29,
                     "number too large: '1e999999' does not fit in a double"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}$2;];", 1, 43,
                     "unexpected character '$' in LEIR text"});
  expect_diagnostic({"B^{4}_{tx=0}[C^{f64,g}_{tx}=1.;];", 1, 29,
                     "expected a digit after '.' in a number (write 1.0, not 1.)"});
}

TEST(ParserDiagnostics, LinesAndColumnsReferToTheOriginalFile) {
  // Line 5 is the second body line; column 10 is the 'g' after the space.
  expect_diagnostic(
      {"# header\ninput A f64[4]\noutput C f64[4]\nB^{4}_{tx=0}[\n  C^{f64 g}_{tx}="
       "A^{f64,g}_{tx};];\n",
       5, 10, "expected ',' between dtype and scope in a superscript, found 'g'"});
  expect_diagnostic({"input A f64[4]\noutput C f64[4,0]\nB^{4}_{tx=0}[C^{f64,g}_{tx}=1;];\n", 2, 16,
                     "dimension must be at least 1, found '0'"});
  expect_diagnostic({"input A f99[4]\n", 1, 9,
                     "unknown dtype 'f99' (expected one of f16, bf16, f32, f64, i8, i16, i32, "
                     "i64, u8, u16, u32, u64, bool, c64, c128, f8e4m3fn, f8e4m3fnuz, f8e5m2, u4, "
                     "i4)"});
  expect_diagnostic({"input A f64[4]\nB^{4}_{tx=0}[C^{f64,g}_{tx}=1;];\noutput C f64[4]\n", 3, 1,
                     "declaration 'output' after the body started; declarations must come "
                     "before the first block"});
  expect_diagnostic({"input A f64[4]\n", 2, 1,
                     "expected a block such as 'B^{16}_{tx=0}[...;];', found end of input"});
}

TEST(ParserDiagnostics, RenderShowsTheLineAndACaret) {
  auto r = parse_body("B^{4}_{tx=0}[C^{f64 g}_{tx}=1;];", "softmax.leir");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().render(),
            "softmax.leir:1:21: error: expected ',' between dtype and scope in a superscript, "
            "found 'g'\n"
            "B^{4}_{tx=0}[C^{f64 g}_{tx}=1;];\n"
            "                    ^");
}

}  // namespace
}  // namespace steptp::leir
