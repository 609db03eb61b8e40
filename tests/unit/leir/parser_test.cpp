// Parser: the grammar (blocks, loops, tensor references, precedence and associativity) and the
// program file format. Expected trees are built by hand with the IR factories.
#include "leir/parser.h"

#include <gtest/gtest.h>

#include "leir/printer.h"

namespace steptp::leir {
namespace {

ExprRef v(const char* name) { return Expr::index_var(name); }
ExprRef n(const char* spelling) { return Expr::number_from_spelling(spelling); }
ExprRef bin(BinaryOp op, ExprRef a, ExprRef b) { return Expr::binary(op, a, b); }
ExprRef t(const char* name, std::vector<ExprRef> idx = {}, DType dt = DType::kF64,
          Scope sc = Scope::kGlobal) {
  return Expr::access(name, dt, sc, std::move(idx));
}

ExprRef parsed(std::string_view text) {
  auto r = parse_expr(text);
  EXPECT_TRUE(r.ok()) << text << "\n" << (r.ok() ? "" : r.error().render());
  return r.ok() ? *r : Expr::inf();
}

void expect_tree(std::string_view text, const ExprRef& expected) {
  ExprRef got = parsed(text);
  EXPECT_TRUE(equal(got, expected))
      << text << " parsed as " << print(got) << ", expected " << print(expected);
}

TEST(ParserPrecedence, MultiplicationBindsTighterThanAddition) {
  expect_tree("a+c*d", bin(BinaryOp::kAdd, v("a"), bin(BinaryOp::kMul, v("c"), v("d"))));
  expect_tree("a*c+d", bin(BinaryOp::kAdd, bin(BinaryOp::kMul, v("a"), v("c")), v("d")));
}

TEST(ParserPrecedence, AdditiveAndMultiplicativeAreLeftAssociative) {
  expect_tree("a-c-d", bin(BinaryOp::kSub, bin(BinaryOp::kSub, v("a"), v("c")), v("d")));
  expect_tree("a/c*d", bin(BinaryOp::kMul, bin(BinaryOp::kDiv, v("a"), v("c")), v("d")));
  expect_tree("a//c%d", bin(BinaryOp::kMod, bin(BinaryOp::kFloorDiv, v("a"), v("c")), v("d")));
}

TEST(ParserPrecedence, PowerIsRightAssociativeAndTighterThanUnaryMinus) {
  expect_tree("a**c**d", bin(BinaryOp::kPow, v("a"), bin(BinaryOp::kPow, v("c"), v("d"))));
  expect_tree("-a**2", Expr::neg(bin(BinaryOp::kPow, v("a"), n("2"))));
  expect_tree("a**-1", bin(BinaryOp::kPow, v("a"), Expr::neg(n("1"))));
  expect_tree("-a*c", bin(BinaryOp::kMul, Expr::neg(v("a")), v("c")));
  expect_tree("2*a**2", bin(BinaryOp::kMul, n("2"), bin(BinaryOp::kPow, v("a"), n("2"))));
}

TEST(ParserPrecedence, ComparisonsChainAndBindTighterThanAndOr) {
  ExprRef chain = Expr::compare({n("2"), v("c"), n("258")}, {CompareOp::kLe, CompareOp::kLt});
  expect_tree("2<=c<258", chain);
  ExprRef right = Expr::compare({n("1"), v("d"), n("257")}, {CompareOp::kLe, CompareOp::kLt});
  expect_tree("2<=c<258&1<=d<257", bin(BinaryOp::kAnd, chain, right));
  // '|' is looser than '&'.
  ExprRef a0 = Expr::compare({v("a"), n("0")}, {CompareOp::kEq});
  ExprRef c0 = Expr::compare({v("c"), n("0")}, {CompareOp::kNe});
  ExprRef d0 = Expr::compare({v("d"), n("0")}, {CompareOp::kGt});
  expect_tree("a==0|c!=0&d>0", bin(BinaryOp::kOr, a0, bin(BinaryOp::kAnd, c0, d0)));
  // Arithmetic binds tighter than comparison.
  expect_tree("a+1>=c*2", Expr::compare({bin(BinaryOp::kAdd, v("a"), n("1")),
                                         bin(BinaryOp::kMul, v("c"), n("2"))},
                                        {CompareOp::kGe}));
}

TEST(ParserPrecedence, ParenthesesOverrideAndAreMarked) {
  ExprRef e = parsed("(a+c)*d");
  ASSERT_EQ(e->kind(), ExprKind::kBinary);
  EXPECT_EQ(e->binary_op(), BinaryOp::kMul);
  EXPECT_TRUE(e->lhs()->is_grouped());
  EXPECT_FALSE(e->rhs()->is_grouped());
  expect_tree("a-(c-d)", bin(BinaryOp::kSub, v("a"), bin(BinaryOp::kSub, v("c"), v("d"))));
  expect_tree("a**(c+d)", bin(BinaryOp::kPow, v("a"), bin(BinaryOp::kAdd, v("c"), v("d"))));
}

TEST(ParserPrimaries, NumbersKeepTheirSpelling) {
  for (const char* s : {"0", "2097152", "0.5", "1e-05", "1e+20", "0.7978845608028654", "1.0"}) {
    ExprRef e = parsed(s);
    ASSERT_EQ(e->kind(), ExprKind::kNumber) << s;
    EXPECT_EQ(e->number_spelling(), s);
  }
  EXPECT_EQ(parsed("1e-05")->number_value(), 1e-05);
  EXPECT_TRUE(parsed("7")->is_integer_literal());
  EXPECT_FALSE(parsed("7.0")->is_integer_literal());
}

TEST(ParserPrimaries, InfCallsTensorsAndGathers) {
  expect_tree("-inf", Expr::neg(Expr::inf()));
  expect_tree("max(a,0)", Expr::call(Function::kMax, {v("a"), n("0")}));
  expect_tree("if_then_else(a==tx,A^{f64,g}_{a},0)",
              Expr::call(Function::kIfThenElse, {Expr::compare({v("a"), v("tx")}, {CompareOp::kEq}),
                                                 t("A", {v("a")}), n("0")}));
  expect_tree("H^{f64,g}", t("H"));
  expect_tree("E^{f32,s}_{tx,C^{i64,l}_{tx}}",
              t("E", {v("tx"), t("C", {v("tx")}, DType::kI64, Scope::kLocal)}, DType::kF32,
                Scope::kShared));
  expect_tree(
      "Ae^{bool,g}_{0,0,(c+f)*48}",
      t("Ae", {n("0"), n("0"), bin(BinaryOp::kMul, bin(BinaryOp::kAdd, v("c"), v("f")), n("48"))},
        DType::kBool));
}

TEST(ParserBody, LoopsBlocksAndStatements) {
  auto r = parse_body(
      "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];"
      "P^{2}_{c=0}V^{4}_{d=0}U^{3}_{f=0}[D^{f32,g}=1;];");
  ASSERT_TRUE(r.ok()) << r.error().render();
  ASSERT_EQ(r->size(), 2u);
  const Block& b0 = (*r)[0];
  ASSERT_EQ(b0.loops.size(), 2u);
  EXPECT_EQ(b0.loops[0], (Loop{LoopKind::kBound, 16, "tx"}));
  EXPECT_EQ(b0.loops[1], (Loop{LoopKind::kSerial, 64, "a"}));
  ASSERT_EQ(b0.body.size(), 1u);
  EXPECT_TRUE(equal(b0.body[0].stmt->lhs, t("C", {v("tx"), v("a")})));
  const Block& b1 = (*r)[1];
  EXPECT_EQ(b1.loops[0].kind, LoopKind::kParallel);
  EXPECT_EQ(b1.loops[1].kind, LoopKind::kVectorized);
  EXPECT_EQ(b1.loops[2].kind, LoopKind::kUnrolled);
  EXPECT_TRUE(equal(b1.body[0].stmt->lhs, t("D", {}, DType::kF32)));
}

TEST(ParserBody, NestedBlocksInterleaveWithStatementsInAnyOrder) {
  auto r = parse_body(
      "B^{4}_{tx=0}[X^{f64,l}=0;L^{2}_{a=0}[X^{f64,l}=X^{f64,l}+1;];Y^{f64,l}=X^{f64,l};"
      "L^{3}_{c=0}[Y^{f64,l}=Y^{f64,l}*2;];[Z^{f64,g}_{tx}=Y^{f64,l};];];");
  ASSERT_TRUE(r.ok()) << r.error().render();
  const Block& b = (*r)[0];
  ASSERT_EQ(b.body.size(), 5u);
  EXPECT_TRUE(b.body[0].is_stmt());
  EXPECT_TRUE(b.body[1].is_block());
  EXPECT_TRUE(b.body[2].is_stmt());
  EXPECT_TRUE(b.body[3].is_block());
  ASSERT_TRUE(b.body[4].is_block());
  EXPECT_TRUE(b.body[4].block->loops.empty());  // "[stmt;];" with no loop header
}

TEST(ParserBody, EmptyLoopHeaderAtTopLevel) {
  auto r = parse_body("[C^{f64,g}=1;];");
  ASSERT_TRUE(r.ok()) << r.error().render();
  EXPECT_TRUE((*r)[0].loops.empty());
}

TEST(ParserBody, WhitespaceAndNewlinesBetweenTokens) {
  auto spaced = parse_body(
      "B ^ { 16 } _ { tx = 0 }\n  L^{64}_{a=0} [\n\tC^{ f64 , g }_{ tx , a } = max( A^{f64,g}"
      "_{tx,a} , 0 ) ;\n] ;\n");
  auto tight = parse_body("B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];");
  ASSERT_TRUE(spaced.ok()) << spaced.error().render();
  ASSERT_TRUE(tight.ok());
  EXPECT_EQ(*spaced, *tight);
  EXPECT_EQ(print_body(*spaced),
            "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];");
}

TEST(ParserBody, ExtentLimits) {
  auto big = parse_body("L^{1000000000000}_{a=0}[C^{f64,g}=1;];");
  ASSERT_TRUE(big.ok()) << big.error().render();
  EXPECT_EQ((*big)[0].loops[0].extent, 1000000000000);
  auto max = parse_body("L^{4611686018427387904}_{a=0}[C^{f64,g}=1;];");
  ASSERT_TRUE(max.ok());
  EXPECT_EQ((*max)[0].loops[0].extent, int64_t{1} << 62);
  auto over = parse_body("L^{4611686018427387905}_{a=0}[C^{f64,g}=1;];");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("2^62"), std::string::npos) << over.error().message;
  auto huge = parse_body("L^{1000000000000000000000000000000}_{a=0}[C^{f64,g}=1;];");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().category, "parse_error");
}

TEST(ParserProgram, DeclarationsCommentsAndMultiLineBody) {
  const char* text =
      "# softmax over rows\n"
      "\n"
      "input A f64[16,1024]\n"
      "param W f32[64]\n"
      "  const H f64[]\n"
      "output C f64[16,1024]\n"
      "B^{16}_{tx=0}L^{1024}_{a=0}[\n"
      "# a comment between body lines\n"
      "  C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*H^{f64,g};\n"
      "];\n";
  auto r = parse_program(text, "x.leir");
  ASSERT_TRUE(r.ok()) << r.error().render();
  ASSERT_EQ(r->decls.size(), 4u);
  EXPECT_EQ(r->decls[0], (TensorDecl{"A", TensorRole::kInput, DType::kF64, {16, 1024}}));
  EXPECT_EQ(r->decls[1], (TensorDecl{"W", TensorRole::kParam, DType::kF32, {64}}));
  EXPECT_EQ(r->decls[2], (TensorDecl{"H", TensorRole::kConst, DType::kF64, {}}));
  EXPECT_EQ(r->decls[3], (TensorDecl{"C", TensorRole::kOutput, DType::kF64, {16, 1024}}));
  ASSERT_EQ(r->blocks.size(), 1u);
  EXPECT_EQ(print_program(*r),
            "input A f64[16,1024]\nparam W f32[64]\nconst H f64[]\noutput C f64[16,1024]\n"
            "B^{16}_{tx=0}L^{1024}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*H^{f64,g};];\n");
}

TEST(ParserProgram, BodyWithoutDeclarations) {
  auto r = parse_program("B^{1}_{tx=0}[C^{f64,g}=1;];\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decls.empty());
  EXPECT_EQ(r->blocks.size(), 1u);
}

TEST(ParserProgram, DeclarationsOnly) {
  auto r = parse_declarations("# args\ninput A f64[2,3]\n\noutput C bool[1]\n");
  ASSERT_TRUE(r.ok()) << r.error().render();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1], (TensorDecl{"C", TensorRole::kOutput, DType::kBool, {1}}));
  auto bad = parse_declarations("input A f64[2]\nB^{1}_{tx=0}[C^{f64,g}=1;];\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().diagnostic->where.line, 2);
}

}  // namespace
}  // namespace steptp::leir
