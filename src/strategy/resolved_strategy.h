// strategy/resolved_strategy.h — the skeleton of a strategy whose legality is one resolve():
// a site is resolved into what the rewrite needs (or an Infeasible naming why not), and check,
// apply and explain all start from that one answer.
//
// A strategy built on it writes resolve (every precondition), rewrite and describe; it cannot
// apply or explain a site that check would reject, because all three go through resolve.
#pragma once

#include <string>
#include <vector>

#include "strategy/strategy.h"

namespace steptp::strategy {

template <typename Resolved>
class ResolvedStrategy : public Strategy {
 public:
  Check check(const leir::Program& p, const Site& s) const final {
    Outcome<Resolved> r = resolve(p, s);
    STEPTP_TRY(r);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const final {
    Outcome<Resolved> r = resolve(p, s);
    STEPTP_TRY(r);
    return rewrite(p, s, *r);
  }

  std::string explain(const leir::Program& p, const Site& s) const final {
    Outcome<Resolved> r = resolve(p, s);
    if (!r.ok()) return r.infeasible().message;
    return describe(p, s, *r);
  }

 protected:
  // One site per top-level block, those that resolve: for a strategy whose only parameter is
  // the block.
  std::vector<Site> top_level_sites(const leir::Program& p) const {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i) {
      Site s = Site(std::string(name())).set_block(BlockPath{i, {}});
      if (resolve(p, s).ok()) out.push_back(s);
    }
    return out;
  }

  // The site's parameters checked against `p` (every numbered precondition), or why not.
  virtual Outcome<Resolved> resolve(const leir::Program& p, const Site& s) const = 0;
  // The rewritten program for a resolved site. Pure and deterministic.
  virtual Outcome<leir::Program> rewrite(const leir::Program& p, const Site& s,
                                         const Resolved& r) const = 0;
  // The concrete effect of a resolved site in words.
  virtual std::string describe(const leir::Program& p, const Site& s, const Resolved& r) const = 0;
};

}  // namespace steptp::strategy
