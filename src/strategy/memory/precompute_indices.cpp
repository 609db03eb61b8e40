// strategy/memory/precompute_indices.cpp — hoists one compound index expression of a block into
// an i64 index tensor computed by a new nest before it; the block then reads through a gather.
//
//   before:
//   B^{4}_{tx=0}L^{8}_{a=0}L^{3}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+A^{f64,g}_{tx,a+c}*W^{f64,g}_{c};];
//   after:  B^{8}_{tx=0}L^{3}_{c=0}[D^{i64,g}_{tx,c}=tx+c;];
//           B^{4}_{tx=0}L^{8}_{a=0}L^{3}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+A^{f64,g}_{tx,D^{i64,g}_{a,c}}*W^{f64,g}_{c};];
//
// Sites: block=<top-level block>, index=<k>, the k-th distinct compound index (in order of first
// appearance) among the subscripts of tensors the block reads but does not write.
// Preconditions: 1. a top-level block; 2. it has a k-th such index: an expression that is not a
// lone variable or a constant, reads no tensor, and uses only the block's header loops. Every
// subscript position holding exactly that expression, in those read-only tensors, is replaced by
// the gather (written tensors keep their subscripts so accumulations and the dependence analysis
// still see them). The index tensor is indexed by the expression's variables in header order.
// Values are unchanged: the i64 tensor holds the exact integer the expression evaluates to at
// every point, and a gather inside an if_then_else branch is as lazy as the read it replaces.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/access.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/memory/staging.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

struct IndexPlan {
  size_t block = 0;
  ExprRef index;                  // the compound expression
  std::vector<leir::Loop> loops;  // the header loops it uses, header order
  int occurrences = 0;
};

bool is_constant(const ExprRef& e) {
  return e->kind() == ExprKind::kNumber ||
         (e->kind() == ExprKind::kNeg && is_constant(e->operand()));
}

bool reads_tensor(const ExprRef& e) {
  bool found = false;
  leir::for_each_expr(e,
                      [&](const ExprRef& n) { found = found || n->kind() == ExprKind::kAccess; });
  return found;
}

// Calls fn on every subscript position of an access of a tensor in `tensors` within e.
void for_each_read_index(const ExprRef& e, const std::vector<std::string>& tensors,
                         const std::function<void(const ExprRef&)>& fn) {
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() != ExprKind::kAccess) return;
    if (std::find(tensors.begin(), tensors.end(), n->name()) == tensors.end()) return;
    for (const ExprRef& i : n->indices()) fn(i);
  });
}

class PrecomputeIndices final : public ResolvedStrategy<IndexPlan> {
 public:
  std::string_view name() const override { return "precompute_indices"; }
  Category category() const override { return Category::kMemory; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "compute one compound index expression into an i64 tensor and gather through it";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (size_t k = 0; k < candidates(p.blocks[i]).size(); ++k)
        out.push_back(
            Site(std::string(name())).set_block(BlockPath{i, {}}).set_int("index", int64_t(k)));
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const IndexPlan& plan) const override {
    const leir::Block& b = p.blocks[plan.block];
    surgery::NameAllocator names(p);
    const ExprRef gather = index_access(plan, names.fresh_tensor());
    const std::vector<std::string> read_only = memory::read_only_tensors(b);
    leir::Block consumer = surgery::rewrite_body(b, [&](const ExprRef& e) -> ExprRef {
      if (e->kind() != ExprKind::kAccess ||
          std::find(read_only.begin(), read_only.end(), e->name()) == read_only.end())
        return e;
      std::vector<ExprRef> idx = e->indices();
      for (ExprRef& i : idx)
        if (leir::equal(i, plan.index)) i = gather;
      return memory::with_indices(e, std::move(idx));
    });
    leir::Block table = memory::make_nest(plan.loops, leir::Stmt{gather, plan.index}, names);
    return surgery::replace_top_block(p, plan.block, {std::move(table), std::move(consumer)});
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const IndexPlan& plan) const override {
    const ExprRef gather = index_access(plan, surgery::NameAllocator(p).fresh_tensor());
    std::vector<std::string> loops;
    for (const leir::Loop& l : plan.loops) loops.push_back(fmt::format("{}({})", l.var, l.extent));
    return fmt::format(
        "block {} computes the index {} in {} subscript position(s) at every iteration. A new "
        "nest over loops {} stores it once per point in the i64 tensor {}, and block {} reads "
        "through the gather {} instead. The stored integer is exactly the index the expression "
        "gives, so every element read is the same",
        plan.block, leir::print(plan.index), plan.occurrences, fmt::join(loops, ", "),
        gather->name(), plan.block, leir::print(gather));
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[4,10]\ninput W f64[3]\noutput C f64[4,8]\n"
        "B^{4}_{tx=0}L^{8}_{a=0}L^{3}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,a+c}*W^{f64,g}_{c};];\n",
        "precompute_indices(block=0, index=0)"};
  }

 private:
  // The distinct compound indices of the block's read-only tensors, first appearance first.
  static std::vector<ExprRef> candidates(const leir::Block& b) {
    const std::vector<std::string> read_only = memory::read_only_tensors(b);
    std::vector<ExprRef> out;
    for (const leir::Stmt* s : analysis::statements(b)) {
      auto consider = [&](const ExprRef& i) {
        if (i->kind() == ExprKind::kIndexVar || is_constant(i) || reads_tensor(i)) return;
        std::set<std::string> vars = analysis::vars_of(i);
        if (vars.empty()) return;
        for (const std::string& v : vars)
          if (!surgery::find_loop(b, v)) return;
        for (const ExprRef& seen : out)
          if (leir::equal(seen, i)) return;
        out.push_back(i);
      };
      for (const ExprRef& idx : s->lhs->indices()) for_each_read_index(idx, read_only, consider);
      for_each_read_index(s->rhs, read_only, consider);
    }
    return out;
  }

  static ExprRef index_access(const IndexPlan& plan, const std::string& tensor) {
    std::vector<ExprRef> idx;
    for (const leir::Loop& l : plan.loops) idx.push_back(Expr::index_var(l.var));
    return Expr::access(tensor, leir::DType::kI64, leir::Scope::kGlobal, std::move(idx));
  }

  Outcome<IndexPlan> resolve(const leir::Program& p, const Site& s) const override {
    // 1. A top-level block.
    Outcome<size_t> block = memory::top_level_block(p, s, name());
    STEPTP_TRY(block);
    Outcome<int64_t> k = s.integer("index");
    STEPTP_TRY(k);
    // 2. Its k-th compound index.
    const leir::Block& b = p.blocks[*block];
    std::vector<ExprRef> found = candidates(b);
    if (*k < 0 || *k >= static_cast<int64_t>(found.size()))
      return infeasible("precompute_indices.no_such_index",
                        "block {} has {} compound index expression(s) in the subscripts of the "
                        "tensors it only reads; index={} names none of them",
                        *block, found.size(), *k);
    IndexPlan plan;
    plan.block = *block;
    plan.index = found[static_cast<size_t>(*k)];
    std::set<std::string> vars = analysis::vars_of(plan.index);
    for (const leir::Loop& l : b.loops)
      if (vars.count(l.var)) plan.loops.push_back(l);
    const std::vector<std::string> read_only = memory::read_only_tensors(b);
    for (const leir::Stmt* st : analysis::statements(b)) {
      auto count = [&](const ExprRef& i) { plan.occurrences += leir::equal(i, plan.index); };
      for (const ExprRef& idx : st->lhs->indices()) for_each_read_index(idx, read_only, count);
      for_each_read_index(st->rhs, read_only, count);
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_precompute_indices() {
  return std::make_unique<PrecomputeIndices>();
}

}  // namespace steptp::strategy
