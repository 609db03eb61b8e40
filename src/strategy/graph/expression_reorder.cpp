// strategy/graph/expression_reorder.cpp — swaps the two operands of one commutative + or * in a
// statement's right-hand side.
//
//   before: B^{16}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}*2+exp(A^{f64,g}_{tx});];
//   after:  B^{16}_{tx=0}[C^{f64,g}_{tx}=exp(A^{f64,g}_{tx})+A^{f64,g}_{tx}*2;];
//
// Site: block, stmt (position in the body), node (the node-th + or * of the RHS in pre-order,
// subscripts not entered). Preconditions: 1. the statement and node exist (no_such_node);
// 2. the operands differ (identical_operands); 3. neither operand is the statement's own
// self-read: an accumulation keeps its reference form X=X+e, the only one the reference lowering
// recognises (accumulation_operand). a+b and a*b are exactly commutative in IEEE arithmetic,
// so values are bit-identical; nothing is reassociated.
#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::ExprKind;
using leir::ExprRef;

bool is_commutative(const ExprRef& e) {
  return e->kind() == ExprKind::kBinary &&
         (e->binary_op() == leir::BinaryOp::kAdd || e->binary_op() == leir::BinaryOp::kMul);
}

// Pre-order list of the commutative nodes of a value expression (subscripts not entered).
void collect(const ExprRef& e, std::vector<ExprRef>& out) {
  if (e->kind() == ExprKind::kAccess) return;
  if (is_commutative(e)) out.push_back(e);
  for (const ExprRef& c : e->children()) collect(c, out);
}

// `e` with the operands of its `left`-th commutative node (collect() order) swapped; `left`
// counts down as nodes are visited.
ExprRef swap_at(const ExprRef& e, int64_t& left) {
  if (e->kind() == ExprKind::kAccess) return e;
  if (is_commutative(e) && left-- == 0) return e->with_children({e->rhs(), e->lhs()});
  std::vector<ExprRef> children = e->children();
  bool changed = false;
  for (ExprRef& c : children) {
    ExprRef n = swap_at(c, left);
    changed = changed || n != c;
    c = std::move(n);
  }
  return changed ? e->with_children(std::move(children)) : e;
}

struct ReorderSite {
  size_t block = 0;
  size_t item = 0;
  int64_t ordinal = 0;
  ExprRef node;
};

class ExpressionReorder final : public ResolvedStrategy<ReorderSite> {
 public:
  std::string_view name() const override { return "expression_reorder"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "swap the operands of one commutative + or * in a statement";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (size_t k = 0; k < p.blocks[i].body.size(); ++k) {
        if (!p.blocks[i].body[k].is_stmt()) continue;
        std::vector<ExprRef> nodes;
        collect(p.blocks[i].body[k].stmt->rhs, nodes);
        for (size_t n = 0; n < nodes.size(); ++n) {
          Site s = Site(std::string(name()))
                       .set_block(BlockPath{i, {}})
                       .set_int("stmt", int64_t(k))
                       .set_int("node", int64_t(n));
          if (check(p, s).ok()) out.push_back(std::move(s));
        }
      }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const ReorderSite& r) const override {
    leir::Block b = p.blocks[r.block];
    leir::Stmt st = *b.body[r.item].stmt;
    int64_t left = r.ordinal;
    st.rhs = swap_at(st.rhs, left);
    b.body[r.item] = leir::Item::of(st);
    return surgery::replace_top_block(p, r.block, {std::move(b)});
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const ReorderSite& r) const override {
    const leir::Stmt& st = *p.blocks[r.block].body[r.item].stmt;
    return fmt::format(
        "in the statement writing {} (block {}), the operands of {} are swapped to {}{}{}; "
        "{} is commutative and exact in floating point, so every value is unchanged",
        st.lhs->name(), r.block, leir::print(r.node), leir::print(r.node->rhs()),
        leir::binary_op_spelling(r.node->binary_op()), leir::print(r.node->lhs()),
        leir::binary_op_spelling(r.node->binary_op()));
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16]\noutput C f64[16]\n"
        "B^{16}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}*2+exp(A^{f64,g}_{tx});];\n",
        "expression_reorder(block=0, stmt=0, node=0)"};
  }

 private:
  Outcome<ReorderSite> resolve(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> blk = graph::top_block(p, s, name());
    STEPTP_TRY(blk);
    Outcome<int64_t> item = s.integer("stmt");
    STEPTP_TRY(item);
    Outcome<int64_t> node = s.integer("node");
    STEPTP_TRY(node);
    const leir::Block& b = p.blocks[*blk];
    // 1. The statement and the node exist.
    if (*item < 0 || *item >= int64_t(b.body.size()) || !b.body[size_t(*item)].is_stmt())
      return infeasible("expression_reorder.no_such_node", "block {} has no statement {}", *blk,
                        *item);
    const leir::Stmt& st = *b.body[size_t(*item)].stmt;
    std::vector<ExprRef> nodes;
    collect(st.rhs, nodes);
    if (*node < 0 || *node >= int64_t(nodes.size()))
      return infeasible("expression_reorder.no_such_node",
                        "the statement writing {} has {} commutative operation(s), not {}",
                        st.lhs->name(), nodes.size(), *node + 1);
    const ExprRef& n = nodes[size_t(*node)];
    // 2. A swap that changes the text.
    if (leir::equal(n->lhs(), n->rhs()))
      return infeasible("expression_reorder.identical_operands", "both operands of {} are equal",
                        leir::print(n));
    // 3. Keep accumulations in their reference form.
    if (leir::equal(n->lhs(), st.lhs) || leir::equal(n->rhs(), st.lhs))
      return infeasible("expression_reorder.accumulation_operand",
                        "{} is the accumulation's own operand {}; moving it would leave the "
                        "reference form X=X op e",
                        leir::print(n), st.lhs->name());
    return ReorderSite{*blk, size_t(*item), *node, n};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_expression_reorder() {
  return std::make_unique<ExpressionReorder>();
}

}  // namespace steptp::strategy
