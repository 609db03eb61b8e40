// strategy/graph/common_subexpression_elimination.cpp — computes a subexpression that a block
// evaluates more than once into a new intermediate, once per point, and reads it everywhere.
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a})-1;
//           E^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a})+1;];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});
//           D^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}-1;E^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+1;];
//
// Site: block, expr (the expr-th repeated subexpression of the block's direct statements, by
// first occurrence in pre-order). Candidates are compound, always-evaluated subexpressions (an
// if_then_else branch is lazy and never counts). Preconditions: 1. the candidate exists and
// occurs at least twice (no_such_expr); 2. nothing it reads is written anywhere in the block
// (operand_written_in_block), so it has one value per point; 3. every statement containing it
// stores a float type (non_float). The new tensor is written before the first statement that
// uses it, indexed by the header loops the expression mentions plus every B/P/V loop (so no two
// threads write one element), with the most precise dtype of those statements.
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

struct Candidate {
  ExprRef expr;
  size_t first_item = 0;
  size_t count = 0;
};

// Repeated compound subexpressions of the block's direct statements, by first occurrence.
std::vector<Candidate> repeated(const leir::Block& b) {
  std::vector<Candidate> all;
  for (size_t k = 0; k < b.body.size(); ++k) {
    if (!b.body[k].is_stmt()) continue;
    for (const ExprRef& e : graph::eager_nodes(b.body[k].stmt->rhs)) {
      if (!graph::is_compound_value(e)) continue;
      auto it = std::find_if(all.begin(), all.end(),
                             [&](const Candidate& c) { return leir::equal(c.expr, e); });
      if (it == all.end())
        all.push_back(Candidate{e, k, 1});
      else
        ++it->count;
    }
  }
  std::vector<Candidate> out;
  for (Candidate& c : all)
    if (c.count >= 2) out.push_back(std::move(c));
  return out;
}

struct CseSite {
  size_t block = 0;
  Candidate cand;
  leir::DType dtype = leir::DType::kF64;
  std::vector<leir::Loop> loops;  // the new tensor's index loops
};

class CommonSubexpressionElimination final : public ResolvedStrategy<CseSite> {
 public:
  std::string_view name() const override { return "common_subexpression_elimination"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "compute a repeated subexpression of a block once into a new intermediate";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (size_t k = 0; k < repeated(p.blocks[i]).size(); ++k) {
        Site s = Site(std::string(name())).set_block(BlockPath{i, {}}).set_int("expr", int64_t(k));
        if (check(p, s).ok()) out.push_back(std::move(s));
      }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const CseSite& r) const override {
    std::string fresh = surgery::NameAllocator(p).fresh_tensor();
    ExprRef ref = Expr::access(fresh, r.dtype, leir::Scope::kGlobal, graph::loop_indices(r.loops));
    leir::Block b = p.blocks[r.block];
    for (leir::Item& it : b.body)
      if (it.is_stmt())
        it = leir::Item::of(
            leir::Stmt{it.stmt->lhs, graph::replace_eager(it.stmt->rhs, r.cand.expr, ref)});
    b.body.insert(b.body.begin() + long(r.cand.first_item),
                  leir::Item::of(leir::Stmt{ref, Expr::ungrouped(r.cand.expr)}));
    return surgery::replace_top_block(p, r.block, {std::move(b)});
  }

  std::string describe(const leir::Program& p, const Site& /*s*/, const CseSite& r) const override {
    std::string fresh = surgery::NameAllocator(p).fresh_tensor();
    return fmt::format(
        "block {} evaluates {} {} times at every point, and nothing it reads changes inside the "
        "block; it is computed once into a new intermediate {} before its first use and the {} "
        "occurrences read {} instead, saving {} evaluations per point",
        r.block, leir::print(r.cand.expr), r.cand.count, fresh, r.cand.count, fresh,
        r.cand.count - 1);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\noutput D f64[16,64]\noutput E f64[16,64]\n"
        "B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a})-1;"
        "E^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a})+1;];\n",
        "common_subexpression_elimination(block=0, expr=0)"};
  }

 private:
  Outcome<CseSite> resolve(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> blk = graph::top_block(p, s, name());
    STEPTP_TRY(blk);
    Outcome<int64_t> k = s.integer("expr");
    STEPTP_TRY(k);
    const leir::Block& b = p.blocks[*blk];
    // 1. A repeated candidate.
    std::vector<Candidate> cands = repeated(b);
    if (*k < 0 || *k >= int64_t(cands.size()))
      return infeasible("common_subexpression_elimination.no_such_expr",
                        "block {} has {} repeated subexpression(s), not {}", *blk, cands.size(),
                        *k + 1);
    CseSite r{*blk, cands[size_t(*k)], leir::DType::kF64, {}};
    // 2. One value per point.
    std::vector<std::string> written = analysis::written_tensors(b);
    for (const std::string& in : graph::tensors_read(r.cand.expr))
      if (std::find(written.begin(), written.end(), in) != written.end())
        return infeasible("common_subexpression_elimination.operand_written_in_block",
                          "{} reads {}, which block {} itself writes", leir::print(r.cand.expr), in,
                          *blk);
    // 3. Float destinations; the new tensor takes the most precise one.
    int best = -1;
    for (const leir::Item& it : b.body) {
      if (!it.is_stmt()) continue;
      std::vector<ExprRef> nodes = graph::eager_nodes(it.stmt->rhs);
      bool uses = std::any_of(nodes.begin(), nodes.end(),
                              [&](const ExprRef& e) { return leir::equal(e, r.cand.expr); });
      if (!uses) continue;
      int rank = graph::float_rank(it.stmt->lhs->dtype());
      if (rank < 0)
        return infeasible("common_subexpression_elimination.non_float",
                          "{} stores {}, not a float type", it.stmt->lhs->name(),
                          leir::dtype_name(it.stmt->lhs->dtype()));
      if (rank > best) {
        best = rank;
        r.dtype = it.stmt->lhs->dtype();
      }
    }
    for (const leir::Loop& l : b.loops)
      if (l.kind == leir::LoopKind::kBound || l.kind == leir::LoopKind::kParallel ||
          l.kind == leir::LoopKind::kVectorized || analysis::mentions_var(r.cand.expr, l.var))
        r.loops.push_back(l);
    return r;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_common_subexpression_elimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace steptp::strategy
