// strategy/math/exponential_split.cpp — splits one exponential around a shift N:
// exp(X±R) → exp(X-N)*exp(N±R) (form=mul), or exp(X-R) → exp(X-N)/exp(R-N) (form=div).
//
//   before: …[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];
//   after:  …[E_{tx}=E_{tx}+exp(A_{tx,a}-if_then_else(a-1<0,0,A_{tx,a-1}))
//                          *exp(if_then_else(a-1<0,0,A_{tx,a-1})-D_{tx});];
//
// Preconditions: 1. the site names a statement and one exp(…) of it whose argument starts with a
// tensor read X (no_such_statement, no_such_exp, no_leading_operand); 2. X is a float read other
// than the output, never -inf (self_operand, not_float, may_be_infinite); 3. N is the guarded
// previous element of X along its last loop (`by=prev`, no_previous_element) or another finite
// operand that is not R itself (`by=operand`, bad_shift, trivial_shift), never an accumulated
// value (may_overflow_exp); 4. form=div needs an
// argument X-R (not_a_difference). Values: exp(a)·exp(b) = exp(a+b) for finite a, b.
#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/math/split_patterns.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::BinaryOp;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

struct ExpSite {
  split::StmtRef stmt;
  size_t call = 0;
  ExprRef arg, x, shift;
  bool div = false;
};

bool is_exp(const ExprRef& e) {
  return e->kind() == ExprKind::kCall && e->function() == leir::Function::kExp;
}

// The exp calls of e in value positions, pre-order.
std::vector<ExprRef> exp_calls(const ExprRef& e) {
  std::vector<ExprRef> out;
  split::replace_nth(
      e, SIZE_MAX - 1,
      [&](const ExprRef& n) {
        if (is_exp(n)) out.push_back(n);
        return false;
      },
      [](const ExprRef& n) { return n; });
  return out;
}

// The leftmost term of a chain of + and -.
ExprRef head(const ExprRef& e) {
  ExprRef h = e;
  while (h->kind() == ExprKind::kBinary &&
         (h->binary_op() == BinaryOp::kAdd || h->binary_op() == BinaryOp::kSub))
    h = h->lhs();
  return h;
}

// e with its leftmost term replaced by n.
ExprRef with_head(const ExprRef& e, const ExprRef& n) {
  if (e->kind() == ExprKind::kBinary &&
      (e->binary_op() == BinaryOp::kAdd || e->binary_op() == BinaryOp::kSub))
    return Expr::binary(e->binary_op(), with_head(e->lhs(), n), e->rhs());
  return n;
}

class ExponentialSplit final : public ResolvedStrategy<ExpSite> {
 public:
  std::string_view name() const override { return "exponential_split"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "split exp(X±R) into exp(X-N)·exp(N±R) (or a quotient) around a shift N";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const split::StmtRef& r : split::all_statements(p)) {
      size_t calls = exp_calls(r.stmt.rhs).size();
      size_t ops = split::value_operands(r.stmt.rhs).size();
      for (size_t c = 0; c < calls; ++c)
        for (const char* form : {"mul", "div"}) {
          Site base = split::statement_site(name(), r);
          base.set_int("exp", int64_t(c)).set("form", form);
          std::vector<Site> candidates = {Site(base).set("by", "prev")};
          for (size_t j = 0; j < ops; ++j)
            candidates.push_back(Site(base).set("by", "operand").set_int("with", int64_t(j)));
          for (const Site& s : candidates)
            if (resolve(p, s).ok()) out.push_back(s);
        }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const ExpSite& m) const override {
    auto exp_of = [](ExprRef e) { return Expr::call(leir::Function::kExp, {std::move(e)}); };
    ExprRef left = exp_of(Expr::binary(BinaryOp::kSub, m.x, m.shift));
    ExprRef split_exp =
        m.div ? Expr::binary(BinaryOp::kDiv, left,
                             exp_of(Expr::binary(BinaryOp::kSub, m.arg->rhs(), m.shift)))
              : Expr::binary(BinaryOp::kMul, left, exp_of(with_head(m.arg, m.shift)));
    ExprRef rhs = split::replace_nth(m.stmt.stmt.rhs, m.call, is_exp,
                                     [&](const ExprRef&) { return Expr::grouped(split_exp); });
    return split::with_statement(p, m.stmt, leir::Stmt{m.stmt.stmt.lhs, rhs});
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const ExpSite& m) const override {
    return fmt::format(
        "in block {}, statement {} (writing {}), exp({}) is split around N = {}: {}. Since "
        "exp(a)·exp(b) = exp(a+b), the value is the same; the shift is what online softmax uses "
        "to move from one max to the next",
        m.stmt.path.to_string(), m.stmt.index, m.stmt.stmt.lhs->name(), leir::print(m.arg),
        leir::print(m.shift),
        m.div ? "a quotient exp(X-N)/exp(R-N)" : "a product exp(X-N)·exp(N±R)");
  }

 private:
  std::string code() const { return std::string(name()) + "."; }

  Outcome<ExpSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    // 1. The statement, the exp and its leading operand.
    Outcome<split::StmtRef> r = split::site_statement(p, s, code());
    STEPTP_TRY(r);
    Outcome<int64_t> c = s.integer("exp");
    STEPTP_TRY(c);
    std::vector<ExprRef> calls = exp_calls(r->stmt.rhs);
    if (*c < 0 || size_t(*c) >= calls.size())
      return infeasible(code() + "no_such_exp", "statement {} has {} exp calls, not {}", r->index,
                        calls.size(), *c + 1);
    ExprRef arg = calls[size_t(*c)]->args()[0];
    ExprRef x = head(arg);
    if (x->kind() != ExprKind::kAccess)
      return infeasible(code() + "no_leading_operand", "exp({}) does not start with a tensor read",
                        leir::print(arg));
    // 2. X can be shifted.
    STEPTP_TRY(split::usable_operand(p, *r, x, code()));
    // 4. The quotient form needs X-R.
    Outcome<std::string> form = s.name("form");
    STEPTP_TRY(form);
    bool div = *form == "div";
    bool difference =
        arg->kind() == ExprKind::kBinary && arg->binary_op() == BinaryOp::kSub && arg->lhs() == x;
    if (div && !difference)
      return infeasible(code() + "not_a_difference", "exp({}) is not exp(X-R)", leir::print(arg));
    // 3. The shift.
    Outcome<std::string> by = s.name("by");
    STEPTP_TRY(by);
    ExprRef n;
    if (*by == "prev") {
      Outcome<ExprRef> prev = split::previous_element(p, *r, x, Expr::integer(0), code());
      STEPTP_TRY(prev);
      n = *prev;
    } else {
      std::vector<ExprRef> ops = split::value_operands(r->stmt.rhs);
      Outcome<int64_t> j = s.integer("with");
      if (*by != "operand" || !j.ok() || *j < 0 || size_t(*j) >= ops.size())
        return infeasible(code() + "bad_shift",
                          "by={} is neither prev nor operand with an "
                          "operand index",
                          *by);
      n = ops[size_t(*j)];
      STEPTP_TRY(split::usable_operand(p, *r, n, code()));
      if (leir::equal(n, x) || (difference && leir::equal(n, arg->rhs())))
        return infeasible(code() + "trivial_shift", "shifting by {} gives a factor exp(0)",
                          leir::print(n));
    }
    // exp(X-N) and exp(N±R) are new arguments of exp; exp(X±R) itself was bounded only as a whole.
    STEPTP_TRY(split::exp_argument_in_range(p, n, code()));
    return ExpSite{*r, size_t(*c), arg, x, n, div};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_exponential_split() { return std::make_unique<ExponentialSplit>(); }

}  // namespace steptp::strategy
