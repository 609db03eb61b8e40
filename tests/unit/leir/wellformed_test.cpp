// Well-formedness: one accepted and one rejected program per rule of wellformed.h, with the
// message naming the tensor or loop and the block/statement.
#include "leir/wellformed.h"

#include <gtest/gtest.h>

#include <string>

#include "leir/parser.h"

namespace steptp::leir {
namespace {

constexpr const char* kDecls =
    "input A f64[8,4]\ninput I i64[8]\nconst H f64[]\noutput C f64[8,4]\n";

Result<void> check(const std::string& text, WellFormedOptions options = {}) {
  auto p = parse_program(text);
  EXPECT_TRUE(p.ok()) << text << "\n" << (p.ok() ? "" : p.error().render());
  if (!p.ok()) return p.error();
  return check_well_formed(*p, options);
}

void expect_ok(const std::string& text, WellFormedOptions options = {}) {
  auto r = check(text, options);
  EXPECT_TRUE(r.ok()) << text << "\n" << (r.ok() ? "" : r.error().render());
}

void expect_ill_formed(const std::string& text, const std::string& message_part,
                       WellFormedOptions options = {}) {
  auto r = check(text, options);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().category, "ill_formed");
  EXPECT_NE(r.error().message.find(message_part), std::string::npos)
      << "message: " << r.error().message << "\nwanted: " << message_part;
}

TEST(WellFormed, AcceptsAPlainProgram) {
  expect_ok(std::string(kDecls) +
            "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*H^{f64,g};];");
}

TEST(WellFormed, Declarations) {
  expect_ill_formed("B^{8}_{tx=0}[C^{f64,g}_{tx}=1;];", "declares no tensors");
  expect_ok("B^{8}_{tx=0}[C^{f64,g}_{tx}=1;];", WellFormedOptions{false, false});
  expect_ill_formed("input A f64[8]\nB^{8}_{tx=0}[A^{f64,g}_{tx}=1;];", "name no output");
  expect_ill_formed("input A f64[8]\noutput A f64[8]\nB^{8}_{tx=0}[A^{f64,g}_{tx}=1;];",
                    "tensor 'A' is declared twice (declarations 0 and 1)");
  Program p;
  p.decls.push_back(TensorDecl{"C", TensorRole::kOutput, DType::kF64, {0}});
  auto r = check_well_formed(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("dimension 0 of size 0"), std::string::npos);
}

TEST(WellFormed, KnownTensorRankButNotSuperscriptDtype) {
  expect_ill_formed(std::string(kDecls) + "B^{8}_{tx=0}[C^{f64,g}_{tx}=1;];",
                    "tensor 'C' is declared with rank 2 but referenced with 1 subscript; in "
                    "block 0, statement 0: `C^{f64,g}_{tx}=1`");
}

// A declared tensor's superscripts repeat its declaration: another dtype or a non-global scope
// in the body contradicts it (such a candidate once verified "equivalent" to its original).
TEST(WellFormed, SuperscriptsOfDeclaredTensorsMustMatchTheirDeclaration) {
  const std::string body = "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a};];";
  expect_ok(std::string(kDecls) + body);
  const char* dtypes[] = {"f16", "bf16", "f32", "i64", "i32", "bool", "u8"};
  for (const char* dt : dtypes) {
    SCOPED_TRACE(dt);
    expect_ill_formed(
        std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{" + dt + ",g}_{tx,a};];",
        std::string("tensor 'A' is declared f64 but referenced as ") + dt);
    expect_ill_formed(
        std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[C^{" + dt + ",g}_{tx,a}=A^{f64,g}_{tx,a};];",
        std::string("tensor 'C' is declared f64 but referenced as ") + dt);
  }
  for (const char* scope : {"s", "l"}) {
    SCOPED_TRACE(scope);
    expect_ill_formed(std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64," + scope +
                          "}_{tx,a}=A^{f64,g}_{tx,a};];",
                      std::string("referenced with scope '") + scope + "'");
    expect_ill_formed(std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64," +
                          scope + "}_{tx,a};];",
                      "tensor 'A' is declared, so it lives in global memory");
  }
}

TEST(WellFormed, WritesToReadOnlyTensors) {
  expect_ill_formed(std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[A^{f64,g}_{tx,a}=1;];",
                    "writes to input tensor 'A', which is read-only");
  expect_ill_formed(std::string(kDecls) + "B^{1}_{tx=0}[H^{f64,g}=1;];",
                    "writes to const tensor 'H'");
  expect_ill_formed("param W f64[2]\noutput C f64[2]\nB^{2}_{tx=0}[W^{f64,g}_{tx}=1;];",
                    "writes to param tensor 'W'");
}

TEST(WellFormed, IntermediatesMustBeWrittenAndConsistent) {
  expect_ill_formed(std::string(kDecls) +
                        "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a};];"
                        "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=X^{f64,g}_{tx};];",
                    "tensor 'X' is read but never written (and is not declared); first read in "
                    "block 1, statement 0");
  // Written later in program order still counts as written (the interpreter reports the
  // uninitialized read at run time).
  expect_ok(std::string(kDecls) +
            "B^{8}_{tx=0}[D^{f64,g}_{tx}=A^{f64,g}_{tx,0};];"
            "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=D^{f64,g}_{tx};];");
  expect_ill_formed(std::string(kDecls) +
                        "B^{8}_{tx=0}[D^{f64,g}_{tx}=A^{f64,g}_{tx,0};];"
                        "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=D^{f32,g}_{tx};];",
                    "intermediate 'D' is referenced as f64 and as f32");
  expect_ill_formed(std::string(kDecls) +
                        "B^{8}_{tx=0}[D^{f64,g}_{tx}=A^{f64,g}_{tx,0};];"
                        "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=D^{f64,g}_{tx,a};];",
                    "intermediate 'D' is referenced with 1 and with 2 subscripts");
}

TEST(WellFormed, IndexExpressionsAreIntegerValued) {
  const std::string head = std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=";
  expect_ok(head + "A^{f64,g}_{I^{i64,g}_{tx},a%4}+A^{f64,g}_{tx//2,max(a-1,0)};];");
  expect_ok(head + "A^{f64,g}_{tx,if_then_else(A^{f64,g}_{tx,a}>0,a,0)};];");
  expect_ill_formed(head + "A^{f64,g}_{tx,0.5};];", "contains the non-integer literal '0.5'");
  expect_ill_formed(head + "A^{f64,g}_{tx,a/2};];", "contains '/' (use '//' for floor division)");
  expect_ill_formed(head + "A^{f64,g}_{tx,a**2};];", "contains '**'");
  expect_ill_formed(head + "A^{f64,g}_{tx,exp(a)};];", "contains the math function 'exp'");
  expect_ill_formed(head + "A^{f64,g}_{tx,inf};];", "contains inf");
  expect_ill_formed(head + "A^{f64,g}_{tx,H^{f64,g}};];",
                    "subscript of 'A' contains a read of 'H' whose dtype f64 is not an integer");
  // A superscript cannot make a declared f64 tensor an integer one.
  expect_ill_formed(head + "A^{f64,g}_{tx,H^{i64,g}};];",
                    "'H' is declared f64 but referenced as i64");
  expect_ok(
      "input A f64[8]\ninput M bool[8]\noutput C f64[8]\n"
      "B^{8}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{M^{bool,g}_{tx}};];");
}

TEST(WellFormed, LoopVariablesAreBoundOnceAndInScope) {
  expect_ill_formed(std::string(kDecls) + "B^{8}_{tx=0}[C^{f64,g}_{tx,a}=1;];",
                    "loop variable 'a' is used outside any loop that binds it; in block 0, "
                    "statement 0");
  expect_ill_formed(
      std::string(kDecls) + "B^{8}_{tx=0}[L^{4}_{a=0}[C^{f64,g}_{tx,a}=1;];C^{f64,g}_{tx,0}=a;];",
      "loop variable 'a' is used outside any loop");
  expect_ok(std::string(kDecls) +
            "B^{8}_{tx=0}[L^{4}_{a=0}[C^{f64,g}_{tx,a}=1;];L^{4}_{a=0}[C^{f64,g}_{tx,a}=a;];];");
  expect_ill_formed(
      std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=1;];",
      "loop variable 'a' is bound twice in one loop nest");
  expect_ill_formed(
      std::string(kDecls) + "B^{8}_{tx=0}L^{4}_{a=0}[L^{4}_{a=0}[C^{f64,g}_{tx,a}=1;];];",
      "loop variable 'a' is bound twice in one loop nest; rename the inner loop; "
      "in block 0, loop 'a'");
}

TEST(WellFormed, BoundLoopsUseBindingNames) {
  expect_ok(std::string(kDecls) + "B^{8}_{bza=0}B^{4}_{ty=0}[C^{f64,g}_{bza,ty}=1;];");
  expect_ill_formed(std::string(kDecls) + "B^{8}_{a=0}L^{4}_{c=0}[C^{f64,g}_{a,c}=1;];",
                    "bound loop variable 'a' is not a binding name (t|b)(x|y|z)[a-z]*");
  expect_ill_formed(std::string(kDecls) + "B^{8}_{tw=0}L^{4}_{c=0}[C^{f64,g}_{tw,c}=1;];",
                    "'tw' is not a binding name");
  // Only B loops are constrained: a serial loop may be called tx.
  expect_ok(std::string(kDecls) + "L^{8}_{tx=0}L^{4}_{c=0}[C^{f64,g}_{tx,c}=1;];");
}

TEST(WellFormed, CudaLaunchLimits) {
  const WellFormedOptions cuda{true, true};
  const std::string decls = "output C f64[2147483648]\n";
  auto one = [&](const std::string& header, const std::string& index) {
    return decls + header + "[C^{f64,g}_{" + index + "}=1;];";
  };
  expect_ok(one("B^{1024}_{tx=0}", "tx"), cuda);
  expect_ill_formed(one("B^{1025}_{tx=0}", "tx"), "threadIdx.x extent 1025 is over 1024", cuda);
  expect_ok(one("B^{1025}_{tx=0}", "tx"));  // limits are opt-in
  expect_ok(one("B^{64}_{tz=0}", "tz"), cuda);
  expect_ill_formed(one("B^{65}_{tz=0}", "tz"), "threadIdx.z extent 65 is over 64", cuda);
  expect_ill_formed(one("B^{32}_{tx=0}B^{64}_{ty=0}", "tx*64+ty"),
                    "2048 threads per block is over 1024", cuda);
  // Two loops bound to the same axis multiply.
  expect_ill_formed(one("B^{32}_{tx=0}B^{64}_{txa=0}", "tx*64+txa"),
                    "threadIdx.x extent 2048 is over 1024", cuda);
  expect_ok(one("B^{2147483647}_{bx=0}", "bx"), cuda);
  expect_ill_formed(one("B^{2147483648}_{bx=0}", "bx"), "blockIdx.x extent 2147483648", cuda);
  expect_ok(one("B^{65535}_{by=0}", "by"), cuda);
  expect_ill_formed(one("B^{65536}_{bz=0}", "bz"), "blockIdx.z extent 65536 is over 65535", cuda);
  // Sibling nested blocks are separate paths: their extents do not multiply.
  expect_ok(decls +
                "B^{32}_{bx=0}[B^{1024}_{tx=0}[C^{f64,g}_{tx}=1;];B^{1024}_{txa=0}["
                "C^{f64,g}_{txa}=2;];];",
            cuda);
}

TEST(WellFormed, ProgrammaticallyBuiltBadLoops) {
  Program p;
  p.decls.push_back(TensorDecl{"C", TensorRole::kOutput, DType::kF64, {}});
  Block b;
  b.loops.push_back(Loop{LoopKind::kSerial, 0, "a"});
  b.body.push_back(
      Item::of(Stmt{Expr::access("C", DType::kF64, Scope::kGlobal, {}), Expr::integer(1)}));
  p.blocks.push_back(b);
  auto r = check_well_formed(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("loop extent 0 is outside 1..2^62; in block 0, loop 'a'"),
            std::string::npos)
      << r.error().message;
  p.blocks[0].loops[0] = Loop{LoopKind::kSerial, 2, "exp"};
  auto named = check_well_formed(p);
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.error().message.find("'exp' cannot name a loop variable"), std::string::npos);
}

}  // namespace
}  // namespace steptp::leir
