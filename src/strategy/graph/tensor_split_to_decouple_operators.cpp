// strategy/graph/tensor_split_to_decouple_operators.cpp — splits a block along one loop at a cut
// into two blocks, each producing its own slice of the tensors the block writes.
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];
//   after:  B^{8}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];
//           B^{8}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx+8}=max(D^{f64,g}_{tx+8},A^{f64,g}_{tx+8,a});];
//
// Site: block, axis (a header loop), at (the cut; sites() proposes the half, extent/2).
// Preconditions: 1. the axis is a header loop (no_such_loop); 2. 0 < at < extent (bad_cut);
// 3. the axis separates every tensor the block writes: some dimension of every access of it is
// one injective expression of the axis (not_separable). Iterations with different axis values
// then touch disjoint elements of everything written, so running the slice axis < at before the
// slice axis >= at performs every element's accesses in the original order: values and first
// writes (accumulation identities) are unchanged. (The reference copied inputs into halves and
// concatenated results back; writing the slices in place needs no copies and no new tensors.)
#include <fmt/format.h>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

using leir::Expr;

class TensorSplitToDecoupleOperators final : public Strategy {
 public:
  std::string_view name() const override { return "tensor_split_to_decouple_operators"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "split a block along a loop into two blocks producing separate output slices";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (const leir::Loop& l : p.blocks[i].loops) {
        if (l.extent < 2) continue;
        Site s = Site(std::string(name()))
                     .set_block(BlockPath{i, {}})
                     .set("axis", l.var)
                     .set_int("at", l.extent / 2);
        if (check(p, s).ok()) out.push_back(std::move(s));
      }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> i = graph::top_block(p, s, name());
    STEPTP_TRY(i);
    Outcome<std::string> axis = s.name("axis");
    STEPTP_TRY(axis);
    Outcome<int64_t> at = s.integer("at");
    STEPTP_TRY(at);
    const leir::Block& b = p.blocks[*i];
    // 1. A header loop.
    std::optional<size_t> pos = surgery::find_loop(b, *axis);
    if (!pos)
      return infeasible("tensor_split_to_decouple_operators.no_such_loop",
                        "block {} has no loop '{}' in its header", *i, *axis);
    // 2. Two non-empty slices.
    const leir::Loop& l = b.loops[*pos];
    if (*at <= 0 || *at >= l.extent)
      return infeasible("tensor_split_to_decouple_operators.bad_cut",
                        "cut {} is not inside loop '{}' of extent {}", *at, l.var, l.extent);
    // 3. The slices write disjoint elements and read nothing the other writes.
    for (const std::string& t : analysis::written_tensors(b))
      if (!analysis::separates(b, l.var, t))
        return infeasible("tensor_split_to_decouple_operators.not_separable",
                          "loop '{}' does not separate the elements of {}: slices would share them",
                          l.var, t);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    size_t i = *graph::top_block(p, s, name());
    const leir::Block& b = p.blocks[i];
    size_t pos = *surgery::find_loop(b, *s.name("axis"));
    int64_t at = *s.integer("at");
    const leir::Loop& l = b.loops[pos];
    leir::Block first = b;
    first.loops[pos].extent = at;
    leir::Block second = surgery::substitute_var(
        b, l.var, Expr::binary(leir::BinaryOp::kAdd, Expr::index_var(l.var), Expr::integer(at)));
    second.loops[pos].extent = l.extent - at;
    return surgery::replace_top_block(p, i, {std::move(first), std::move(second)});
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    size_t i = *graph::top_block(p, s, name());
    const leir::Loop& l = p.blocks[i].loops[*surgery::find_loop(p.blocks[i], *s.name("axis"))];
    int64_t at = *s.integer("at");
    std::vector<std::string> written = analysis::written_tensors(p.blocks[i]);
    std::string names;
    for (const std::string& t : written) names += (names.empty() ? "" : ",") + t;
    return fmt::format(
        "in block {}, loop '{}' ({} iterations) indexes distinct elements of every written tensor "
        "({}), so the block splits into two independent operators: one for {}=0..{} and one for "
        "{}={}..{} (written as {}+{} over {} iterations); each produces its own slice",
        i, l.var, l.extent, names, l.var, at - 1, l.var, at, l.extent - 1, l.var, at,
        l.extent - at);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\noutput D f64[16]\n"
        "B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];\n",
        "tensor_split_to_decouple_operators(block=0, axis=tx, at=8)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_tensor_split_to_decouple_operators() {
  return std::make_unique<TensorSplitToDecoupleOperators>();
}

}  // namespace steptp::strategy
