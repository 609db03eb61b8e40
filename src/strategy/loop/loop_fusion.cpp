// strategy/loop/loop_fusion.cpp — the inverse of loop_split: fuses an outer loop o and the loop v
// right inside it, used only as o*f+v with f = extent(v), into one loop v of extent(o)*f.
//
//   before:
//   L^{4}_{c=0}B^{4}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{c*4+tx}=max(D^{f64,g}_{c*4+tx},A^{f64,g}_{c*4+tx,a});];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];
//
// Preconditions: 1. o is the header loop immediately outside v; 2. every use of o and v in the
// nest is the expression o*f+v (in any commuted spelling) with f = extent(v); 3. o is serial or
// has v's kind, and the fused loop may keep v's kind: it is independent when v is P/V/B, fits
// the CUDA limits when v is bound, and stays short when v is V or U.
// Values are unchanged: the fused loop enumerates o*f+v in the same order.
#include <fmt/format.h>

#include "analysis/dependence.h"
#include "leir/interval.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::BinaryOp;
using leir::ExprKind;
using leir::ExprRef;

constexpr int64_t kMaxShortLoop = 16;  // the unrolling and vector-lane limits

bool is_var(const ExprRef& e, const std::string& v) {
  return e->kind() == ExprKind::kIndexVar && e->name() == v;
}
bool is_int(const ExprRef& e, int64_t n) {
  return e->kind() == ExprKind::kNumber && e->is_integer_literal() &&
         e->number_value() == static_cast<double>(n);
}
// o*f or f*o
bool is_scaled(const ExprRef& e, const std::string& o, int64_t f) {
  if (e->kind() != ExprKind::kBinary || e->binary_op() != BinaryOp::kMul) return false;
  return (is_var(e->lhs(), o) && is_int(e->rhs(), f)) ||
         (is_int(e->lhs(), f) && is_var(e->rhs(), o));
}
// o*f+v, f*o+v, v+o*f, v+f*o
bool is_fused_index(const ExprRef& e, const std::string& o, int64_t f, const std::string& v) {
  if (e->kind() != ExprKind::kBinary || e->binary_op() != BinaryOp::kAdd) return false;
  return (is_scaled(e->lhs(), o, f) && is_var(e->rhs(), v)) ||
         (is_var(e->lhs(), v) && is_scaled(e->rhs(), o, f));
}

// The nest with every o*f+v replaced by v, or nullopt when o or v is used any other way.
std::optional<leir::Block> fuse_uses(const leir::Block& b, const std::string& o, int64_t f,
                                     const std::string& v, const std::string& placeholder) {
  leir::Block out = surgery::rewrite_body(b, [&](const ExprRef& e) -> ExprRef {
    if (is_fused_index(e, o, f, v)) return leir::Expr::index_var(placeholder);
    return e;
  });
  leir::Block body_only = out;
  body_only.loops.clear();
  if (analysis::mentions_var(body_only, o) || analysis::mentions_var(body_only, v))
    return std::nullopt;
  return surgery::rename_var(out, placeholder, v);
}

class LoopFusion final : public Strategy {
 public:
  std::string_view name() const override { return "loop_fusion"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "fuse an outer loop and the loop inside it, used only as outer*f+inner, into one loop";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      const leir::Block& b = *surgery::find_block(p, path);
      for (size_t i = 0; i + 1 < b.loops.size(); ++i) {
        Site s = Site(std::string(name()))
                     .set_block(path)
                     .set("loops", std::vector<std::string>{b.loops[i].var, b.loops[i + 1].var});
        if (check(p, s).ok()) out.push_back(std::move(s));
      }
    }
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    Outcome<const leir::Block*> block = surgery::site_block(p, s, name());
    STEPTP_TRY(block);
    const leir::Block& b = **block;
    Outcome<std::vector<std::string>> loops = s.names("loops");
    STEPTP_TRY(loops);
    if (loops->size() != 2)
      return infeasible("site.bad_parameter", "step {} needs loops=OUTER,INNER", s.to_string());
    std::optional<size_t> po = surgery::find_loop(b, (*loops)[0]);
    std::optional<size_t> pv = surgery::find_loop(b, (*loops)[1]);
    if (!po || !pv)
      return infeasible("loop_fusion.no_such_loop", "block {} has no loop '{}' in its header",
                        s.values("block").front(), !po ? (*loops)[0] : (*loops)[1]);
    const leir::Loop& o = b.loops[*po];
    const leir::Loop& v = b.loops[*pv];
    // 1. Adjacent, outer first.
    if (*pv != *po + 1)
      return infeasible("loop_fusion.not_adjacent", "loop '{}' is not immediately inside loop '{}'",
                        v.var, o.var);
    // 2. Only the split pattern uses the two variables.
    surgery::NameAllocator names(p);
    std::optional<leir::Block> fused = fuse(b, *po, names);
    if (!fused)
      return infeasible("loop_fusion.not_split_pattern",
                        "loops '{}' and '{}' are not used only as {}*{}+{}", o.var, v.var, o.var,
                        v.extent, v.var);
    // 3. The fused loop can keep the inner loop's kind.
    if (o.kind != leir::LoopKind::kSerial && o.kind != v.kind)
      return infeasible("loop_fusion.kind_mismatch", "loop '{}' is {} but loop '{}' is {}", o.var,
                        leir::loop_kind_name(o.kind), v.var, leir::loop_kind_name(v.kind));
    return check_fused_kind(*fused, *po);
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    BlockPath path = *s.block();
    const leir::Block& b = *surgery::find_block(p, path);
    surgery::NameAllocator names(p);
    return surgery::replace_block(p, path,
                                  *fuse(b, *surgery::find_loop(b, s.values("loops")[0]), names));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    const leir::Block& b = *surgery::find_block(p, *s.block());
    size_t po = *surgery::find_loop(b, s.values("loops")[0]);
    const leir::Loop& o = b.loops[po];
    const leir::Loop& v = b.loops[po + 1];
    return fmt::format(
        "in block {}, loop '{}' ({} iterations) and loop '{}' ({} iterations) are only used "
        "together as {}*{}+{}, which enumerates 0..{} in order; they are fused into one {} loop "
        "'{}' of {} iterations and every {}*{}+{} becomes {}, so the values are unchanged",
        s.values("block").front(), o.var, o.extent, v.var, v.extent, o.var, v.extent, v.var,
        o.extent * v.extent - 1, leir::loop_kind_name(v.kind), v.var, o.extent * v.extent, o.var,
        v.extent, v.var, v.var);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\noutput D f64[16]\n"
        "L^{4}_{c=0}B^{4}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{c*4+tx}=max(D^{f64,g}_{c*4+tx},"
        "A^{f64,g}_{c*4+tx,a});];\n",
        "loop_fusion(block=0, loops=c,tx)"};
  }

 private:
  // The fused nest: loop po+1 takes extent(po)*extent(po+1) and loop po disappears.
  static std::optional<leir::Block> fuse(const leir::Block& b, size_t po,
                                         surgery::NameAllocator& names) {
    const leir::Loop& o = b.loops[po];
    const leir::Loop& v = b.loops[po + 1];
    std::optional<leir::Block> fused = fuse_uses(b, o.var, v.extent, v.var, names.fresh_loop_var());
    if (!fused) return std::nullopt;
    fused->loops[po + 1].extent = leir::sat_mul(o.extent, v.extent);
    fused->loops.erase(fused->loops.begin() + static_cast<std::ptrdiff_t>(po));
    return fused;
  }

  static Check check_fused_kind(const leir::Block& fused, size_t pos) {
    const leir::Loop& l = fused.loops[pos];
    switch (l.kind) {
      case leir::LoopKind::kSerial:
        return feasible();
      case leir::LoopKind::kUnrolled:
      case leir::LoopKind::kVectorized:
        if (l.extent > kMaxShortLoop)
          return infeasible("loop_fusion.too_long",
                            "the fused {} loop '{}' would have {} > {} "
                            "iterations",
                            leir::loop_kind_name(l.kind), l.var, l.extent, kMaxShortLoop);
        break;
      case leir::LoopKind::kParallel:
        break;
      case leir::LoopKind::kBound: {
        std::optional<analysis::HardwareAxis> a = analysis::hardware_axis(l.var);
        if (a && l.extent > analysis::axis_limit(*a))
          return infeasible("loop_fusion.extent_exceeds_axis",
                            "the fused bound loop '{}' would have extent {} > {}", l.var, l.extent,
                            analysis::axis_limit(*a));
        if (a && a->level == 't' &&
            analysis::threads_per_block(fused) > analysis::LaunchLimits::kMaxThreadsPerBlock)
          return infeasible("loop_fusion.too_many_threads",
                            "the fused bound loop '{}' would give {} threads per block > {}", l.var,
                            analysis::threads_per_block(fused),
                            analysis::LaunchLimits::kMaxThreadsPerBlock);
        break;
      }
    }
    if (l.kind != leir::LoopKind::kSerial && l.kind != leir::LoopKind::kUnrolled) {
      for (const std::string& t : analysis::written_tensors(fused))
        if (!analysis::separates(fused, l.var, t))
          return infeasible("loop_fusion.carried_dependence",
                            "the fused {} loop '{}' would run iterations that touch the same "
                            "element of '{}' at once",
                            leir::loop_kind_name(l.kind), l.var, t);
    }
    return feasible();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_fusion() { return std::make_unique<LoopFusion>(); }

}  // namespace steptp::strategy
