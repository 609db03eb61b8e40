// strategy/loop/loop_vectorization.cpp — marks one short independent serial loop as vectorized
// (L → V): its iterations become the lanes of one vector operation.
//
//   before: B^{8}_{tx=0}L^{32}_{a=0}L^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*D^{f64,g}_{c};];
//   after:  B^{8}_{tx=0}L^{32}_{a=0}V^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*D^{f64,g}_{c};];
//
// Preconditions: 1. the loop is serial (L); 2. its extent is between 2 and kMaxLanes; 3. its
// iterations touch disjoint elements of every tensor the nest writes (lanes run at once).
// Values are unchanged: independent iterations give the same result in any order.
#include <fmt/format.h>

#include "analysis/dependence.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

// The widest vector we emit: 16 lanes (an AVX-512 register of f32).
constexpr int64_t kMaxLanes = 16;

class LoopVectorization final : public Strategy {
 public:
  std::string_view name() const override { return "loop_vectorization"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "turn one short independent serial loop into vector lanes (L -> V)";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      for (const leir::Loop& l : surgery::find_block(p, path)->loops) {
        if (l.kind != leir::LoopKind::kSerial || l.extent < 2 || l.extent > kMaxLanes) continue;
        out.push_back(Site(std::string(name())).set_block(path).set("loop", l.var));
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = surgery::resolve_loop_site(p, s, name());
    STEPTP_TRY(site);
    const leir::Loop& loop = site->loop();
    // 1. Only a serial loop changes meaningfully (the reference overwrote B/V/U loops: a bug).
    if (loop.kind != leir::LoopKind::kSerial)
      return infeasible("loop_vectorization.not_serial", "loop '{}' is {}, not serial",
                        loop.var, leir::loop_kind_name(loop.kind));
    // 2. One lane is no vector; more lanes than a register holds is not one vector operation.
    if (loop.extent < 2)
      return infeasible("loop_vectorization.trivial", "loop '{}' has extent {}", loop.var,
                        loop.extent);
    if (loop.extent > kMaxLanes)
      return infeasible("loop_vectorization.too_long", "loop '{}' has extent {} > {} lanes",
                        loop.var, loop.extent, kMaxLanes);
    // 3. Lanes must not touch one element with a write.
    for (const std::string& t : analysis::written_tensors(*site->block))
      if (!analysis::separates(*site->block, loop.var, t))
        return infeasible("loop_vectorization.carried_dependence",
                          "iterations of loop '{}' may touch the same element of '{}' (a "
                          "loop-carried dependence or a reduction across '{}')",
                          loop.var, t, loop.var);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    return surgery::replace_block(
        p, site.path, surgery::with_loop_kind(*site.block, site.pos, leir::LoopKind::kVectorized));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    std::vector<std::string> written = analysis::written_tensors(*site.block);
    return fmt::format(
        "every iteration of loop '{}' (extent {}) in block {} writes its own elements of {}, so "
        "no iteration depends on another; the loop becomes vectorized (V): its {} iterations "
        "are the lanes of one vector operation, with identical results",
        site.loop().var, site.loop().extent, site.path.to_string(), fmt::join(written, ", "),
        site.loop().extent);
  }

  std::optional<Example> example() const override {
    return Example{"input A f64[8,32,4]\ninput D f64[4]\noutput C f64[8,32,4]\n"
                   "B^{8}_{tx=0}L^{32}_{a=0}L^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*"
                   "D^{f64,g}_{c};];\n",
                   "loop_vectorization(block=0, loop=c)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_vectorization() {
  return std::make_unique<LoopVectorization>();
}

}  // namespace steptp::strategy
