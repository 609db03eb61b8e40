// strategy/identify_step.cpp — matching a target program against every feasible step.
#include "strategy/identify_step.h"

#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

std::optional<IdentifiedStep> find_site(const Strategy& s, const leir::Program& from,
                                        const leir::Program& to) {
  for (const Site& site : s.sites(from)) {
    Outcome<leir::Program> after = s.apply(from, site);
    if (after.ok() && *after == to) return IdentifiedStep{std::string(s.name()), site.to_string()};
  }
  return std::nullopt;
}

}  // namespace

std::optional<IdentifiedStep> identify_step(const leir::Program& from, const leir::Program& to,
                                            std::string_view claimed_strategy,
                                            const IdentifyOptions& options) {
  leir::Program target = to;
  if (target.decls.empty()) target.decls = from.decls;
  if (target == from) return std::nullopt;
  const Strategy* claimed = find_strategy(claimed_strategy);
  if (claimed != nullptr)
    if (auto found = find_site(*claimed, from, target)) return found;
  if (!options.any_strategy) return std::nullopt;
  for (const Strategy* s : all_strategies()) {
    if (s == claimed) continue;
    if (auto found = find_site(*s, from, target)) return found;
  }
  return std::nullopt;
}

}  // namespace steptp::strategy
