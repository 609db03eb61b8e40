// strategy/loop/reduction_factorization.cpp — splits a reduction along one reduction loop r at a
// cut k into two partial reductions over [0,k) and [k,n) with fresh accumulators, then combines
// them into the original accumulator.
//
//   before:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   after:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{32}_{c=0}[D^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//           B^{16}_{tx=0}L^{32}_{a=0}L^{32}_{c=0}[F^{f64,g}_{tx,a}=F^{f64,g}_{tx,a}+A^{f64,g}_{tx,c+32}*C^{f64,g}_{c+32,a};];
//           B^{16}_{tx=0}L^{32}_{a=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+(D^{f64,g}_{tx,a}+F^{f64,g}_{tx,a});];
//
// Preconditions: 1. a top-level block whose body is one statement; 2. the statement is a
// reassociable accumulation X=X op e (sum, product, max, min, or a commuted form); 3. r is a
// header loop that X's subscript does not mention (a reduction loop); 4. 0 < k < extent(r);
// 5. X's subscript is injective over its loops, so the combine nest (the header loops X's
// subscript mentions; the reference used all loops but r, which double-counts when there are
// two reduction loops) touches every element once.
// Values are unchanged up to reassociation: each partial starts at the identity (first write),
// and op is associative and commutative.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using analysis::AccumulateOp;
using leir::Expr;
using leir::ExprRef;

ExprRef combine(AccumulateOp op, const ExprRef& x, const ExprRef& a, const ExprRef& b) {
  switch (op) {
    case AccumulateOp::kSum:
      return Expr::binary(leir::BinaryOp::kAdd, x, Expr::binary(leir::BinaryOp::kAdd, a, b));
    case AccumulateOp::kProduct:
      return Expr::binary(leir::BinaryOp::kMul, x, Expr::binary(leir::BinaryOp::kMul, a, b));
    case AccumulateOp::kMax:
      return Expr::call(leir::Function::kMax, {x, Expr::call(leir::Function::kMax, {a, b})});
    case AccumulateOp::kMin:
      return Expr::call(leir::Function::kMin, {x, Expr::call(leir::Function::kMin, {a, b})});
    case AccumulateOp::kDivideBy:
      break;
  }
  STEPTP_CHECK(false, "combine: not a reassociable accumulation");
  return x;
}

struct Factored {
  std::string first, second;  // the partial accumulators
  std::vector<leir::Block> blocks;
};

Factored factor(const leir::Program& p, const leir::Block& b, size_t pr, int64_t cut,
                AccumulateOp op) {
  const leir::Stmt& st = *b.body[0].stmt;
  const leir::Loop& r = b.loops[pr];
  surgery::NameAllocator names(p);
  Factored f;
  f.first = names.fresh_tensor();
  f.second = names.fresh_tensor();
  const std::string& x = st.lhs->name();

  leir::Block part1;
  part1.loops = b.loops;
  part1.loops[pr].extent = cut;
  part1.body.push_back(leir::Item::of(leir::Stmt{surgery::rename_tensor(st.lhs, x, f.first),
                                                 surgery::rename_tensor(st.rhs, x, f.first)}));

  leir::Block part2;
  part2.loops = b.loops;
  part2.loops[pr].extent = r.extent - cut;
  part2.body.push_back(leir::Item::of(leir::Stmt{surgery::rename_tensor(st.lhs, x, f.second),
                                                 surgery::rename_tensor(st.rhs, x, f.second)}));
  part2 = surgery::substitute_var(
      part2, r.var, Expr::binary(leir::BinaryOp::kAdd, Expr::index_var(r.var), Expr::integer(cut)));

  leir::Block merge;
  for (const leir::Loop& l : b.loops)
    if (analysis::mentions_var(st.lhs, l.var)) merge.loops.push_back(l);
  ExprRef pa = surgery::rename_tensor(st.lhs, x, f.first);
  ExprRef pb = surgery::rename_tensor(st.lhs, x, f.second);
  merge.body.push_back(leir::Item::of(leir::Stmt{st.lhs, combine(op, st.lhs, pa, pb)}));

  f.blocks = {std::move(part1), std::move(part2), std::move(merge)};
  return f;
}

class ReductionFactorization final : public Strategy {
 public:
  std::string_view name() const override { return "reduction_factorization"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "split a reduction loop at a cut into two partial reductions and combine them";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t bi = 0; bi < p.blocks.size(); ++bi) {
      const leir::Block& b = p.blocks[bi];
      if (b.body.size() != 1 || !b.body[0].is_stmt()) continue;
      for (const leir::Loop& l : b.loops) {
        if (l.extent < 2 || analysis::mentions_var(b.body[0].stmt->lhs, l.var)) continue;
        std::vector<int64_t> cuts;
        for (int64_t k : {l.extent / 2, l.extent / 4, l.extent - l.extent / 4})
          if (k > 0 && k < l.extent && std::find(cuts.begin(), cuts.end(), k) == cuts.end())
            cuts.push_back(k);
        for (int64_t k : cuts) {
          Site s = Site(std::string(name())).set_block(BlockPath{bi, {}}).set("loop", l.var);
          out.push_back(s.set_int("cut", k));
        }
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = surgery::resolve_loop_site(p, s, name());
    STEPTP_TRY(site);
    Outcome<int64_t> cut = s.integer("cut");
    STEPTP_TRY(cut);
    const leir::Block& b = *site->block;
    const leir::Loop& r = site->loop();
    // 1. One statement in a top-level nest.
    if (!site->path.is_top_level() || b.body.size() != 1 || !b.body[0].is_stmt())
      return infeasible("reduction_factorization.not_single_statement",
                        "block {} is not a top-level nest with exactly one statement",
                        site->path.to_string());
    const leir::Stmt& st = *b.body[0].stmt;
    // 2. A reassociable accumulation.
    std::optional<analysis::Accumulation> acc = analysis::match_accumulation(st);
    if (!acc || !acc->reassociable())
      return infeasible("reduction_factorization.not_accumulation",
                        "the statement of block {} is not a sum, product, max or min "
                        "accumulation into '{}'",
                        site->path.to_string(), st.lhs->name());
    // 3. r is a reduction loop.
    if (analysis::mentions_var(st.lhs, r.var))
      return infeasible("reduction_factorization.not_reduction_loop",
                        "loop '{}' indexes the accumulator '{}', so it is not a reduction loop",
                        r.var, st.lhs->name());
    // 4. Both parts non-empty.
    if (*cut <= 0 || *cut >= r.extent)
      return infeasible("reduction_factorization.cut_out_of_range",
                        "cut {} must be between 1 and {} for loop '{}' of extent {}", *cut,
                        r.extent - 1, r.var, r.extent);
    // 5. The combine nest writes each element once.
    leir::VarRanges ranges = analysis::loop_ranges(b);
    for (const ExprRef& idx : st.lhs->indices())
      if (!analysis::is_injective_index(*idx, ranges))
        return infeasible("reduction_factorization.non_injective_subscript",
                          "the subscript of '{}' is not injective, so a combine nest would "
                          "update some element twice",
                          st.lhs->name());
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    AccumulateOp op = analysis::match_accumulation(*site.block->body[0].stmt)->op;
    Factored f = factor(p, *site.block, site.pos, *s.integer("cut"), op);
    return surgery::replace_top_block(p, site.path.top, std::move(f.blocks));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    const leir::Stmt& st = *site.block->body[0].stmt;
    AccumulateOp op = analysis::match_accumulation(st)->op;
    int64_t cut = *s.integer("cut");
    Factored f = factor(p, *site.block, site.pos, cut, op);
    const leir::Loop& r = site.loop();
    return fmt::format(
        "block {} reduces '{}' by {} over loop '{}' ({} iterations); the reduction is cut at {}: "
        "a new accumulator '{}' reduces iterations 0..{} and '{}' reduces {}..{} (reading "
        "'{}+{}'), each starting from the identity, and a third nest combines them into '{}'; "
        "{} is associative and commutative, so the result is the same up to rounding, and the "
        "two partial reductions are independent of each other",
        s.values("block").front(), st.lhs->name(), analysis::accumulate_op_name(op), r.var,
        r.extent, cut, f.first, cut - 1, f.second, cut, r.extent - 1, r.var, cut, st.lhs->name(),
        analysis::accumulate_op_name(op));
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\ninput C f64[64,32]\noutput E f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
        "reduction_factorization(block=0, loop=c, cut=32)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_reduction_factorization() {
  return std::make_unique<ReductionFactorization>();
}

}  // namespace steptp::strategy
