// strategy/loop/loop_split.cpp — splits one loop of a nest into an outer serial loop and an inner
// loop of `factor` iterations (TVM's split by factor); every use k becomes outer*factor+k.
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];
//   after:  B^{16}_{tx=0}L^{4}_{c=0}L^{16}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,c*16+a});];
//
// Preconditions: 1. the factor divides the extent; 2. 1 < factor < extent. The inner loop keeps
// the variable and kind; the outer one gets a fresh name (never colliding, unlike the reference's
// count-based names). Values are unchanged: (outer, inner) visits the same points in the same
// order, and uses of the variable as a value are substituted too.
#include <fmt/format.h>

#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

// The divisors f of n with 1 < f < n, ascending.
std::vector<int64_t> proper_divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t f = 2; f < n && f <= (1 << 20); ++f)
    if (n % f == 0) out.push_back(f);
  return out;
}

class LoopSplit final : public Strategy {
 public:
  std::string_view name() const override { return "loop_split"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "split one loop into an outer loop and an inner loop of a given factor";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      for (const leir::Loop& l : surgery::find_block(p, path)->loops) {
        for (int64_t f : proper_divisors(l.extent)) {
          out.push_back(
              Site(std::string(name())).set_block(path).set("loop", l.var).set_int("factor", f));
        }
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = surgery::resolve_loop_site(p, s, name());
    STEPTP_TRY(site);
    Outcome<int64_t> factor = s.integer("factor");
    STEPTP_TRY(factor);
    const leir::Loop& loop = site->loop();
    // 2. Both loops must have at least two iterations.
    if (*factor <= 1 || *factor >= loop.extent)
      return infeasible("loop_split.factor_out_of_range",
                        "factor {} must be between 2 and {} (the extent of loop '{}' minus 1)",
                        *factor, loop.extent - 1, loop.var);
    // 1. Only an exact split keeps the iteration space rectangular without guards.
    if (loop.extent % *factor != 0)
      return infeasible("loop_split.factor_not_divisor",
                        "factor {} does not divide the extent {} of loop '{}'", *factor,
                        loop.extent, loop.var);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    int64_t factor = *s.integer("factor");
    const leir::Loop inner = site.loop();
    surgery::NameAllocator names(p);
    std::string outer = names.fresh_loop_var();
    leir::Block b = surgery::substitute_var(*site.block, inner.var,
                                            surgery::split_index(outer, factor, inner.var));
    b.loops[site.pos].extent = factor;
    b.loops.insert(b.loops.begin() + static_cast<std::ptrdiff_t>(site.pos),
                   leir::Loop{leir::LoopKind::kSerial, inner.extent / factor, outer});
    return surgery::replace_block(p, site.path, std::move(b));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    int64_t factor = *s.integer("factor");
    surgery::NameAllocator names(p);
    std::string outer = names.fresh_loop_var();
    const leir::Loop& l = site.loop();
    return fmt::format(
        "loop '{}' of block {} (extent {}) is split into a new outer serial loop '{}' of {} "
        "iterations and the inner loop '{}' of {} iterations; every use of '{}' becomes "
        "{}*{}+{}, which enumerates 0..{} in the same order, so the values are unchanged",
        l.var, site.path.to_string(), l.extent, outer, l.extent / factor, l.var, factor, l.var,
        outer, factor, l.var, l.extent - 1);
  }

  std::optional<Example> example() const override {
    return Example{"input A f64[16,64]\noutput D f64[16]\n"
                   "B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];\n",
                   "loop_split(block=0, loop=a, factor=16)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_split() { return std::make_unique<LoopSplit>(); }

}  // namespace steptp::strategy
