// strategy/math/additive_split.cpp — adds and subtracts a shift next to one operand:
// X → (X+N-N), N the guarded previous element of X along its last loop or another operand.
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}[F_{tx,a}=E_{tx,a}+D_{a};];
//   after:  B^{16}_{tx=0}L^{32}_{a=0}[F_{tx,a}=E_{tx,a}+if_then_else(a-1<0,0,E_{tx,a-1})
//                                      -if_then_else(a-1<0,0,E_{tx,a-1})+D_{a};];
//
// Preconditions: 1. the site names a statement and one of its value operands X
// (no_such_statement, no_such_operand); 2. X is a float read other than the output, never -inf
// (self_operand, not_float, may_be_infinite); 3. N is the previous element of X along its last
// index, a loop written before the block (no_previous_element), or another such operand
// (bad_shift). Values: X+N-N equals X up to one rounding of N's magnitude.
#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/math/split_patterns.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprRef;

struct AddSite {
  split::StmtRef stmt;
  size_t operand = 0;
  ExprRef x, shift;
};

class AdditiveSplit final : public ResolvedStrategy<AddSite> {
 public:
  std::string_view name() const override { return "additive_split"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "rewrite an operand X as X+N-N to expose a shift N";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const split::StmtRef& r : split::all_statements(p)) {
      std::vector<ExprRef> ops = split::value_operands(r.stmt.rhs);
      for (size_t i = 0; i < ops.size(); ++i) {
        Site base = split::statement_site(name(), r);
        base.set_int("operand", int64_t(i));
        std::vector<Site> candidates = {Site(base).set("by", "prev")};
        for (size_t j = 0; j < ops.size(); ++j)
          if (j != i)
            candidates.push_back(Site(base).set("by", "operand").set_int("with", int64_t(j)));
        for (const Site& s : candidates)
          if (resolve(p, s).ok()) out.push_back(s);
      }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const AddSite& m) const override {
    ExprRef rhs = split::replace_operand(m.stmt.stmt.rhs, m.operand, [&](const ExprRef& x) {
      return Expr::grouped(Expr::binary(leir::BinaryOp::kSub,
                                        Expr::binary(leir::BinaryOp::kAdd, x, m.shift), m.shift));
    });
    return split::with_statement(p, m.stmt, leir::Stmt{m.stmt.stmt.lhs, rhs});
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const AddSite& m) const override {
    return fmt::format(
        "in block {}, statement {} (writing {}), the operand {} becomes {}+N-N with N = {}. "
        "Adding and subtracting the same finite value changes nothing but exposes the shift, "
        "the first step of re-centring a computation",
        m.stmt.path.to_string(), m.stmt.index, m.stmt.stmt.lhs->name(), leir::print(m.x),
        leir::print(m.x), leir::print(m.shift));
  }

 private:
  std::string code() const { return std::string(name()) + "."; }

  Outcome<AddSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    // 1. The statement and the operand; 2. X can be shifted.
    Outcome<split::OperandRef> o = split::site_operand(p, s, code());
    STEPTP_TRY(o);
    // 3. The shift.
    Outcome<std::string> by = s.name("by");
    STEPTP_TRY(by);
    if (*by == "prev") {
      Outcome<ExprRef> n = split::previous_element(p, o->stmt, o->x, Expr::integer(0), code());
      STEPTP_TRY(n);
      return AddSite{o->stmt, o->operand, o->x, *n};
    }
    Outcome<int64_t> j = s.integer("with");
    if (*by != "operand" || !j.ok() || *j < 0 || size_t(*j) >= o->operands.size() ||
        size_t(*j) == o->operand)
      return infeasible(code() + "bad_shift",
                        "by={} is neither prev nor operand with another "
                        "operand index",
                        *by);
    const ExprRef& n = o->operands[size_t(*j)];
    STEPTP_TRY(split::usable_operand(p, o->stmt, n, code()));
    return AddSite{o->stmt, o->operand, o->x, n};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_additive_split() { return std::make_unique<AdditiveSplit>(); }

}  // namespace steptp::strategy
