// strategy/graph/expression_splitting.cpp — moves one subexpression of a statement into a new
// intermediate computed by a new block placed right before, over only the loops it uses.
//
//   before:
//   B^{16}_{tx=0}L^{64}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx});];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx});];
//           B^{16}_{tx=0}L^{64}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+C^{f64,g}_{tx,a};];
//
// Site: block, stmt (body position of a direct statement), term (the term-th candidate: a
// compound, always-evaluated subexpression other than the whole RHS, in pre-order).
// Preconditions: 1. the statement and term exist (no_such_term); 2. the statement stores a
// float type (non_float); 3. nothing the term reads is written anywhere in the block
// (operand_written_in_block): the term's value then depends only on the loop variables it
// mentions, so it can be computed before the block, indexed by exactly those variables (in
// header order; a term using none gets a B^{1}_{tx=0} block and a scalar). A term inside an
// if_then_else branch is never a candidate: hoisting it would evaluate it where the original
// does not. The new tensor takes the statement's dtype and global scope.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/access.h"
#include "leir/printer.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprRef;

std::vector<ExprRef> candidates(const leir::Stmt& st) {
  std::vector<ExprRef> out;
  std::vector<ExprRef> nodes = graph::eager_nodes(st.rhs);
  for (size_t i = 1; i < nodes.size(); ++i)  // nodes[0] is the whole RHS
    if (graph::is_compound_value(nodes[i])) out.push_back(nodes[i]);
  return out;
}

struct SplitSite {
  size_t block = 0;
  size_t item = 0;
  ExprRef term;
  std::vector<leir::Loop> loops;  // the header loops the term uses
};

class ExpressionSplitting final : public ResolvedStrategy<SplitSite> {
 public:
  std::string_view name() const override { return "expression_splitting"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "compute one subexpression of a statement into a new intermediate first";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (size_t k = 0; k < p.blocks[i].body.size(); ++k) {
        if (!p.blocks[i].body[k].is_stmt()) continue;
        size_t n = candidates(*p.blocks[i].body[k].stmt).size();
        for (size_t t = 0; t < n; ++t) {
          Site s = Site(std::string(name()))
                       .set_block(BlockPath{i, {}})
                       .set_int("stmt", int64_t(k))
                       .set_int("term", int64_t(t));
          if (check(p, s).ok()) out.push_back(std::move(s));
        }
      }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const SplitSite& r) const override {
    const leir::Stmt& st = *p.blocks[r.block].body[r.item].stmt;
    std::string fresh = surgery::NameAllocator(p).fresh_tensor();
    ExprRef ref =
        Expr::access(fresh, st.lhs->dtype(), leir::Scope::kGlobal, graph::loop_indices(r.loops));
    leir::Block def{r.loops, {leir::Item::of(leir::Stmt{ref, Expr::ungrouped(r.term)})}};
    if (def.loops.empty()) def.loops.push_back(leir::Loop{leir::LoopKind::kBound, 1, "tx"});
    leir::Block rest = p.blocks[r.block];
    rest.body[r.item] =
        leir::Item::of(leir::Stmt{st.lhs, graph::replace_eager(st.rhs, r.term, ref)});
    return surgery::replace_top_block(p, r.block, {std::move(def), std::move(rest)});
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const SplitSite& r) const override {
    const leir::Stmt& st = *p.blocks[r.block].body[r.item].stmt;
    std::string fresh = surgery::NameAllocator(p).fresh_tensor();
    std::string loops;
    for (const leir::Loop& l : r.loops) loops += (loops.empty() ? "" : ",") + l.var;
    return fmt::format(
        "the statement writing {} in block {} contains {}, whose inputs the block never writes, "
        "so it depends only on loop(s) [{}]; it is computed first into a new intermediate {} by a "
        "new block over those loops, and the statement reads {} instead. Smaller statements are "
        "easier to schedule and the new block can be optimised on its own",
        st.lhs->name(), r.block, leir::print(r.term), loops, fresh, fresh);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\ninput D f64[16]\noutput E f64[16]\n"
        "B^{16}_{tx=0}L^{64}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}"
        "-D^{f64,g}_{tx});];\n",
        "expression_splitting(block=0, stmt=0, term=0)"};
  }

 private:
  Outcome<SplitSite> resolve(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> blk = graph::top_block(p, s, name());
    STEPTP_TRY(blk);
    Outcome<int64_t> item = s.integer("stmt");
    STEPTP_TRY(item);
    Outcome<int64_t> term = s.integer("term");
    STEPTP_TRY(term);
    const leir::Block& b = p.blocks[*blk];
    // 1. The statement and the term exist.
    if (*item < 0 || *item >= int64_t(b.body.size()) || !b.body[size_t(*item)].is_stmt())
      return infeasible("expression_splitting.no_such_term", "block {} has no statement {}", *blk,
                        *item);
    const leir::Stmt& st = *b.body[size_t(*item)].stmt;
    std::vector<ExprRef> terms = candidates(st);
    if (*term < 0 || *term >= int64_t(terms.size()))
      return infeasible("expression_splitting.no_such_term",
                        "the statement writing {} has {} splittable subexpression(s), not {}",
                        st.lhs->name(), terms.size(), *term + 1);
    const ExprRef& t = terms[size_t(*term)];
    // 2. A float destination (an integer one would round the new intermediate).
    if (graph::float_rank(st.lhs->dtype()) < 0)
      return infeasible("expression_splitting.non_float", "{} stores {}, not a float type",
                        st.lhs->name(), leir::dtype_name(st.lhs->dtype()));
    // 3. The term's inputs are fixed while the block runs.
    std::vector<std::string> written = analysis::written_tensors(b);
    for (const std::string& in : graph::tensors_read(t))
      if (std::find(written.begin(), written.end(), in) != written.end())
        return infeasible("expression_splitting.operand_written_in_block",
                          "{} reads {}, which block {} itself writes", leir::print(t), in, *blk);
    return SplitSite{*blk, size_t(*item), t, graph::loops_mentioned(b.loops, t)};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_expression_splitting() {
  return std::make_unique<ExpressionSplitting>();
}

}  // namespace steptp::strategy
