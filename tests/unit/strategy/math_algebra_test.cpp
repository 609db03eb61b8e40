// Unit tests of strategy/math/algebra: LEIR → GiNaC → LEIR round trips, each rewrite on small
// expressions with the expected LEIR written by hand, and the domain rejections.
#include <gtest/gtest.h>

#include "leir/parser.h"
#include "leir/printer.h"
#include "strategy/math/algebra.h"

namespace steptp::strategy::math {
namespace {

const std::string kA = "A^{f64,g}_{tx,a}";
const std::string kC = "C^{f64,g}_{tx,a}";
const std::string kD = "D^{f64,g}_{tx,a}";
const std::string kE = "E^{f64,g}_{tx,a}";

// Expands the short names A, C, D, E (single capitals followed by a non-letter) into accesses.
std::string full(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alone = (i == 0 || !std::isalpha(static_cast<unsigned char>(s[i - 1]))) &&
                 (i + 1 == s.size() || !std::isalpha(static_cast<unsigned char>(s[i + 1])));
    if (alone && (c == 'A' || c == 'C' || c == 'D' || c == 'E'))
      out += std::string(1, c) + "^{f64,g}_{tx,a}";
    else
      out += c;
  }
  return out;
}

struct Converted {
  Algebra algebra;
  GiNaC::ex e;
};

Converted convert(const std::string& text) {
  Converted c;
  auto parsed = leir::parse_expr(full(text));
  EXPECT_TRUE(parsed.ok()) << text;
  auto g = c.algebra.to_ginac(*parsed);
  EXPECT_TRUE(g.has_value()) << text;
  c.e = *g;
  return c;
}

std::string back(const Converted& c, const GiNaC::ex& e) {
  auto l = c.algebra.to_leir(e);
  EXPECT_TRUE(l.has_value());
  return l ? leir::print(*l) : "<none>";
}

using Rewrite = std::optional<GiNaC::ex> (*)(const GiNaC::ex&);

std::string rewritten(const std::string& text, Rewrite r) {
  Converted c = convert(text);
  auto out = r(c.e);
  if (!out) return "<none>";
  return back(c, *out);
}

TEST(MathAlgebra, RoundTripKeepsCanonicalForms) {
  for (std::string t : {"A+C", "A*C", "A/C", "A-C", "exp(A-D)/E", "max(A,0)", "0.5*A*(erf(A)+1)",
                        "1/(exp(-A)+1)", "A**2", "log(exp(A)+1)", "1e-05*A", "A**(C+1)"}) {
    Converted c = convert(t);
    EXPECT_EQ(back(c, c.e), full(t)) << t;
  }
}

TEST(MathAlgebra, RoundTripOrdersDeterministically) {
  Converted c = convert("C+A");
  EXPECT_EQ(back(c, c.e), full("A+C"));
  Converted d = convert("-A+C");
  EXPECT_EQ(back(d, d.e), full("C-A"));
}

TEST(MathAlgebra, SignsOfEqualValuesComeBackTheSameWhateverGinacsForm) {
  // GiNaC's normal() may return -(C-D*E-A)/D where a direct construction gives (A-C+D*E)/D;
  // which form a rewrite returns depends on GiNaC's hash order. Both must print alike.
  Converted c = convert("A+C+D+E");
  auto sym = [&](const char* name) { return GiNaC::ex(*c.algebra.tensor_symbol(name)); };
  const GiNaC::ex A = sym("A"), C = sym("C"), D = sym("D"), E = sym("E");
  const GiNaC::ex normalised = GiNaC::normal((A - C) / D + E);
  const GiNaC::ex direct = (A - C + D * E) / D;
  const GiNaC::ex negated_direct = -((C - A - D * E) / D);
  EXPECT_EQ(back(c, normalised), back(c, direct));
  EXPECT_EQ(back(c, negated_direct), back(c, direct));
  EXPECT_EQ(back(c, direct), full("(A+D*E-C)/D"));  // positive terms first
  // factor() of a difference of squares, written both ways round.
  EXPECT_EQ(back(c, GiNaC::factor(C * C - A * A)), full("(A+C)*(C-A)"));
  EXPECT_EQ(back(c, -GiNaC::factor(A * A - C * C)), full("(A+C)*(C-A)"));
  // A sum alone keeps a positive first term: C-A, never -(A-C).
  EXPECT_EQ(back(c, C - A), full("C-A"));
  EXPECT_EQ(back(c, -A - C), full("-A-C"));
}

TEST(MathAlgebra, UnsupportedConstructsDoNotConvert) {
  Algebra a;
  for (std::string t : {"A%2", "A//2", "max(A,-inf)"}) {
    auto parsed = leir::parse_expr(full(t));
    ASSERT_TRUE(parsed.ok()) << t;
    EXPECT_FALSE(a.to_ginac(*parsed).has_value()) << t;
  }
}

TEST(MathAlgebra, IfThenElseIsAnAtom) {
  Converted c = convert("if_then_else(a-1<0,0,A)+if_then_else(a-1<0,0,A)");
  EXPECT_EQ(back(c, c.e), "2*if_then_else(a-1<0,0," + kA + ")");
}

TEST(MathAlgebra, Factor) {
  EXPECT_EQ(rewritten("D/C+1/C", factor_expr), full("(D+1)/C"));
  EXPECT_EQ(rewritten("A*2+A*C", factor_expr), full("A*(C+2)"));
  EXPECT_EQ(rewritten("A*C", factor_expr), "<none>");
}

TEST(MathAlgebra, FactorWritesAnIrreducibleFactorMultipliedOutWhateverFormItCameIn) {
  // GiNaC's factor() leaves an irreducible factor in the form its main variable gave it, and
  // which variable that is follows GiNaC's hash order: the same value must come back alike.
  const std::string F = "F^{f64,g}_{tx,a}";
  const std::vector<std::string> forms = {"2*" + F + "-2*(A*E-C*E)*D", "2*" + F + "-2*E*(A*D-C*D)",
                                          "2*(" + F + "-(A-C)*D*E)"};
  for (const std::string& f : forms)
    EXPECT_EQ(rewritten(f, factor_expr), full("2*C*D*E+2*" + F + "-2*A*D*E")) << f;
}

TEST(MathAlgebra, Expand) {
  EXPECT_EQ(rewritten("(A-E)*D", expand_expr), full("A*D-D*E"));
  EXPECT_EQ(rewritten("A+C", expand_expr), "<none>");
}

TEST(MathAlgebra, Cancel) {
  EXPECT_EQ(rewritten("(exp(A)-exp(-A))/(exp(A)+exp(-A))", cancel_expr),
            full("(exp(2*A)-1)/(exp(2*A)+1)"));
}

TEST(MathAlgebra, TogetherAndApart) {
  EXPECT_EQ(rewritten("A/C+1/C", together_expr), full("(A+1)/C"));
  EXPECT_EQ(rewritten("A/C+D/E", together_expr), full("(A*E+C*D)/(C*E)"));
  EXPECT_EQ(rewritten("(A+1)/C", apart_expr), full("A/C+1/C"));
}

TEST(MathAlgebra, CollectAndDistribute) {
  Converted c = convert("A*C+A*E+C");
  auto sym = c.algebra.tensor_symbol("C");
  ASSERT_TRUE(sym.has_value());
  auto out = collect_expr(c.e, *sym);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(back(c, *out), full("A*E+C*(A+1)"));
  EXPECT_EQ(rewritten("A*E+C*(A+1)", distribute_expr), full("A*C+A*E+C"));
}

TEST(MathAlgebra, Powsimp) {
  EXPECT_EQ(rewritten("exp(A)*exp(C)", powsimp_expr), full("exp(A+C)"));
  EXPECT_EQ(rewritten("exp(A+C)", expand_powsimp_expr), full("exp(A)*exp(C)"));
  // x**a*x**b merges only for a provably positive base.
  EXPECT_EQ(rewritten("A**C*A**D", powsimp_expr), "<none>");
  EXPECT_EQ(rewritten("(exp(E)+1)**C*(exp(E)+1)**D", powsimp_expr), full("(exp(E)+1)**(C+D)"));
  // exp(n*log(y)) is y**n for an integer n; a fractional n stays (y**0.5 is sqrt, not a merge).
  EXPECT_EQ(rewritten("exp(2*log(1+exp(A)))", powsimp_expr), full("(exp(A)+1)**2"));
  EXPECT_EQ(rewritten("exp(-3*log(A))", powsimp_expr), full("1/A**3"));
  EXPECT_EQ(rewritten("exp(0.5*log(A))", powsimp_expr), "<none>");
}

TEST(MathAlgebra, LogSplitNeedsPositiveFactors) {
  EXPECT_EQ(rewritten("log(A*C)", expand_log_expr), "<none>");  // A, C may be negative
  EXPECT_EQ(rewritten("log(exp(A)*(1+exp(C)))", expand_log_expr), full("A+log(exp(C)+1)"));
  EXPECT_EQ(rewritten("log((A**2+1)/(exp(C)+2))", expand_log_expr),
            full("log(A**2+1)-log(exp(C)+2)"));
}

TEST(MathAlgebra, LogCombine) {
  EXPECT_EQ(rewritten("log(A)+log(C)", logsimp_expr), full("log(A*C)"));
  EXPECT_EQ(rewritten("log(A)-log(C)", logsimp_expr), full("log(A/C)"));
  EXPECT_EQ(rewritten("log(A)", logsimp_expr), "<none>");
}

TEST(MathAlgebra, Positivity) {
  EXPECT_TRUE(provably_positive(convert("exp(A)").e));
  EXPECT_TRUE(provably_positive(convert("A**2+1e-05").e));
  EXPECT_TRUE(provably_positive(convert("sqrt(A)+1").e));
  EXPECT_FALSE(provably_positive(convert("A**2").e));
  EXPECT_FALSE(provably_positive(convert("A+1").e));
}

}  // namespace
}  // namespace steptp::strategy::math
