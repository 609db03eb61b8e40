// strategy/loop/loop_unrolling.cpp — marks one short serial loop of a nest as unrolled (L → U).
//
//   before: B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];
//   after:  B^{8}_{tx=0}U^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];
//
// Preconditions: 1. the loop is serial (L) (the reference also overwrote P/V/B loops: a bug);
// 2. its extent is between 2 and kMaxUnroll. Values are unchanged: unrolling only changes how
// the loop is emitted, and the iterations still run in order.
#include <fmt/format.h>

#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

constexpr int64_t kMaxUnroll = 16;

class LoopUnrolling final : public Strategy {
 public:
  std::string_view name() const override { return "loop_unrolling"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "fully unroll one short serial loop of a nest (L -> U)";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      for (const leir::Loop& l : surgery::find_block(p, path)->loops) {
        if (l.kind != leir::LoopKind::kSerial) continue;
        out.push_back(Site(std::string(name())).set_block(path).set("loop", l.var));
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<const leir::Block*> block = surgery::site_block(p, s, name());
    STEPTP_TRY(block);
    Outcome<size_t> pos = surgery::site_loop(**block, s, name());
    STEPTP_TRY(pos);
    const leir::Loop& loop = (*block)->loops[*pos];
    // 1. Only a serial loop can be unrolled.
    if (loop.kind != leir::LoopKind::kSerial)
      return infeasible("loop_unrolling.not_serial", "loop '{}' is {}, not serial", loop.var,
                        leir::loop_kind_name(loop.kind));
    // 2. Unrolling a long loop only bloats code; a loop of one iteration has nothing to unroll.
    if (loop.extent > kMaxUnroll)
      return infeasible("loop_unrolling.too_long", "loop '{}' has extent {} > {}", loop.var,
                        loop.extent, kMaxUnroll);
    if (loop.extent < 2)
      return infeasible("loop_unrolling.trivial", "loop '{}' has extent {}", loop.var, loop.extent);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    BlockPath path = *s.block();
    const leir::Block& b = *surgery::find_block(p, path);
    size_t pos = *surgery::find_loop(b, *s.name("loop"));
    return surgery::replace_block(p, path,
                                  surgery::with_loop_kind(b, pos, leir::LoopKind::kUnrolled));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    const leir::Block& b = *surgery::find_block(p, *s.block());
    const leir::Loop& loop = b.loops[*surgery::find_loop(b, *s.name("loop"))];
    return fmt::format(
        "loop '{}' of block {} runs only {} times, so it is fully unrolled: its body is replicated "
        "{} times and the loop control disappears; the iterations still run in the same order, "
        "so every value is unchanged",
        loop.var, s.values("block").front(), loop.extent, loop.extent);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[8,4]\noutput C f64[8,4]\n"
        "B^{8}_{tx=0}L^{4}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];\n",
        "loop_unrolling(block=0, loop=a)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_unrolling() { return std::make_unique<LoopUnrolling>(); }

}  // namespace steptp::strategy
