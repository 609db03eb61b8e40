// strategy/loop/loop_reorder.cpp — permutes the loops of one nest's header; extents and kinds
// move with their variables, statements are untouched.
//
//   before:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   after:
//   B^{16}_{tx=0}L^{64}_{c=0}L^{32}_{a=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//
// Preconditions: 1. the order names every header loop exactly once and differs from the current
// one; 2. every pair of iterations that touch one element (one of them writing) keeps its order:
// for each written tensor, the loops that do not separate it keep their relative order, unless
// the tensor is only a reduction (reassociated within floating-point tolerance).
// sites() lists the legal orders, at most kMaxOrders per nest, in lexicographic order.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/dependence.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

constexpr size_t kMaxOrders = 24;

std::vector<std::string> header_vars(const leir::Block& b) {
  std::vector<std::string> out;
  for (const leir::Loop& l : b.loops) out.push_back(l.var);
  return out;
}

class LoopReorder final : public Strategy {
 public:
  std::string_view name() const override { return "loop_reorder"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "change the nesting order of the loops of one nest";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      const leir::Block& b = *surgery::find_block(p, path);
      if (b.loops.size() < 2 || b.loops.size() > 8) continue;
      std::vector<size_t> perm(b.loops.size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
      size_t found = 0;
      while (std::next_permutation(perm.begin(), perm.end()) && found < kMaxOrders) {
        std::vector<std::string> order;
        for (size_t i : perm) order.push_back(b.loops[i].var);
        if (!analysis::reorder_violation(b, order).empty()) continue;
        out.push_back(Site(std::string(name())).set_block(path).set("order", order));
        ++found;
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<const leir::Block*> block = surgery::site_block(p, s, name());
    STEPTP_TRY(block);
    const leir::Block& b = **block;
    Outcome<std::vector<std::string>> order = s.names("order");
    STEPTP_TRY(order);
    // 1. A permutation of the header, and a different one.
    std::vector<std::string> current = header_vars(b);
    std::vector<std::string> sorted_order = *order, sorted_current = current;
    std::sort(sorted_order.begin(), sorted_order.end());
    std::sort(sorted_current.begin(), sorted_current.end());
    if (sorted_order != sorted_current)
      return infeasible("loop_reorder.not_a_permutation",
                        "order {} is not a permutation of the loops {} of block {}",
                        fmt::join(*order, ","), fmt::join(current, ","), s.values("block").front());
    if (*order == current)
      return infeasible("loop_reorder.same_order", "order {} is the current order",
                        fmt::join(*order, ","));
    // 2. No dependence may be reversed.
    std::string tensor = analysis::reorder_violation(b, *order);
    if (!tensor.empty())
      return infeasible("loop_reorder.reverses_dependence",
                        "order {} would reverse a dependence on '{}' between iterations of the "
                        "loops that do not separate it",
                        fmt::join(*order, ","), tensor);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    BlockPath path = *s.block();
    leir::Block b = *surgery::find_block(p, path);
    std::vector<leir::Loop> loops;
    const std::vector<std::string> order = *s.names("order");
    for (const std::string& v : order) loops.push_back(b.loops[*surgery::find_loop(b, v)]);
    b.loops = std::move(loops);
    return surgery::replace_block(p, path, std::move(b));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    const leir::Block& b = *surgery::find_block(p, *s.block());
    std::vector<std::string> extents;
    const std::vector<std::string> order = *s.names("order");
    for (const std::string& v : order)
      extents.push_back(fmt::format("{}({})", v, b.loops[*surgery::find_loop(b, v)].extent));
    return fmt::format(
        "the loops of block {} are reordered from {} to {} (outermost first); every element is "
        "still computed from the same operands and no iteration that reads a value now runs "
        "before the iteration that writes it, so the values are unchanged while the traversal "
        "order of memory changes",
        s.values("block").front(), fmt::join(header_vars(b), ","), fmt::join(extents, ","));
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\ninput C f64[64,32]\noutput E f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
        "loop_reorder(block=0, order=tx,c,a)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_reorder() { return std::make_unique<LoopReorder>(); }

}  // namespace steptp::strategy
