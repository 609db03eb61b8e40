// strategy/math/split_patterns.cpp — statement and operand selection for the split strategies.
#include "strategy/math/split_patterns.h"

#include <algorithm>
#include <set>

#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/math/online_patterns.h"
#include "strategy/surgery.h"

namespace steptp::strategy::split {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

namespace {

void collect(const leir::Block& b, BlockPath path, std::vector<std::string> vars,
             std::vector<StmtRef>& out) {
  for (const leir::Loop& l : b.loops) vars.push_back(l.var);
  for (size_t i = 0; i < b.body.size(); ++i) {
    if (b.body[i].is_stmt()) {
      out.push_back(StmtRef{path, i, *b.body[i].stmt, vars});
      continue;
    }
    BlockPath inner = path;
    inner.nested.push_back(i);
    collect(*b.body[i].block, inner, vars, out);
  }
}

// Pre-order over value positions: accesses are leaves; comparisons and the lazy branches of
// if_then_else are skipped (a read there may only be valid under its guard, e.g. X_{k-1}).
ExprRef replace_walk(const ExprRef& e, size_t& n, const std::function<bool(const ExprRef&)>& pred,
                     const std::function<ExprRef(const ExprRef&)>& make) {
  if (e->kind() == ExprKind::kCompare) return e;
  if (e->kind() == ExprKind::kCall && e->function() == leir::Function::kIfThenElse) return e;
  if (pred(e)) {
    if (n == 0) {
      n = SIZE_MAX;
      return make(e);
    }
    if (n != SIZE_MAX) --n;
  }
  if (e->kind() == ExprKind::kAccess || n == SIZE_MAX) return e;
  std::vector<ExprRef> kids = e->children();
  bool changed = false;
  for (ExprRef& k : kids) {
    ExprRef r = replace_walk(k, n, pred, make);
    changed = changed || r != k;
    k = r;
  }
  return changed ? e->with_children(std::move(kids)) : e;
}

bool is_access(const ExprRef& e) { return e->kind() == ExprKind::kAccess; }

}  // namespace

std::vector<StmtRef> all_statements(const leir::Program& p) {
  std::vector<StmtRef> out;
  for (size_t i = 0; i < p.blocks.size(); ++i) collect(p.blocks[i], BlockPath{i, {}}, {}, out);
  return out;
}

Outcome<StmtRef> site_statement(const leir::Program& p, const Site& s, std::string_view code) {
  Outcome<BlockPath> path = s.block();
  STEPTP_TRY(path);
  Outcome<int64_t> index = s.integer("stmt");
  STEPTP_TRY(index);
  for (StmtRef& r : all_statements(p))
    if (r.path == *path && int64_t(r.index) == *index) return std::move(r);
  return infeasible(std::string(code) + "no_such_statement", "block {} has no statement {}",
                    path->to_string(), *index);
}

Site statement_site(std::string_view strategy, const StmtRef& r) {
  Site s{std::string(strategy)};
  s.set_block(r.path).set_int("stmt", int64_t(r.index));
  return s;
}

std::vector<ExprRef> value_operands(const ExprRef& e) {
  std::vector<ExprRef> out;
  size_t never = SIZE_MAX - 1;
  replace_walk(
      e, never,
      [&](const ExprRef& n) {
        if (is_access(n)) out.push_back(n);
        return false;
      },
      [](const ExprRef& n) { return n; });
  return out;
}

ExprRef replace_nth(const ExprRef& e, size_t n, const std::function<bool(const ExprRef&)>& pred,
                    const std::function<ExprRef(const ExprRef&)>& make) {
  return replace_walk(e, n, pred, make);
}

ExprRef replace_operand(const ExprRef& e, size_t n,
                        const std::function<ExprRef(const ExprRef&)>& make) {
  return replace_walk(e, n, is_access, make);
}

namespace {

// `seeds` and every tensor written (through any chain of statements) from a read of one of them.
std::set<std::string> computed_from(const leir::Program& p, std::set<std::string> seeds) {
  for (bool grew = true; grew;) {
    grew = false;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
      if (seeds.count(s.lhs->name())) return;
      bool reads = false;
      leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
        reads |= e->kind() == ExprKind::kAccess && seeds.count(e->name()) > 0;
      });
      if (reads) grew |= seeds.insert(s.lhs->name()).second;
    });
  }
  return seeds;
}

// Whether the value of `tensor` flows (through any chain of statements) into a comparison.
// A split is exact in real arithmetic but not in floating point (x+n-n may differ from x in the
// last bit), and an exact comparison downstream — argmax's A>=max(A) — turns that last bit into
// a different index. Such statements are not split.
bool reaches_comparison(const leir::Program& p, const std::string& tensor) {
  const std::set<std::string> tainted = computed_from(p, {tensor});
  bool compared = false;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
    leir::for_each_expr(s.rhs, [&](const ExprRef& n) {
      if (n->kind() != ExprKind::kCompare) return;
      leir::for_each_expr(n, [&](const ExprRef& m) {
        compared |= m->kind() == ExprKind::kAccess && tainted.count(m->name()) > 0;
      });
    });
  });
  return compared;
}

}  // namespace

Check usable_operand(const leir::Program& p, const StmtRef& r, const ExprRef& x,
                     std::string_view code) {
  const std::string c(code);
  if (reaches_comparison(p, r.stmt.lhs->name()))
    return infeasible(c + "feeds_comparison",
                      "{} flows into an exact comparison, where the split's rounding could flip "
                      "the outcome",
                      r.stmt.lhs->name());
  if (x->name() == r.stmt.lhs->name())
    return infeasible(c + "self_operand", "{} is the statement's own output", leir::print(x));
  if (!leir::is_float(x->dtype()))
    return infeasible(c + "not_float", "{} is not a floating-point tensor", leir::print(x));
  if (online::may_be_neg_inf(p, x))
    return infeasible(c + "may_be_infinite", "{} may be -inf, and inf-inf is NaN", leir::print(x));
  return feasible();
}

Outcome<OperandRef> site_operand(const leir::Program& p, const Site& s, std::string_view code) {
  const std::string c(code);
  Outcome<StmtRef> r = site_statement(p, s, code);
  STEPTP_TRY(r);
  Outcome<int64_t> i = s.integer("operand");
  STEPTP_TRY(i);
  std::vector<ExprRef> ops = value_operands(r->stmt.rhs);
  if (*i < 0 || size_t(*i) >= ops.size())
    return infeasible(c + "no_such_operand", "statement {} has {} operands, not {}", r->index,
                      ops.size(), *i + 1);
  ExprRef x = ops[size_t(*i)];
  STEPTP_TRY(usable_operand(p, *r, x, code));
  return OperandRef{*r, size_t(*i), std::move(ops), std::move(x)};
}

Check exp_argument_in_range(const leir::Program& p, const ExprRef& n, std::string_view code) {
  // Accumulated tensors, then everything computed from them: a conv output squared or times
  // another is as far out of exp's range as a sum of squares.
  std::set<std::string> accumulated;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
    leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
      if (e->kind() == ExprKind::kAccess && e->name() == s.lhs->name())
        accumulated.insert(s.lhs->name());
    });
  });
  const std::set<std::string> unbounded = computed_from(p, std::move(accumulated));
  std::string culprit;
  leir::for_each_expr(n, [&](const ExprRef& e) {
    if (culprit.empty() && e->kind() == ExprKind::kAccess && unbounded.count(e->name()))
      culprit = e->name();
  });
  if (!culprit.empty())
    return infeasible(std::string(code) + "may_overflow_exp",
                      "{} is (or is computed from) an accumulated value, which can exceed the "
                      "range of exp (about 709) and make the split inf/inf",
                      culprit);
  return feasible();
}

Outcome<ExprRef> previous_element(const leir::Program& p, const StmtRef& r, const ExprRef& x,
                                  const ExprRef& identity, std::string_view code) {
  const std::string c(code);
  if (x->indices().empty() || x->indices().back()->kind() != ExprKind::kIndexVar ||
      std::find(r.loop_vars.begin(), r.loop_vars.end(), x->indices().back()->name()) ==
          r.loop_vars.end())
    return infeasible(c + "no_previous_element",
                      "the last index of {} is not a loop variable, so it has no previous element",
                      leir::print(x));
  // The previous element must already hold its final value when the statement runs.
  bool written_here = false;
  leir::for_each_stmt({p.blocks[r.path.top]}, [&](const leir::Stmt& s, const leir::StmtContext&) {
    written_here = written_here || s.lhs->name() == x->name();
  });
  if (written_here)
    return infeasible(c + "no_previous_element", "{} is written in the same block {}", x->name(),
                      r.path.top);
  const std::string& k = x->indices().back()->name();
  ExprRef km1 = Expr::binary(leir::BinaryOp::kSub, Expr::index_var(k), Expr::integer(1));
  std::vector<ExprRef> idx = x->indices();
  idx.back() = km1;
  return Expr::call(leir::Function::kIfThenElse,
                    {Expr::compare({km1, Expr::integer(0)}, {leir::CompareOp::kLt}), identity,
                     Expr::access(x->name(), x->dtype(), x->scope(), std::move(idx))});
}

leir::Program with_statement(const leir::Program& p, const StmtRef& r, leir::Stmt s) {
  leir::Block b = *surgery::find_block(p, r.path);
  b.body[r.index] = leir::Item::of(std::move(s));
  return surgery::replace_block(p, r.path, std::move(b));
}

}  // namespace steptp::strategy::split
