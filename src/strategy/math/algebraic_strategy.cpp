// strategy/math/algebraic_strategy.cpp — see algebraic_strategy.h.
//
// Preconditions (codes <name>.<code>):
//   1. the site names a statement (no_such_statement); its right-hand side, less an O+/O*
//      accumulation prefix, has an algebraic reading (not_algebraic) and no other use of O
//      (self_reference); 1b. for cancellation/together/apart it divides (no_division);
//   2. collect: the named tensor occurs in the expression (no_such_symbol);
//   3. the rewrite changes the expression (no_change), and its result is LEIR (unrepresentable).
#include "strategy/math/algebraic_strategy.h"

#include <fmt/format.h>

#include <mutex>

#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/math/algebra.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy::math {
namespace {

using leir::BinaryOp;
using leir::ExprKind;
using leir::ExprRef;

// The result of running a rule on one statement.
struct Rewritten {
  BlockPath path;
  size_t item = 0;
  leir::Stmt before;
  leir::Stmt after;
};

bool mentions_tensor(const ExprRef& e, const std::string& name) {
  bool found = false;
  leir::for_each_expr(e, [&](const ExprRef& x) {
    found = found || (x->kind() == ExprKind::kAccess && x->name() == name);
  });
  return found;
}

// O+t1-t2 parses as ((O+t1)-t2): the accumulator is the leftmost leaf of a chain of + and -
// (or of * and /). Returns the chain without it (t1-t2), or nullptr when O does not lead it.
ExprRef strip_accumulator(const ExprRef& e, const ExprRef& out, BinaryOp op) {
  BinaryOp inverse = op == BinaryOp::kAdd ? BinaryOp::kSub : BinaryOp::kDiv;
  if (e->kind() != ExprKind::kBinary || e->is_grouped()) return nullptr;
  BinaryOp here = e->binary_op();
  if (here != op && here != inverse) return nullptr;
  if (leir::equal(e->lhs(), out)) {
    if (here == op) return e->rhs();
    return op == BinaryOp::kAdd
               ? leir::Expr::neg(e->rhs())
               : leir::Expr::binary(BinaryOp::kDiv, leir::Expr::integer(1), e->rhs());
  }
  ExprRef rest = strip_accumulator(e->lhs(), out, op);
  return rest ? leir::Expr::binary(here, rest, e->rhs()) : nullptr;
}

bool is_select(const ExprRef& e) {
  return e->kind() == ExprKind::kCall && e->function() == leir::Function::kIfThenElse;
}

// The select and its scale when `arg` is if_then_else(...), k*if_then_else(...) or
// if_then_else(...)*k for a number k (parentheses aside); nullptr otherwise.
std::pair<ExprRef, ExprRef> scaled_select(const ExprRef& arg) {
  ExprRef a = leir::Expr::ungrouped(arg);
  if (is_select(a)) return {a, nullptr};
  if (a->kind() != ExprKind::kBinary || a->binary_op() != BinaryOp::kMul) return {};
  ExprRef l = leir::Expr::ungrouped(a->lhs()), r = leir::Expr::ungrouped(a->rhs());
  if (l->kind() == ExprKind::kNumber && is_select(r)) return {r, l};
  if (r->kind() == ExprKind::kNumber && is_select(l)) return {l, r};
  return {};
}

class AlgebraicStrategy final : public ResolvedStrategy<Rewritten> {
 public:
  explicit AlgebraicStrategy(AlgebraicRule rule) : rule_(std::move(rule)) {}

  std::string_view name() const override { return rule_.name; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kVeryEasy; }
  std::string_view summary() const override { return rule_.summary; }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      const leir::Block* b = surgery::find_block(p, path);
      for (size_t i = 0; i < b->body.size(); ++i) {
        if (!b->body[i].is_stmt()) continue;
        Site base = Site(std::string(name())).set_block(path).set_int("stmt", int64_t(i));
        if (!rule_.needs_symbol) {
          if (resolve(p, base).ok()) out.push_back(base);
          continue;
        }
        std::vector<std::string> names;
        leir::for_each_expr(b->body[i].stmt->rhs, [&](const ExprRef& x) {
          if (x->kind() == ExprKind::kAccess &&
              std::find(names.begin(), names.end(), x->name()) == names.end())
            names.push_back(x->name());
        });
        for (const std::string& n : names) {
          Site s = base;
          s.set("symbol", n);
          if (resolve(p, s).ok()) out.push_back(s);
        }
      }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const Rewritten& r) const override {
    leir::Block b = *surgery::find_block(p, r.path);
    b.body[r.item] = leir::Item::of(r.after);
    return surgery::replace_block(p, r.path, std::move(b));
  }

  std::string describe(const leir::Program& /*p*/, const Site& s,
                       const Rewritten& r) const override {
    std::string on = s.has("symbol") ? fmt::format(" on tensor {}", s.values("symbol")[0]) : "";
    return fmt::format(
        "in block {}, statement {} writes {}; its right-hand side {} {}{} to give {}. The two "
        "forms are equal as real expressions wherever the original is defined, so the values "
        "stay the same up to rounding",
        r.path.to_string(), r.item, r.before.lhs->name(), leir::print(r.before.rhs), rule_.effect,
        on, leir::print(r.after.rhs));
  }

 private:
  Outcome<Rewritten> resolve(const leir::Program& p, const Site& s) const override {
    // GiNaC is not thread-safe (non-atomic reference counts, global symbol serials), and the
    // dataset builder calls strategies from several threads: all algebra runs one at a time.
    static std::mutex ginac_mutex;
    std::lock_guard<std::mutex> lock(ginac_mutex);
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<const leir::Block*> block = surgery::site_block(p, s, name());
    STEPTP_TRY(block);
    Outcome<int64_t> item = s.integer("stmt");
    STEPTP_TRY(item);
    const std::string code = std::string(name()) + ".";
    const leir::Block& b = **block;
    // 1. The site names a statement.
    if (*item < 0 || size_t(*item) >= b.body.size() || !b.body[size_t(*item)].is_stmt())
      return infeasible(code + "no_such_statement", "block {} has no statement {}",
                        s.values("block")[0], *item);
    const leir::Stmt& stmt = *b.body[size_t(*item)].stmt;
    ExprRef target = stmt.rhs;
    std::optional<BinaryOp> accumulate;
    for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul}) {
      if (ExprRef rest = strip_accumulator(stmt.rhs, stmt.lhs, op)) {
        accumulate = op;
        target = rest;
        break;
      }
    }
    if (mentions_tensor(target, stmt.lhs->name()))
      return infeasible(code + "self_reference",
                        "statement {} reads its own output {} outside an accumulation prefix",
                        *item, stmt.lhs->name());
    const ExprRef original = target;
    if (rule_.through_selects) target = rewrite_through_selects(target);
    Algebra algebra;
    std::optional<GiNaC::ex> e = algebra.to_ginac(target);
    if (!e)
      return infeasible(code + "not_algebraic",
                        "{} uses comparisons, //, %, & , | or inf, which have no algebraic "
                        "reading here",
                        leir::print(target));
    // 1b. Fraction strategies need a division.
    if (rule_.needs_fraction && !has_fraction(*e))
      return infeasible(code + "no_division", "{} divides by nothing", leir::print(target));
    // 2. collect names its tensor.
    std::optional<GiNaC::symbol> symbol;
    if (rule_.needs_symbol) {
      Outcome<std::string> tensor = s.name("symbol");
      STEPTP_TRY(tensor);
      symbol = algebra.tensor_symbol(*tensor);
      if (!symbol)
        return infeasible(code + "no_such_symbol", "tensor {} does not occur in {}", *tensor,
                          leir::print(target));
    }
    // 3. The rewrite changes something, and the result is LEIR.
    std::optional<GiNaC::ex> out = rule_.rewrite(*e, symbol ? &*symbol : nullptr);
    const bool selects_changed = target != original;  // rewrite keeps an unchanged tree
    if (!out && !selects_changed)
      return infeasible(code + "no_change",
                        "{} has nothing to rewrite, or the rewrite is not "
                        "sound for the signs its factors may take",
                        leir::print(original));
    std::optional<ExprRef> back = out ? algebra.to_leir(*out) : target;
    if (!back)
      return infeasible(code + "unrepresentable", "the result of rewriting {} is not LEIR",
                        leir::print(original));
    if (leir::print(*back) == leir::print(original))
      return infeasible(code + "no_change", "{} is already in that form", leir::print(original));
    ExprRef rhs = accumulate ? leir::Expr::binary(*accumulate, stmt.lhs, *back) : *back;
    Outcome<BlockPath> path = s.block();
    STEPTP_TRY(path);
    return Rewritten{*path, size_t(*item), stmt, leir::Stmt{stmt.lhs, rhs}};
  }

  // The rule applied to one select arm on its own (nullptr when it changes nothing or the
  // result is not LEIR).
  ExprRef rewrite_arm(const ExprRef& arm) const {
    if (rule_.needs_symbol) return nullptr;
    Algebra algebra;
    std::optional<GiNaC::ex> e = algebra.to_ginac(arm);
    if (!e) return nullptr;
    std::optional<GiNaC::ex> out = rule_.rewrite(*e, nullptr);
    if (!out) return nullptr;
    std::optional<ExprRef> back = algebra.to_leir(*out);
    if (!back || leir::print(*back) == leir::print(arm)) return nullptr;
    return *back;
  }

  // `select` with each arm replaced by the rule's rewrite of wrap(arm), or by wrap(arm) where
  // the rule changes nothing (those arms flagged in `left_as_wrapped`, when given, by argument
  // position); nullptr when it changes no arm at all.
  ExprRef rewrite_arms(const ExprRef& select, const std::function<ExprRef(const ExprRef&)>& wrap,
                       std::vector<bool>* left_as_wrapped = nullptr) const {
    std::vector<ExprRef> args = select->args();
    if (left_as_wrapped) left_as_wrapped->assign(args.size(), false);
    bool changed = false;
    for (size_t k = 1; k < args.size(); ++k) {
      ExprRef candidate = wrap(args[k]);
      ExprRef arm = rewrite_arm(candidate);
      changed = changed || arm != nullptr;
      if (left_as_wrapped) (*left_as_wrapped)[k] = arm == nullptr;
      args[k] = arm ? arm : candidate;
    }
    return changed ? leir::Expr::call(leir::Function::kIfThenElse, std::move(args)) : nullptr;
  }

  // Bottom-up: every select's arms rewritten on their own; exp(k*select) moved into the arms
  // when the rule then rewrites one of them. Unchanged subtrees keep their pointers.
  ExprRef rewrite_through_selects(const ExprRef& e) const {
    return leir::rewrite(e, [&](const ExprRef& x) -> ExprRef {
      ExprRef out;
      if (is_select(x)) {
        out = rewrite_arms(x, [](const ExprRef& arm) { return arm; });
      } else if (x->kind() == ExprKind::kCall && x->function() == leir::Function::kExp) {
        auto [select, scale] = scaled_select(x->args()[0]);
        if (select) {
          auto moved_in = [&, scale = scale](const ExprRef& arm) {
            ExprRef inside = scale ? leir::Expr::binary(BinaryOp::kMul, scale, arm) : arm;
            return leir::Expr::call(leir::Function::kExp, {inside});
          };
          std::vector<bool> left_as_moved;
          out = rewrite_arms(select, moved_in, &left_as_moved);
          if (out) out = share_exponential(select, scale, out, left_as_moved);
        }
      }
      return out ? out : x;
    });
  }

  // After exp(n*select) moved into the arms: an arm the rule left as exp(n*X), for an integer
  // n from 2 to 4, becomes exp(X)**n when another arm computes exp(X) — every arm is then a
  // power of the one exponential, which the C compiler evaluates once for both (Mish:
  // if_then_else(A>20, exp(A)**2, (exp(A)+1)**2), one exp instead of two).
  // `left_as_moved[k]`: argument k of `arms` is still exp(scale*X), X the select's argument k.
  static ExprRef share_exponential(const ExprRef& select, const ExprRef& scale, const ExprRef& arms,
                                   const std::vector<bool>& left_as_moved) {
    if (!scale || scale->kind() != ExprKind::kNumber) return arms;
    const double n = scale->number_value();
    if (n != 2 && n != 3 && n != 4) return arms;
    std::vector<ExprRef> args = arms->args();
    for (size_t k = 1; k < args.size(); ++k) {
      if (!left_as_moved[k]) continue;  // the rule rewrote it
      const ExprRef base = leir::Expr::call(leir::Function::kExp, {select->args()[k]});
      bool shared = false;
      for (size_t j = 1; j < args.size() && !shared; ++j)
        if (j != k)
          leir::for_each_expr(args[j],
                              [&](const ExprRef& e) { shared = shared || leir::equal(e, base); });
      if (shared) args[k] = leir::Expr::binary(BinaryOp::kPow, base, scale);
    }
    return leir::Expr::call(leir::Function::kIfThenElse, std::move(args));
  }

  AlgebraicRule rule_;
};

}  // namespace

std::unique_ptr<Strategy> make_algebraic_strategy(AlgebraicRule rule) {
  return std::make_unique<AlgebraicStrategy>(std::move(rule));
}

}  // namespace steptp::strategy::math
