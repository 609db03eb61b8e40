// strategy/loop/loop_binding.cpp — binds one independent serial loop to a free CUDA hardware
// axis (L → B): the loop variable is renamed to a binding name `<t|b><x|y|z><var>`.
//
//   before:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   after:
//   B^{16}_{tx=0}B^{32}_{tya=0}L^{64}_{c=0}[E^{f64,g}_{tx,tya}=E^{f64,g}_{tx,tya}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,tya};];
//
// Preconditions: 1. the block is a top-level block (one kernel); 2. the loop is serial (L);
// 3. the target is one of tx ty tz bx by bz and no loop of the kernel is bound to it yet (the
// reference could bind one axis twice: a bug); 4. the extent fits the axis (threads x/y/z ≤
// 1024/1024/64, blocks x ≤ 2^31−1, y/z ≤ 65535); 5. for a thread axis, the kernel's threads per
// block stay ≤ 1024 counting every thread axis already bound (the reference only counted tx);
// 6. the loop's iterations touch disjoint elements of every tensor the kernel writes.
// Values are unchanged: independent iterations give the same result on any thread.
#include <fmt/format.h>

#include "analysis/dependence.h"
#include "leir/interval.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using analysis::HardwareAxis;

constexpr std::string_view kTargets[] = {"tx", "ty", "tz", "bx", "by", "bz"};

std::optional<HardwareAxis> parse_target(std::string_view t) {
  if (t.size() != 2) return std::nullopt;
  return analysis::hardware_axis(t);
}

class LoopBinding final : public Strategy {
 public:
  std::string_view name() const override { return "loop_binding"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "bind one independent serial loop to a free CUDA thread or block axis (L -> B)";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t bi = 0; bi < p.blocks.size(); ++bi) {
      for (const leir::Loop& l : p.blocks[bi].loops) {
        if (l.kind != leir::LoopKind::kSerial || l.extent < 2) continue;
        for (std::string_view target : kTargets) {
          Site s = Site(std::string(name())).set_block(BlockPath{bi, {}}).set("loop", l.var);
          s.set("target", std::string(target));
          if (check_target(p.blocks[bi], l, *parse_target(target)).ok()) out.push_back(s);
        }
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<surgery::LoopSite> site = surgery::resolve_loop_site(p, s, name());
    STEPTP_TRY(site);
    const leir::Loop& loop = site->loop();
    // 1. A kernel is a top-level block.
    if (!site->path.is_top_level())
      return infeasible("loop_binding.nested_block",
                        "block {} is nested; only a top-level block is a kernel",
                        site->path.to_string());
    // 2. Only a serial loop is rebound.
    if (loop.kind != leir::LoopKind::kSerial)
      return infeasible("loop_binding.not_serial", "loop '{}' is {}, not serial", loop.var,
                        leir::loop_kind_name(loop.kind));
    Outcome<std::string> target_text = s.name("target");
    STEPTP_TRY(target_text);
    std::optional<HardwareAxis> target = parse_target(*target_text);
    if (!target)
      return infeasible("loop_binding.bad_target", "target '{}' is not one of tx ty tz bx by bz",
                        *target_text);
    STEPTP_TRY(check_target(*site->block, loop, *target));
    // 6. Threads run at once: their iterations must not share an element with a write.
    for (const std::string& t : analysis::written_tensors(*site->block))
      if (!analysis::separates(*site->block, loop.var, t))
        return infeasible("loop_binding.carried_dependence",
                          "iterations of loop '{}' may touch the same element of '{}' (a "
                          "loop-carried dependence or a reduction across '{}')",
                          loop.var, t, loop.var);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    HardwareAxis target = *parse_target(*s.name("target"));
    surgery::NameAllocator names(p);
    std::string var = names.fresh_binding_var(target.level, target.axis, site.loop().var);
    leir::Block b = surgery::with_loop_kind(*site.block, site.pos, leir::LoopKind::kBound);
    return surgery::replace_block(p, site.path, surgery::rename_var(b, site.loop().var, var));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    surgery::LoopSite site = *surgery::resolve_loop_site(p, s, name());
    HardwareAxis target = *parse_target(*s.name("target"));
    surgery::NameAllocator names(p);
    std::string var = names.fresh_binding_var(target.level, target.axis, site.loop().var);
    const char* level = target.level == 't' ? "threadIdx" : "blockIdx";
    return fmt::format(
        "loop '{}' (extent {}) of block {} is independent: each iteration writes its own "
        "elements, so it is bound to {}.{} and renamed '{}' in the loop header and in every "
        "subscript; {} ≤ {} fits the axis{}, and the values are unchanged",
        site.loop().var, site.loop().extent, site.path.to_string(), level, target.axis, var,
        site.loop().extent, analysis::axis_limit(target),
        target.level == 't'
            ? fmt::format(", and the block then has {} threads (≤ {})",
                          analysis::threads_per_block(*site.block) * site.loop().extent,
                          analysis::LaunchLimits::kMaxThreadsPerBlock)
            : std::string());
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\ninput C f64[64,32]\noutput E f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
        "loop_binding(block=0, loop=a, target=ty)"};
  }

 private:
  // Preconditions 3-5: the hardware axis is free and the extent fits it.
  static Check check_target(const leir::Block& kernel, const leir::Loop& loop,
                            HardwareAxis target) {
    // 3. One hardware axis carries one loop.
    for (const leir::Loop* bound : analysis::bound_loops(kernel)) {
      std::optional<HardwareAxis> a = analysis::hardware_axis(bound->var);
      if (a && *a == target)
        return infeasible("loop_binding.axis_taken", "{}{} is already bound to loop '{}'",
                          target.level, target.axis, bound->var);
    }
    // 4. The axis has a hardware limit.
    if (loop.extent > analysis::axis_limit(target))
      return infeasible("loop_binding.extent_exceeds_axis",
                        "loop '{}' has extent {} > {}, the limit of {}{}", loop.var, loop.extent,
                        analysis::axis_limit(target), target.level, target.axis);
    // 5. All thread axes together share one block of at most 1024 threads.
    if (target.level == 't') {
      int64_t threads = leir::sat_mul(analysis::threads_per_block(kernel), loop.extent);
      if (threads > analysis::LaunchLimits::kMaxThreadsPerBlock)
        return infeasible("loop_binding.too_many_threads",
                          "binding loop '{}' gives {} threads per block > {}", loop.var, threads,
                          analysis::LaunchLimits::kMaxThreadsPerBlock);
    }
    return feasible();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_binding() { return std::make_unique<LoopBinding>(); }

}  // namespace steptp::strategy
