// strategy/graph/operator_fission.cpp — splits one top-level block into two blocks with the same
// loop header: the body's first `at` items, then the rest (the inverse of operator_fusion).
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});
//           E^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+1;];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});];
//           B^{16}_{tx=0}L^{64}_{a=0}[E^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+1;];
//
// Preconditions: 1. 1 <= at < number of body items (bad_cut); 2. every tensor one part writes
// and the other touches is accessed only by direct statements through one identical subscript
// that is injective over the header (dependence). Each such element is then touched at one point
// only, so running all points of the first part before the second keeps every access of it in
// order. (The reference split every block unconditionally, which breaks e.g. a running max read
// by a later statement of the same nest.)
#include <fmt/format.h>

#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

class OperatorFission final : public Strategy {
 public:
  std::string_view name() const override { return "operator_fission"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kVeryEasy; }
  std::string_view summary() const override {
    return "split one block's body into two blocks with the same loop header";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (size_t at = 1; at < p.blocks[i].body.size(); ++at) {
        Site s = Site(std::string(name())).set_block(BlockPath{i, {}}).set_int("at", int64_t(at));
        if (check(p, s).ok()) out.push_back(std::move(s));
      }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> i = graph::top_block(p, s, name());
    STEPTP_TRY(i);
    Outcome<int64_t> at = s.integer("at");
    STEPTP_TRY(at);
    const leir::Block& b = p.blocks[*i];
    // 1. Both parts non-empty.
    if (*at < 1 || *at >= int64_t(b.body.size()))
      return infeasible("operator_fission.bad_cut",
                        "block {} has {} body items; the cut must lie between 1 and {}", *i,
                        b.body.size(), int64_t(b.body.size()) - 1);
    // 2. No dependence between the parts is reordered.
    auto [first, second] = parts(b, size_t(*at));
    std::string t = graph::interleaving_conflict(b.loops, first, second);
    if (!t.empty())
      return infeasible("operator_fission.dependence",
                        "tensor {} is shared by both parts of block {} but not accessed at one "
                        "identical, injective subscript, so splitting would reorder its accesses",
                        t, *i);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    size_t i = *graph::top_block(p, s, name());
    const leir::Block& b = p.blocks[i];
    auto [first, second] = parts(b, size_t(*s.integer("at")));
    return surgery::replace_top_block(
        p, i, {leir::Block{b.loops, std::move(first)}, leir::Block{b.loops, std::move(second)}});
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    size_t i = *graph::top_block(p, s, name());
    size_t at = size_t(*s.integer("at"));
    const leir::Block& b = p.blocks[i];
    return fmt::format(
        "block {} runs {} body items per point; the first {} and the remaining {} share no "
        "tensor except through one identical subscript touched at a single point, so they "
        "become two blocks {} and {} over the same loops, each a simpler kernel",
        i, b.body.size(), at, b.body.size() - at, i, i + 1);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\noutput E f64[16,64]\n"
        "B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});"
        "E^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+1;];\n",
        "operator_fission(block=0, at=1)"};
  }

 private:
  static std::pair<std::vector<leir::Item>, std::vector<leir::Item>> parts(const leir::Block& b,
                                                                           size_t at) {
    return {std::vector<leir::Item>(b.body.begin(), b.body.begin() + long(at)),
            std::vector<leir::Item>(b.body.begin() + long(at), b.body.end())};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_operator_fission() { return std::make_unique<OperatorFission>(); }

}  // namespace steptp::strategy
