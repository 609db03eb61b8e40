// strategy/math/multiplicative_split.cpp — divides and multiplies one operand by a provably
// non-zero N: X → (X/N*N), N a positive literal of the statement or exp(·) of a finite value.
//
//   before: B^{16}_{tx=0}[G_{tx}=F_{tx}/4;];
//   after:  B^{16}_{tx=0}[G_{tx}=(F_{tx}/4*4)/4;];
//
// Preconditions: 1. the site names a statement and one of its value operands X
// (no_such_statement, no_such_operand); 2. X is a float read other than the output, never -inf
// (self_operand, not_float, may_be_infinite); 3. N is `by=const` with a positive literal that the
// statement already uses (bad_constant), or exp of the guarded previous element of X
// (`by=exp_prev`, no_previous_element) or of another finite operand (`by=exp_operand`,
// bad_shift), never an accumulated value, whose exp may overflow (may_overflow_exp). Unlike the
// reference, N can never be 0, so no division by zero is introduced.
#include <fmt/format.h>

#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/math/split_patterns.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

struct MulSite {
  split::StmtRef stmt;
  size_t operand = 0;
  ExprRef x, divisor;
};

// The positive numeric literals in value positions of e, in pre-order, without repeats.
std::vector<ExprRef> positive_literals(const ExprRef& e) {
  std::vector<ExprRef> out;
  split::replace_nth(
      e, SIZE_MAX - 1,
      [&](const ExprRef& n) {
        if (n->kind() == ExprKind::kNumber && n->number_value() > 0 &&
            std::none_of(out.begin(), out.end(),
                         [&](const ExprRef& o) { return leir::equal(o, n); }))
          out.push_back(n);
        return false;
      },
      [](const ExprRef& n) { return n; });
  return out;
}

class MultiplicativeSplit final : public ResolvedStrategy<MulSite> {
 public:
  std::string_view name() const override { return "multiplicative_split"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "rewrite an operand X as X/N*N with a provably non-zero N";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const split::StmtRef& r : split::all_statements(p)) {
      std::vector<ExprRef> ops = split::value_operands(r.stmt.rhs);
      std::vector<ExprRef> lits = positive_literals(r.stmt.rhs);
      for (size_t i = 0; i < ops.size(); ++i) {
        Site base = split::statement_site(name(), r);
        base.set_int("operand", int64_t(i));
        std::vector<Site> candidates;
        for (const ExprRef& l : lits)
          candidates.push_back(Site(base).set("by", "const").set("value", l->number_spelling()));
        candidates.push_back(Site(base).set("by", "exp_prev"));
        for (size_t j = 0; j < ops.size(); ++j)
          if (j != i)
            candidates.push_back(Site(base).set("by", "exp_operand").set_int("with", int64_t(j)));
        for (const Site& s : candidates)
          if (resolve(p, s).ok()) out.push_back(s);
      }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const MulSite& m) const override {
    ExprRef rhs = split::replace_operand(m.stmt.stmt.rhs, m.operand, [&](const ExprRef& x) {
      return Expr::grouped(Expr::binary(
          leir::BinaryOp::kMul, Expr::binary(leir::BinaryOp::kDiv, x, m.divisor), m.divisor));
    });
    return split::with_statement(p, m.stmt, leir::Stmt{m.stmt.stmt.lhs, rhs});
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const MulSite& m) const override {
    return fmt::format(
        "in block {}, statement {} (writing {}), the operand {} becomes {}/N*N with N = {}. N is "
        "never zero (a positive constant or an exponential), so dividing and multiplying by it "
        "preserves the value and exposes a normalisation by N",
        m.stmt.path.to_string(), m.stmt.index, m.stmt.stmt.lhs->name(), leir::print(m.x),
        leir::print(m.x), leir::print(m.divisor));
  }

 private:
  std::string code() const { return std::string(name()) + "."; }

  Outcome<MulSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    // 1. The statement and the operand; 2. X can be scaled.
    Outcome<split::OperandRef> o = split::site_operand(p, s, code());
    STEPTP_TRY(o);
    const split::StmtRef& r = o->stmt;
    const std::vector<ExprRef>& ops = o->operands;
    const ExprRef& x = o->x;
    const size_t i = o->operand;
    // 3. A divisor that cannot be zero.
    Outcome<std::string> by = s.name("by");
    STEPTP_TRY(by);
    if (*by == "const") {
      Outcome<std::string> v = s.name("value");
      STEPTP_TRY(v);
      for (const ExprRef& l : positive_literals(r.stmt.rhs))
        if (l->number_spelling() == *v) return MulSite{r, i, x, l};
      return infeasible(code() + "bad_constant", "{} is not a positive constant of statement {}",
                        *v, r.index);
    }
    auto exp_of = [](ExprRef e) { return Expr::call(leir::Function::kExp, {std::move(e)}); };
    if (*by == "exp_prev") {
      Outcome<ExprRef> n = split::previous_element(p, r, x, Expr::integer(0), code());
      STEPTP_TRY(n);
      STEPTP_TRY(split::exp_argument_in_range(p, *n, code()));
      return MulSite{r, i, x, exp_of(*n)};
    }
    Outcome<int64_t> j = s.integer("with");
    if (*by != "exp_operand" || !j.ok() || *j < 0 || size_t(*j) >= ops.size() || size_t(*j) == i)
      return infeasible(code() + "bad_shift",
                        "by={} is none of const, exp_prev, exp_operand with another operand", *by);
    const ExprRef& n = ops[size_t(*j)];
    STEPTP_TRY(split::usable_operand(p, r, n, code()));
    STEPTP_TRY(split::exp_argument_in_range(p, n, code()));
    return MulSite{r, i, x, exp_of(n)};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_multiplicative_split() {
  return std::make_unique<MultiplicativeSplit>();
}

}  // namespace steptp::strategy
