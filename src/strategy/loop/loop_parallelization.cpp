// strategy/loop/loop_parallelization.cpp — marks one independent serial loop as parallel (L → P).
//
//   before:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   after:
//   B^{16}_{tx=0}P^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//
// Preconditions: 1. the loop is serial (L); 2. it has at least 2 iterations; 3. its iterations
// touch disjoint elements of every tensor the nest writes (no loop-carried dependence, no
// reduction across it). Values are unchanged: independent iterations give the same result in
// any order.
#include <fmt/format.h>

#include "strategy/loop/independent_loop.h"
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
    return independent_loop::sites(p, name());
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = independent_loop::resolve(p, s, name());
    STEPTP_TRY(site);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    return independent_loop::apply(p, s, name(), leir::LoopKind::kParallel);
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = independent_loop::resolve(p, s, name());
    if (!site.ok()) return site.infeasible().message;
    return fmt::format(
        "{}; the loop becomes parallel (P) and its {} iterations can run on different cores with "
        "identical results",
        independent_loop::why_independent(*site), site->loop().extent);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\ninput C f64[64,32]\noutput E f64[16,32]\n"
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
