// Printer: canonical spelling, minimal parentheses, and the two round-trip invariants
// parse(print(p)) == p (on hand-built and randomly generated trees) and print(parse(t)) == t.
#include "leir/printer.h"

#include <gtest/gtest.h>

#include <random>

#include "leir/parser.h"

namespace steptp::leir {
namespace {

ExprRef v(const char* name) { return Expr::index_var(name); }
ExprRef n(const char* spelling) { return Expr::number_from_spelling(spelling); }
ExprRef bin(BinaryOp op, ExprRef a, ExprRef b) { return Expr::binary(op, a, b); }

void expect_prints(const ExprRef& e, const std::string& text) {
  EXPECT_EQ(print(e), text);
  auto back = parse_expr(text);
  ASSERT_TRUE(back.ok()) << text << ": " << back.error().render();
  EXPECT_TRUE(equal(*back, e)) << text;
}

TEST(Printer, MinimalParenthesesForLeftAssociativeOperators) {
  expect_prints(bin(BinaryOp::kSub, v("a"), bin(BinaryOp::kSub, v("c"), v("d"))), "a-(c-d)");
  expect_prints(bin(BinaryOp::kSub, bin(BinaryOp::kSub, v("a"), v("c")), v("d")), "a-c-d");
  expect_prints(bin(BinaryOp::kAdd, v("a"), bin(BinaryOp::kAdd, v("c"), v("d"))), "a+(c+d)");
  expect_prints(bin(BinaryOp::kMul, bin(BinaryOp::kAdd, v("a"), v("c")), v("d")), "(a+c)*d");
  expect_prints(bin(BinaryOp::kAdd, v("a"), bin(BinaryOp::kMul, v("c"), v("d"))), "a+c*d");
  expect_prints(bin(BinaryOp::kDiv, v("a"), bin(BinaryOp::kMul, v("c"), v("d"))), "a/(c*d)");
}

TEST(Printer, PowerBaseAndExponent) {
  expect_prints(bin(BinaryOp::kPow, bin(BinaryOp::kAdd, v("a"), v("c")), n("2")), "(a+c)**2");
  expect_prints(bin(BinaryOp::kPow, v("a"), Expr::neg(n("1"))), "a**(-1)");
  expect_prints(bin(BinaryOp::kPow, v("a"), bin(BinaryOp::kAdd, v("c"), v("d"))), "a**(c+d)");
  expect_prints(bin(BinaryOp::kPow, v("a"), v("c")), "a**(c)");
  expect_prints(bin(BinaryOp::kPow, bin(BinaryOp::kPow, v("a"), n("2")), n("3")), "(a**2)**3");
  expect_prints(bin(BinaryOp::kPow, Expr::neg(v("a")), n("2")), "(-a)**2");
  expect_prints(Expr::neg(bin(BinaryOp::kPow, v("a"), n("2"))), "-a**2");
  expect_prints(bin(BinaryOp::kPow, v("a"), n("0.5")), "a**0.5");
}

TEST(Printer, NegationAndComparisons) {
  expect_prints(Expr::neg(bin(BinaryOp::kAdd, v("a"), v("c"))), "-(a+c)");
  expect_prints(Expr::neg(Expr::inf()), "-inf");
  expect_prints(bin(BinaryOp::kSub, v("a"), Expr::neg(n("1"))), "a--1");
  ExprRef lt = Expr::compare({v("a"), v("c")}, {CompareOp::kLt});
  ExprRef ge = Expr::compare({v("c"), n("1")}, {CompareOp::kGe});
  expect_prints(bin(BinaryOp::kAnd, lt, ge), "a<c&c>=1");
  expect_prints(bin(BinaryOp::kOr, bin(BinaryOp::kAnd, lt, ge), lt), "a<c&c>=1|a<c");
  expect_prints(bin(BinaryOp::kAnd, lt, bin(BinaryOp::kOr, ge, lt)), "a<c&(c>=1|a<c)");
  expect_prints(Expr::compare({lt, n("0")}, {CompareOp::kEq}), "(a<c)==0");
  expect_prints(Expr::compare({n("0"), v("a"), n("4")}, {CompareOp::kLe, CompareOp::kLt}),
                "0<=a<4");
}

TEST(Printer, GroupedNodesKeepTheirParentheses) {
  auto r = parse_expr("((a))+(c*d)-(-(1))");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(print(*r), "(a)+(c*d)-(-(1))");  // double parentheses collapse to one mark
}

TEST(Printer, LoopsDeclarationsAndBlocks) {
  EXPECT_EQ(print(Loop{LoopKind::kBound, 16, "tx"}), "B^{16}_{tx=0}");
  EXPECT_EQ(print(Loop{LoopKind::kUnrolled, 4, "a"}), "U^{4}_{a=0}");
  EXPECT_EQ(print(TensorDecl{"A", TensorRole::kInput, DType::kF64, {16, 1024}}),
            "input A f64[16,1024]");
  EXPECT_EQ(print(TensorDecl{"H", TensorRole::kConst, DType::kF64, {}}), "const H f64[]");
  Block inner;
  inner.body.push_back(Item::of(Stmt{Expr::access("C", DType::kF64, Scope::kGlobal, {}), n("1")}));
  Block outer;
  outer.loops.push_back(Loop{LoopKind::kSerial, 2, "a"});
  outer.body.push_back(Item::of(inner));
  EXPECT_EQ(print(outer), "L^{2}_{a=0}[[C^{f64,g}=1;];];");
}

TEST(Printer, CanonicalTextsPrintBackIdentically) {
  for (const char* text : {
           "B^{16}_{tx=0}L^{85}_{c=0}[C^{f64,g}_{tx,c}=D^{f64,g}_{tx,c}/((min(2,255-c*3)+1)*(min(2,"
           "255-c*3)+1));];",
           "B^{16}_{tx=0}L^{3}_{a=0}[E^{f64,g}_{tx,a}=if_then_else(2<=a<258&1<=a<257,A^{f64,g}_{"
           "tx,a-2},-inf);];",
           "B^{64}_{tx=0}L^{32}_{a=0}[H^{f64,g}_{tx,a}=max(if_then_else(a-1<0,-inf,H^{f64,g}_{tx,"
           "a-1}),D^{f64,g}_{tx,a});];",
           "B^{16}_{tx=0}[C^{f64,g}_{tx}=-(A^{f64,g}_{tx}+1)**2*0.5+A^{f64,g}_{tx}**(-1);];",
           "B^{4}_{tx=0}[X^{f64,l}=0;L^{2}_{a=0}[X^{f64,l}=X^{f64,l}+1;];[C^{f64,g}_{tx}=X^{f64,"
           "l};];];",
       }) {
    auto r = parse_body(text);
    ASSERT_TRUE(r.ok()) << text << "\n" << r.error().render();
    EXPECT_EQ(print_body(*r), text);
  }
}

// ---- random trees: parse(print(e)) == e ---------------------------------------------------

class TreeGenerator {
 public:
  explicit TreeGenerator(uint32_t seed) : rng_(seed) {}

  ExprRef expr(int depth) {
    int pick = depth <= 0 ? roll(4) : roll(10);
    switch (pick) {
      case 0:
        return Expr::number_from_spelling(kNumbers[roll(5)]);
      case 1:
        return Expr::index_var(kVars[roll(3)]);
      case 2:
        return roll(4) == 0 ? Expr::inf() : Expr::index_var("tx");
      case 3: {
        std::vector<ExprRef> idx;
        for (int i = roll(3); i > 0; --i) idx.push_back(Expr::index_var(kVars[roll(3)]));
        return Expr::access("A", DType::kF64, Scope::kGlobal, std::move(idx));
      }
      case 4:
        return Expr::neg(expr(depth - 1));
      case 5:
      case 6:
      case 7: {
        auto op = static_cast<BinaryOp>(roll(9));
        return Expr::binary(op, expr(depth - 1), expr(depth - 1));
      }
      case 8: {
        int k = 1 + roll(2);
        std::vector<ExprRef> operands{expr(depth - 1)};
        std::vector<CompareOp> ops;
        for (int i = 0; i < k; ++i) {
          operands.push_back(expr(depth - 1));
          ops.push_back(static_cast<CompareOp>(roll(6)));
        }
        return Expr::compare(std::move(operands), std::move(ops));
      }
      default: {
        auto f = static_cast<Function>(roll(8));
        std::vector<ExprRef> args;
        for (int i = 0; i < function_arity(f); ++i) args.push_back(expr(depth - 1));
        return Expr::call(f, std::move(args));
      }
    }
  }

 private:
  int roll(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  static constexpr const char* kNumbers[] = {"0", "2", "0.5", "1e-05", "3.25e+2"};
  static constexpr const char* kVars[] = {"a", "c", "d"};
  std::mt19937 rng_;
};

TEST(Printer, RandomTreesRoundTripStructurally) {
  TreeGenerator gen(12345);
  for (int i = 0; i < 3000; ++i) {
    ExprRef e = gen.expr(5);
    std::string text = print(e);
    auto back = parse_expr(text);
    ASSERT_TRUE(back.ok()) << text << "\n" << back.error().render();
    ASSERT_TRUE(equal(*back, e)) << text << " reparsed as " << print(*back);
    // And the printed text is a fixed point.
    EXPECT_EQ(print(*back), text);
  }
}

TEST(Printer, RandomProgramsRoundTrip) {
  TreeGenerator gen(777);
  for (int i = 0; i < 200; ++i) {
    Program p;
    p.decls.push_back(TensorDecl{"A", TensorRole::kInput, DType::kF64, {4, 4}});
    p.decls.push_back(TensorDecl{"C", TensorRole::kOutput, DType::kF32, {}});
    Block b;
    b.loops.push_back(Loop{LoopKind::kBound, 4, "tx"});
    b.loops.push_back(Loop{static_cast<LoopKind>(i % 5), 1 + i, "a"});
    b.body.push_back(
        Item::of(Stmt{Expr::access("C", DType::kF32, Scope::kGlobal, {}), gen.expr(4)}));
    Block nested;
    nested.loops.push_back(Loop{LoopKind::kSerial, 3, "c"});
    nested.body.push_back(Item::of(
        Stmt{Expr::access("Xy", DType::kF16, Scope::kLocal, {Expr::index_var("c")}), gen.expr(3)}));
    b.body.push_back(Item::of(nested));
    p.blocks.push_back(b);
    std::string text = print_program(p);
    auto back = parse_program(text);
    ASSERT_TRUE(back.ok()) << text << "\n" << back.error().render();
    EXPECT_EQ(*back, p) << text;
    EXPECT_EQ(print_program(*back), text);
  }
}

}  // namespace
}  // namespace steptp::leir
