// The first-write identity rule (leir_spec §2.3) that the interpreter and the C and CUDA backends
// share: which read of a statement is its self-read, and which value it sees on a first write.
#include <gtest/gtest.h>

#include <limits>

#include "analysis/access.h"
#include "leir/parser.h"

namespace steptp::analysis {
namespace {

leir::Stmt stmt_of(const char* text) {
  Result<std::vector<leir::Block>> body = leir::parse_body(text);
  STEPTP_CHECK(body.ok() && body->size() == 1, "test block does not parse");
  return *body->front().body[0].stmt;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(AccumulationIdentity, EachOperatorHasTheIdentityOfTheTable) {
  struct Case {
    const char* program;
    double identity;
  };
  const Case cases[] = {
      {"L^{2}_{a=0}[X^{f64,g}=X^{f64,g}+A^{f64,g}_{a};];", 0.0},
      {"L^{2}_{a=0}[X^{f64,g}=X^{f64,g}-A^{f64,g}_{a};];", 0.0},
      {"L^{2}_{a=0}[X^{f64,g}=X^{f64,g}*A^{f64,g}_{a};];", 1.0},
      {"L^{2}_{a=0}[X^{f64,g}=max(X^{f64,g},A^{f64,g}_{a});];", -kInf},
      {"L^{2}_{a=0}[X^{f64,g}=min(X^{f64,g},A^{f64,g}_{a});];", kInf},
      {"L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}/X^{f64,g};];", 1.0},
      {"L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}//X^{f64,g};];", 1.0},
      {"L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}%X^{f64,g};];", 1.0},
  };
  for (const Case& c : cases) {
    std::optional<SelfRead> self = accumulation_self_read(stmt_of(c.program));
    ASSERT_TRUE(self) << c.program;
    EXPECT_EQ(self->identity, c.identity) << c.program;
  }
}

TEST(AccumulationIdentity, CommutedAndChainedFormsFindTheSelfRead) {
  // A+X+1 parses as (A+X)+1: X is the right operand of the inner sum.
  leir::Stmt sum = stmt_of("L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}+X^{f64,g}+1;];");
  EXPECT_EQ(accumulation_self_read(sum)->read, sum.rhs->lhs()->rhs().get());
  // A*2*X parses as (A*2)*X: X is the right operand of the root.
  leir::Stmt product = stmt_of("L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}*2*X^{f64,g};];");
  EXPECT_EQ(accumulation_self_read(product)->read, product.rhs->rhs().get());
  leir::Stmt max = stmt_of("L^{2}_{a=0}[X^{f64,g}=max(A^{f64,g}_{a},X^{f64,g});];");
  EXPECT_EQ(accumulation_self_read(max)->read, max.rhs->args()[1].get());
}

TEST(AccumulationIdentity, PlainStoresAndNegatedReadsHaveNone) {
  EXPECT_FALSE(accumulation_self_read(stmt_of("L^{2}_{a=0}[X^{f64,g}_{a}=A^{f64,g}_{a}*2;];")));
  // X under a minus is not a self-read of a sum: -X has no identity that makes it vanish.
  EXPECT_FALSE(accumulation_self_read(stmt_of("L^{2}_{a=0}[X^{f64,g}=A^{f64,g}_{a}-X^{f64,g};];")));
  // A different element of the same tensor is not the self-read.
  EXPECT_FALSE(accumulation_self_read(stmt_of("L^{2}_{a=0}[X^{f64,g}_{a}=X^{f64,g}_{a-1}+1;];")));
  // X as the numerator: only the trailing divisor has the identity 1.
  EXPECT_FALSE(accumulation_self_read(stmt_of("L^{2}_{a=0}[X^{f64,g}=X^{f64,g}/A^{f64,g}_{a};];")));
}

}  // namespace
}  // namespace steptp::analysis
