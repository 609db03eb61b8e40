// strategy/loop/independent_loop.cpp — the independent-serial-loop site shared by
// loop_parallelization and loop_vectorization.
#include "strategy/loop/independent_loop.h"

#include <fmt/format.h>

#include "analysis/dependence.h"

namespace steptp::strategy::independent_loop {

std::vector<Site> sites(const leir::Program& p, std::string_view strategy, int64_t max_extent) {
  std::vector<Site> out;
  for (const BlockPath& path : surgery::all_block_paths(p)) {
    for (const leir::Loop& l : surgery::find_block(p, path)->loops) {
      if (l.kind != leir::LoopKind::kSerial || l.extent < 2 || l.extent > max_extent) continue;
      out.push_back(Site(std::string(strategy)).set_block(path).set("loop", l.var));
    }
  }
  return out;
}

Outcome<surgery::LoopSite> resolve(const leir::Program& p, const Site& s, std::string_view strategy,
                                   int64_t max_extent) {
  Outcome<surgery::LoopSite> site = surgery::resolve_loop_site(p, s, strategy);
  STEPTP_TRY(site);
  const std::string code(strategy);
  const leir::Loop& loop = site->loop();
  // 1. Only a serial loop changes meaningfully (the reference overwrote B/V/U loops: a bug).
  if (loop.kind != leir::LoopKind::kSerial)
    return infeasible(code + ".not_serial", "loop '{}' is {}, not serial", loop.var,
                      leir::loop_kind_name(loop.kind));
  // 2. One iteration has nothing to run side by side; a vector has a bounded number of lanes.
  if (loop.extent < 2)
    return infeasible(code + ".trivial", "loop '{}' has extent {}", loop.var, loop.extent);
  if (loop.extent > max_extent)
    return infeasible(code + ".too_long", "loop '{}' has extent {} > {} lanes", loop.var,
                      loop.extent, max_extent);
  // 3. Iterations that run at once must not touch one element with a write.
  for (const std::string& t : analysis::written_tensors(*site->block))
    if (!analysis::separates(*site->block, loop.var, t))
      return infeasible(code + ".carried_dependence",
                        "iterations of loop '{}' may touch the same element of '{}' (a "
                        "loop-carried dependence or a reduction across '{}')",
                        loop.var, t, loop.var);
  return site;
}

Outcome<leir::Program> apply(const leir::Program& p, const Site& s, std::string_view strategy,
                             leir::LoopKind kind, int64_t max_extent) {
  Outcome<surgery::LoopSite> site = resolve(p, s, strategy, max_extent);
  STEPTP_TRY(site);
  return surgery::replace_block(p, site->path,
                                surgery::with_loop_kind(*site->block, site->pos, kind));
}

std::string why_independent(const surgery::LoopSite& site) {
  return fmt::format(
      "every iteration of loop '{}' (extent {}) in block {} writes its own elements of {}, so "
      "no iteration depends on another",
      site.loop().var, site.loop().extent, site.path.to_string(),
      fmt::join(analysis::written_tensors(*site.block), ", "));
}

}  // namespace steptp::strategy::independent_loop
