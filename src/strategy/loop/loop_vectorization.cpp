// strategy/loop/loop_vectorization.cpp — marks one short independent serial loop as vectorized
// (L → V): its iterations become the lanes of one vector operation.
//
//   before:
//   B^{8}_{tx=0}L^{32}_{a=0}L^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*D^{f64,g}_{c};];
//   after:
//   B^{8}_{tx=0}L^{32}_{a=0}V^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*D^{f64,g}_{c};];
//
// Preconditions: 1. the loop is serial (L); 2. its extent is between 2 and kMaxLanes; 3. its
// iterations touch disjoint elements of every tensor the nest writes (lanes run at once).
// Values are unchanged: independent iterations give the same result in any order.
#include <fmt/format.h>

#include "strategy/loop/independent_loop.h"
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
    return independent_loop::sites(p, name(), kMaxLanes);
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = independent_loop::resolve(p, s, name(), kMaxLanes);
    STEPTP_TRY(site);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    return independent_loop::apply(p, s, name(), leir::LoopKind::kVectorized, kMaxLanes);
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = independent_loop::resolve(p, s, name(), kMaxLanes);
    if (!site.ok()) return site.infeasible().message;
    return fmt::format(
        "{}; the loop becomes vectorized (V): its {} iterations are the lanes of one vector "
        "operation, with identical results",
        independent_loop::why_independent(*site), site->loop().extent);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[8,32,4]\ninput D f64[4]\noutput C f64[8,32,4]\n"
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
