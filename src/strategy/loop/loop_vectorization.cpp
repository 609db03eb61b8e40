// strategy/loop/loop_vectorization.cpp — marks one short independent serial loop as vectorized
// (L → V): its iterations become the lanes of one vector operation.
//
//   before:
//   B^{8}_{tx=0}L^{32}_{a=0}L^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*D^{f64,g}_{c};];
//   after:
//   B^{8}_{tx=0}L^{32}_{a=0}V^{4}_{c=0}[C^{f64,g}_{tx,a,c}=A^{f64,g}_{tx,a,c}*D^{f64,g}_{c};];
//
// Preconditions: 1. the loop is serial (L); 2. its extent is between 2 and kMaxVectorLanes
// (strategy.h); 3. either its iterations touch disjoint elements of every tensor the nest writes
// (lanes run at once), or it is a REDUCTION LANE loop: the innermost loop of a nest whose whole
// body is one reassociable accumulation (sum, product, max, min) into an element that does not
// depend on the loop (analysis::reduction_lane_accumulation), e.g.
//   L^{64}_{k=0}V^{16}_{j=0}[F_{a}=F_{a}+A_{a,k*16+j}*C_{k*16+j};]
// Each lane then keeps a partial result, and the partials are combined when the loop ends.
// Values: independent lanes give identical results; reduction lanes change only the order in
// which a sum or product is rounded (max and min are exact), as parallel reductions do.
#include <fmt/format.h>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "strategy/loop/independent_loop.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

// The accumulation a reduction-lane loop carries, or nothing (see the header comment).
std::optional<analysis::Accumulation> reduction_lanes(const surgery::LoopSite& site) {
  return analysis::reduction_lane_accumulation(*site.block, site.pos);
}

// The loop a site names, if it is independent or carries a reduction into lanes.
Outcome<surgery::LoopSite> resolve(const leir::Program& p, const Site& s, std::string_view code) {
  Outcome<surgery::LoopSite> independent = independent_loop::resolve(p, s, code, kMaxVectorLanes);
  if (independent.ok() ||
      independent.infeasible().code != std::string(code) + ".carried_dependence")
    return independent;
  Outcome<surgery::LoopSite> site = surgery::resolve_loop_site(p, s, code);
  STEPTP_TRY(site);
  if (!reduction_lanes(*site)) return independent;  // the dependence is not a lane reduction
  return site;
}

class LoopVectorization final : public Strategy {
 public:
  std::string_view name() const override { return "loop_vectorization"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "turn one short serial loop (independent, or the innermost loop of a reduction) into "
           "vector lanes (L -> V)";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    return independent_loop::sites(p, name(), kMaxVectorLanes);
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = resolve(p, s, name());
    STEPTP_TRY(site);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = resolve(p, s, name());
    STEPTP_TRY(site);
    return surgery::replace_block(
        p, site->path,
        surgery::with_loop_kind(*site->block, site->pos, leir::LoopKind::kVectorized));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = resolve(p, s, name());
    if (!site.ok()) return site.infeasible().message;
    if (std::optional<analysis::Accumulation> acc = reduction_lanes(*site);
        acc && !analysis::is_independent_loop(*site->block, site->loop().var))
      return fmt::format(
          "loop '{}' (extent {}) in block {} is the innermost loop of a {} accumulation into {} "
          "whose element does not depend on '{}'; the loop becomes vectorized (V): each of its "
          "{} lanes keeps a partial {}, and the partials are combined when the loop ends, which "
          "changes at most the rounding order",
          site->loop().var, site->loop().extent, site->path.to_string(),
          analysis::accumulate_op_name(acc->op), site->block->body[0].stmt->lhs->name(),
          site->loop().var, site->loop().extent, analysis::accumulate_op_name(acc->op));
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
