// strategy/graph/operator_fusion.cpp — fuses two adjacent top-level blocks with the same loop
// header into one block whose body runs the first block's statements, then the second's.
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];
//           B^{16}_{tx=0}L^{32}_{c=0}[G^{f64,g}_{tx,c}=max(F^{f64,g}_{tx,c},0);];
//   after:  B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};
//           G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];
//
// When the headers differ below a common prefix, the blocks fuse under the prefix and keep their
// other loops as two nested blocks (a convolution and its bias/ReLU under the (n, c_out, row)
// loops; the consumer reads each row right after it is produced):
//
//   before:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{3}_{k=0}[F^{f64,g}_{tx,a}=F^{f64,g}_{tx,a}+E^{f64,g}_{tx,a+k};];
//           B^{16}_{tx=0}L^{32}_{c=0}[G^{f64,g}_{tx,c}=max(F^{f64,g}_{tx,c},0);];
//   after:
//   B^{16}_{tx=0}L^{32}_{a=0}[L^{3}_{k=0}[F^{f64,g}_{tx,a}=F^{f64,g}_{tx,a}+E^{f64,g}_{tx,a+k};];
//           G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];
//
// Preconditions: 1. block+1 exists (no_next_block); 2. the headers share at least their outer
// loop: equal extents and kinds position by position (header_mismatch); the second's variables
// are renamed to the first's; 3. no dependence is reordered (dependence): with the same header,
// every tensor one block writes and the other touches is accessed only by direct statements
// through one identical subscript that is injective over the header; otherwise, under the
// deepest common prefix for which it holds, every such tensor has each prefix variable as the
// whole subscript at one fixed position of every access. In both cases distinct points of the
// fused loops touch disjoint elements of it, so running the first block's part then the
// second's at every point performs every access of an element in the original order: values,
// first writes (hence accumulation identities) and the absence of races are all unchanged.
// Scopes are left alone (the reference moved outputs to s/l at random, strategies_spec §9.7).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "leir/printer.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

class OperatorFusion final : public Strategy {
 public:
  std::string_view name() const override { return "operator_fusion"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "fuse two adjacent blocks into one: bodies merged under the same loop header, or "
           "the rest of each nested under their common outer loops";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i + 1 < p.blocks.size(); ++i) {
      Site s = Site(std::string(name())).set_block(BlockPath{i, {}});
      if (check(p, s).ok()) out.push_back(std::move(s));
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> i = graph::top_block(p, s, name());
    STEPTP_TRY(i);
    Outcome<Plan> plan = plan_fusion(p, *i);
    STEPTP_TRY(plan);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    size_t i = *graph::top_block(p, s, name());
    Plan plan = *plan_fusion(p, i);
    const leir::Block& a = p.blocks[i];
    leir::Block fused;
    fused.loops.assign(a.loops.begin(), a.loops.begin() + static_cast<long>(plan.depth));
    for (const leir::Block* part : {&a, static_cast<const leir::Block*>(&plan.second)}) {
      std::vector<leir::Item> items = under_prefix(*part, plan.depth);
      fused.body.insert(fused.body.end(), items.begin(), items.end());
    }
    leir::Program out = surgery::replace_top_block(p, i + 1, {});
    return surgery::replace_top_block(out, i, {std::move(fused)});
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    size_t i = *graph::top_block(p, s, name());
    const leir::Block& a = p.blocks[i];
    const leir::Block& b = p.blocks[i + 1];
    const Plan plan = *plan_fusion(p, i);
    const size_t depth = plan.depth;
    int64_t points = 1;
    for (size_t k = 0; k < depth; ++k) points *= a.loops[k].extent;
    if (plan.sliced) {
      std::vector<leir::Loop> shared(a.loops.begin(), a.loops.begin() + static_cast<long>(depth));
      return fmt::format(
          "blocks {} and {} share their outer {} loop(s) ({}, {} points); every tensor one "
          "writes and the other touches has each shared loop variable as a whole subscript at "
          "one fixed position, so each point touches its own slice of it. Running the first "
          "block's part, then the second's, at every point keeps each element's accesses in "
          "order, and the second consumes the slice the first just produced while it is still "
          "in cache (or in a local array when the tensor is of scope l) instead of after a "
          "round trip through memory",
          i, i + 1, depth, header_text(shared), points);
    }
    return fmt::format(
        "blocks {} and {} iterate over the same {} points ({}); every tensor they share is "
        "touched at a single point through the same subscript, so block {}'s {} statement(s) can "
        "run right after block {}'s {} statement(s) inside one loop nest. One kernel instead of "
        "two, and values produced by the first are consumed while still hot",
        i, i + 1, points, header_text(a), i + 1, b.body.size(), i, a.body.size());
  }

  std::optional<Example> example() const override {
    return Example{
        "input E f64[16,32]\ninput D f64[32]\noutput G f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];"
        "B^{16}_{tx=0}L^{32}_{a=0}[G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];\n",
        "operator_fusion(block=0)"};
  }

 private:
  static std::string header_text(const leir::Block& b) { return header_text(b.loops); }
  static std::string header_text(const std::vector<leir::Loop>& loops) {
    std::string out;
    for (const leir::Loop& l : loops) out += leir::print(l);
    return out.empty() ? "no loops" : out;
  }

  // How two adjacent blocks fuse: under their first `depth` loops (all of them when the headers
  // are the same), with `second` the next block renamed to run under the first's variables.
  struct Plan {
    size_t depth = 0;
    leir::Block second;
    bool sliced = false;  // legal by graph::slice_conflict rather than one injective subscript
  };

  // The block's items under its first `depth` loops: its body when that is its whole header,
  // else one nested block with the remaining loops.
  static std::vector<leir::Item> under_prefix(const leir::Block& b, size_t depth) {
    if (depth == b.loops.size()) return b.body;
    leir::Block inner;
    inner.loops.assign(b.loops.begin() + static_cast<long>(depth), b.loops.end());
    inner.body = b.body;
    return {leir::Item::of(std::move(inner))};
  }

  // `b` with its first `depth` loop variables renamed to `shared`'s and its other loop
  // variables kept, or made fresh where they would collide with a shared one (nullopt when such
  // a loop is bound: its name must stay a binding name).
  static std::optional<leir::Block> renamed_under(const leir::Block& b,
                                                  const std::vector<leir::Loop>& shared,
                                                  surgery::NameAllocator& names) {
    std::vector<std::string> temp;
    leir::Block out = b;
    for (const leir::Loop& l : b.loops) {
      temp.push_back(names.fresh_loop_var());
      out = surgery::rename_var(out, l.var, temp.back());
    }
    for (size_t k = 0; k < b.loops.size(); ++k) {
      std::string target = b.loops[k].var;
      if (k < shared.size()) {
        target = shared[k].var;
      } else if (std::any_of(shared.begin(), shared.end(),
                             [&](const leir::Loop& l) { return l.var == target; })) {
        if (b.loops[k].kind == leir::LoopKind::kBound) return std::nullopt;
        target = names.fresh_loop_var();
      }
      out = surgery::rename_var(out, temp[k], target);
    }
    return out;
  }

  // 1. a next block; 2. a common header prefix (equal extents and kinds, loop by loop);
  // 3. the deepest prefix under which no dependence is reordered: the whole header when both
  // headers are the same and every shared tensor is touched at one identical injective
  // subscript (graph::interleaving_conflict), else the longest prefix whose variables slice
  // every shared tensor (graph::slice_conflict).
  Outcome<Plan> plan_fusion(const leir::Program& p, size_t i) const {
    if (i + 1 >= p.blocks.size())
      return infeasible("operator_fusion.no_next_block", "block {} is the last block", i);
    const leir::Block& a = p.blocks[i];
    const leir::Block& b = p.blocks[i + 1];
    size_t common = 0;
    while (common < a.loops.size() && common < b.loops.size() &&
           graph::same_header_shape({a.loops[common]}, {b.loops[common]}))
      ++common;
    if (common == 0)
      return infeasible("operator_fusion.header_mismatch",
                        "blocks {} and {} have no common outer loop ({} vs {})", i, i + 1,
                        header_text(a), header_text(b));
    surgery::NameAllocator names(p);
    if (graph::same_header_shape(a.loops, b.loops)) {
      leir::Block renamed = graph::rename_header_to(b, a.loops, names);
      if (graph::interleaving_conflict(a.loops, a.body, renamed.body).empty())
        return Plan{a.loops.size(), std::move(renamed)};
    }
    std::string conflict;
    for (size_t depth = common; depth > 0; --depth) {
      std::vector<leir::Loop> shared(a.loops.begin(), a.loops.begin() + static_cast<long>(depth));
      std::optional<leir::Block> renamed = renamed_under(b, shared, names);
      if (!renamed) continue;
      std::string t =
          graph::slice_conflict(shared, under_prefix(a, depth), under_prefix(*renamed, depth));
      if (t.empty()) return Plan{depth, std::move(*renamed), true};
      if (conflict.empty()) conflict = t;
    }
    return infeasible("operator_fusion.dependence",
                      "tensor {} is shared by blocks {} and {} but no common outer loops slice "
                      "it (each shared loop variable the whole subscript at one position of "
                      "every access), so fusing would reorder its accesses",
                      conflict.empty() ? std::string("?") : conflict, i, i + 1);
  }
};

}  // namespace

std::unique_ptr<Strategy> make_operator_fusion() { return std::make_unique<OperatorFusion>(); }

}  // namespace steptp::strategy
