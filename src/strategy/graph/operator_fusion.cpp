// strategy/graph/operator_fusion.cpp — fuses two adjacent top-level blocks with the same loop
// header into one block whose body runs the first block's statements, then the second's.
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];
//           B^{16}_{tx=0}L^{32}_{c=0}[G^{f64,g}_{tx,c}=max(F^{f64,g}_{tx,c},0);];
//   after:  B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};
//           G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];
//
// Preconditions: 1. block+1 exists (no_next_block); 2. the headers have the same loops position
// by position: extents and kinds (header_mismatch); the second's variables are renamed to the
// first's; 3. every tensor one block writes and the other touches is accessed only by direct
// statements through one identical subscript that is injective over the header (dependence).
// Then each such element is touched at exactly one point, so running both bodies point by point
// performs every access of that element in the original order: values, first writes (hence
// accumulation identities) and the absence of races are all unchanged. Scopes are left alone
// (the reference moved outputs to s/l at random, strategies_spec §9.7).
#include <fmt/format.h>

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
    return "fuse two adjacent blocks with the same loop header into one block";
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
    // 1. A next block to fuse with.
    if (*i + 1 >= p.blocks.size())
      return infeasible("operator_fusion.no_next_block", "block {} is the last block", *i);
    const leir::Block& a = p.blocks[*i];
    const leir::Block& b = p.blocks[*i + 1];
    // 2. The same iteration space, loop by loop.
    if (!graph::same_header_shape(a.loops, b.loops))
      return infeasible("operator_fusion.header_mismatch",
                        "blocks {} and {} have different loop headers ({} loops vs {})", *i,
                        *i + 1, header_text(a), header_text(b));
    // 3. No dependence is reordered.
    surgery::NameAllocator names(p);
    leir::Block renamed = graph::rename_header_to(b, a.loops, names);
    std::string t = graph::interleaving_conflict(a.loops, a.body, renamed.body);
    if (!t.empty())
      return infeasible("operator_fusion.dependence",
                        "tensor {} is shared by blocks {} and {} but not accessed at one "
                        "identical, injective subscript, so fusing would reorder its accesses",
                        t, *i, *i + 1);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    size_t i = *graph::top_block(p, s, name());
    surgery::NameAllocator names(p);
    leir::Block fused = p.blocks[i];
    leir::Block renamed = graph::rename_header_to(p.blocks[i + 1], fused.loops, names);
    fused.body.insert(fused.body.end(), renamed.body.begin(), renamed.body.end());
    leir::Program out = surgery::replace_top_block(p, i + 1, {});
    return surgery::replace_top_block(out, i, {std::move(fused)});
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    size_t i = *graph::top_block(p, s, name());
    const leir::Block& a = p.blocks[i];
    const leir::Block& b = p.blocks[i + 1];
    int64_t points = 1;
    for (const leir::Loop& l : a.loops) points *= l.extent;
    return fmt::format(
        "blocks {} and {} iterate over the same {} points ({}); every tensor they share is "
        "touched at a single point through the same subscript, so block {}'s {} statement(s) can "
        "run right after block {}'s {} statement(s) inside one loop nest. One kernel instead of "
        "two, and values produced by the first are consumed while still hot",
        i, i + 1, points, header_text(a), i + 1, b.body.size(), i, a.body.size());
  }

  std::optional<Example> example() const override {
    return Example{"input E f64[16,32]\ninput D f64[32]\noutput G f64[16,32]\n"
                   "B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];"
                   "B^{16}_{tx=0}L^{32}_{a=0}[G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];\n",
                   "operator_fusion(block=0)"};
  }

 private:
  static std::string header_text(const leir::Block& b) {
    std::string out;
    for (const leir::Loop& l : b.loops) out += leir::print(l);
    return out.empty() ? "no loops" : out;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_operator_fusion() { return std::make_unique<OperatorFusion>(); }

}  // namespace steptp::strategy
