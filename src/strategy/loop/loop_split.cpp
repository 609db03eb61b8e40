// strategy/loop/loop_split.cpp — splits one loop of a nest into an outer serial loop and an inner
// loop of `factor` iterations (TVM's split by factor); every use k becomes outer*factor+k, and
// (outer*factor+k)//g and %g for a divisor g of factor fold (surgery::substitute_split), so a
// dimension set_storage_layout split as a//4, a%4 reads outer, k after a split by 4.
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];
//   after:
//   B^{16}_{tx=0}L^{4}_{c=0}L^{16}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,c*16+a});];
//
// A factor that does not divide the extent n splits with a tail: the main nest runs
// floor(n/f)*f iterations as outer*f+k, then a sibling nest runs the n mod f remaining ones as
// t+floor(n/f)*f, with a copy of the loops inside the split one:
//
//   before: B^{16}_{tx=0}L^{10}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];
//   after:  B^{16}_{tx=0}[L^{2}_{c=0}L^{4}_{a=0}[D_{tx}=max(D_{tx},A_{tx,c*4+a});];
//                         L^{2}_{d=0}[D_{tx}=max(D_{tx},A_{tx,d+8});];];
//
// Preconditions: 1. 1 < factor < extent (factor_out_of_range); 2. a factor that does not divide
// the extent needs a serial loop that is not the block's outermost (tail_needs_inner_serial_loop),
// because the tail nest is a sibling inside the loops around it. The sites list the divisors and
// the powers of two that do not divide. The inner loop keeps the variable and kind; the outer
// (and tail) loops get fresh names (never colliding, unlike the reference's count-based names).
// Values are unchanged: the split visits the same points in the same order, and uses of the
// variable as a value are substituted too.
#include <fmt/format.h>

#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

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
      const leir::Block* b = surgery::find_block(p, path);
      for (size_t pos = 0; pos < b->loops.size(); ++pos) {
        const leir::Loop& l = b->loops[pos];
        for (int64_t f : surgery::split_factors(l.extent)) {
          Site site =
              Site(std::string(name())).set_block(path).set("loop", l.var).set_int("factor", f);
          if (check(p, site).ok()) out.push_back(std::move(site));
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
    // 2. A tail nest needs the loops around the split one to hold it, and a serial order.
    if (loop.extent % *factor != 0 && (site->pos == 0 || loop.kind != leir::LoopKind::kSerial))
      return infeasible("loop_split.tail_needs_inner_serial_loop",
                        "factor {} does not divide the extent {} of loop '{}', and the tail nest "
                        "needs a serial loop that is not the outermost of its block",
                        *factor, loop.extent, loop.var);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    int64_t factor = *s.integer("factor");
    const leir::Loop inner = site.loop();
    surgery::NameAllocator names(p);
    std::string outer = names.fresh_loop_var();
    if (inner.extent % factor == 0) {
      leir::Block b = surgery::substitute_split(*site.block, inner.var, outer, factor);
      b.loops[site.pos].extent = factor;
      b.loops.insert(b.loops.begin() + static_cast<std::ptrdiff_t>(site.pos),
                     leir::Loop{leir::LoopKind::kSerial, inner.extent / factor, outer});
      return surgery::replace_block(p, site.path, std::move(b));
    }
    // With a tail: the loops from the split one inward become two sibling nests.
    const int64_t whole = inner.extent / factor, covered = whole * factor;
    const std::string tail_var = names.fresh_loop_var();
    const auto pos = static_cast<std::ptrdiff_t>(site.pos);
    leir::Block rest{{site.block->loops.begin() + pos, site.block->loops.end()}, site.block->body};
    leir::Block main = surgery::substitute_split(rest, inner.var, outer, factor);
    main.loops[0].extent = factor;
    main.loops.insert(main.loops.begin(), leir::Loop{leir::LoopKind::kSerial, whole, outer});
    leir::Block tail = surgery::substitute_var(
        rest, inner.var,
        leir::Expr::binary(leir::BinaryOp::kAdd, leir::Expr::index_var(tail_var),
                           leir::Expr::integer(covered)));
    tail.loops[0] = leir::Loop{leir::LoopKind::kSerial, inner.extent - covered, tail_var};
    leir::Block b{{site.block->loops.begin(), site.block->loops.begin() + pos},
                  {leir::Item::of(std::move(main)), leir::Item::of(std::move(tail))}};
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
    if (l.extent % factor != 0) {
      const int64_t covered = l.extent / factor * factor;
      return fmt::format(
          "loop '{}' of block {} (extent {}) is split by {}, which does not divide {}: a main "
          "nest runs a new outer loop '{}' of {} iterations around '{}' of {} (every use of "
          "'{}' becomes {}*{}+{}, covering 0..{}), then a tail nest runs the remaining {} "
          "iterations {}..{}; together they enumerate 0..{} in the same order, so the values "
          "are unchanged",
          l.var, site.path.to_string(), l.extent, factor, l.extent, outer, l.extent / factor, l.var,
          factor, l.var, outer, factor, l.var, covered - 1, l.extent - covered, covered,
          l.extent - 1, l.extent - 1);
    }
    return fmt::format(
        "loop '{}' of block {} (extent {}) is split into a new outer serial loop '{}' of {} "
        "iterations and the inner loop '{}' of {} iterations; every use of '{}' becomes "
        "{}*{}+{}, which enumerates 0..{} in the same order, so the values are unchanged",
        l.var, site.path.to_string(), l.extent, outer, l.extent / factor, l.var, factor, l.var,
        outer, factor, l.var, l.extent - 1);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\noutput D f64[16]\n"
        "B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];\n",
        "loop_split(block=0, loop=a, factor=16)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_split() { return std::make_unique<LoopSplit>(); }

}  // namespace steptp::strategy
