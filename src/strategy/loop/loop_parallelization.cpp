// strategy/loop/loop_parallelization.cpp — marks one independent serial loop as parallel (L → P).
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   after:  B^{16}_{tx=0}P^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//
// Preconditions: 1. the loop is serial (L); 2. it has at least 2 iterations; 3. its iterations
// touch disjoint elements of every tensor the nest writes (no loop-carried dependence, no
// reduction across it). Values are unchanged: independent iterations give the same result in
// any order.
#include <fmt/format.h>

#include "analysis/dependence.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

class LoopParallelization final : public Strategy {
 public:
  std::string_view name() const override { return "loop_parallelization"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "run the iterations of one independent serial loop in parallel (L -> P)";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      for (const leir::Loop& l : surgery::find_block(p, path)->loops) {
        if (l.kind != leir::LoopKind::kSerial || l.extent < 2) continue;
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
      return infeasible("loop_parallelization.not_serial", "loop '{}' is {}, not serial",
                        loop.var, leir::loop_kind_name(loop.kind));
    // 2. One iteration has nothing to run in parallel.
    if (loop.extent < 2)
      return infeasible("loop_parallelization.trivial", "loop '{}' has extent {}", loop.var,
                        loop.extent);
    // 3. Parallel iterations must not touch one element with a write.
    for (const std::string& t : analysis::written_tensors(*site->block))
      if (!analysis::separates(*site->block, loop.var, t))
        return infeasible("loop_parallelization.carried_dependence",
                          "iterations of loop '{}' may touch the same element of '{}' (a "
                          "loop-carried dependence or a reduction across '{}')",
                          loop.var, t, loop.var);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    return surgery::replace_block(
        p, site.path, surgery::with_loop_kind(*site.block, site.pos, leir::LoopKind::kParallel));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    std::vector<std::string> written = analysis::written_tensors(*site.block);
    return fmt::format(
        "every iteration of loop '{}' (extent {}) in block {} writes its own elements of {}, so "
        "no iteration depends on another; the loop becomes parallel (P) and its {} iterations "
        "can run on different cores with identical results",
        site.loop().var, site.loop().extent, site.path.to_string(), fmt::join(written, ", "),
        site.loop().extent);
  }

  std::optional<Example> example() const override {
    return Example{"input A f64[16,64]\ninput C f64[64,32]\noutput E f64[16,32]\n"
                   "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
                   "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
                   "loop_parallelization(block=0, loop=a)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_parallelization() {
  return std::make_unique<LoopParallelization>();
}

}  // namespace steptp::strategy
