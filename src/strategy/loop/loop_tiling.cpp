// strategy/loop/loop_tiling.cpp — tiles two adjacent loops a, c of a nest: two new outer serial
// loops walk the tiles, the original loops walk inside one tile of fa × fc points.
//
//   before:
//   B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   after:
//   B^{16}_{tx=0}L^{4}_{d=0}L^{4}_{f=0}L^{8}_{a=0}L^{16}_{c=0}[E^{f64,g}_{tx,d*8+a}=E^{f64,g}_{tx,d*8+a}+A^{f64,g}_{tx,f*16+c}*C^{f64,g}_{f*16+c,d*8+a};];
//
// A factor that does not divide its extent leaves tails: the whole tiles cover
// [0, A) × [0, C) (A, C the multiples of the factors), then a nest over [0, A) × [C, n_c) and
// one over [A, n_a) × [0, n_c) finish the rectangle, as siblings inside the loops around a.
//
// Preconditions: 1. a is immediately outside c in the header; 2. each factor lies strictly
// between 1 and its loop's extent; 3. moving the inner part of a outside the outer part of c
// reverses no dependence: for every written tensor that is not a pure reduction, a or c
// separates it (the reference required both to be spatial); 4. with tails, a and c are serial
// and a is not the block's outermost loop (tail_needs_inner_serial_loops). The sites list
// divisors and the powers of two that do not divide. The tiled loops keep their kinds. Values
// are unchanged: the same points are visited, and since no dependence crosses two (a, c)
// points (3.), visiting them tile by tile, and the tails last, keeps every conflicting pair's
// order.
#include <fmt/format.h>

#include "analysis/dependence.h"
#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

struct Tiled {
  leir::Block split;  // o_a a o_c c (both splits, original order)
  leir::Block tiled;  // o_a o_c a c
  std::string outer_a, outer_c;
};

// Splits loop `pos` of b by `factor` with outer variable `outer` (outer inserted before it).
leir::Block split_loop(const leir::Block& b, size_t pos, int64_t factor, const std::string& outer) {
  const leir::Loop inner = b.loops[pos];
  leir::Block out = surgery::substitute_split(b, inner.var, outer, factor);
  out.loops[pos].extent = factor;
  out.loops.insert(out.loops.begin() + static_cast<std::ptrdiff_t>(pos),
                   leir::Loop{leir::LoopKind::kSerial, inner.extent / factor, outer});
  return out;
}

Tiled tile(const leir::Program& p, const leir::Block& b, size_t pa, int64_t fa, int64_t fc) {
  surgery::NameAllocator names(p);
  Tiled t;
  t.outer_a = names.fresh_loop_var();
  t.outer_c = names.fresh_loop_var();
  // After splitting a, c sits at pa+2.
  t.split = split_loop(split_loop(b, pa, fa, t.outer_a), pa + 2, fc, t.outer_c);
  t.tiled = t.split;
  std::swap(t.tiled.loops[pa + 1], t.tiled.loops[pa + 2]);  // o_a a o_c c -> o_a o_c a c
  return t;
}

// Tiling with tails (a factor that does not divide its extent): the loops from a inward become
// the whole tiles over [0, A) × [0, C), then [0, A) × [C, n_c), then [A, n_a) × [0, n_c).
leir::Block tile_with_tails(const leir::Program& p, const leir::Block& b, size_t pa, int64_t fa,
                            int64_t fc) {
  const leir::Loop a = b.loops[pa], c = b.loops[pa + 1];
  const int64_t whole_a = a.extent / fa * fa, whole_c = c.extent / fc * fc;
  surgery::NameAllocator names(p);
  names.fresh_loop_var();  // the two outer tile loops of tile() below
  names.fresh_loop_var();
  const std::string tail_c = names.fresh_loop_var(), tail_a = names.fresh_loop_var();
  const auto pos = static_cast<std::ptrdiff_t>(pa);
  const leir::Block rest{{b.loops.begin() + pos, b.loops.end()}, b.body};
  auto shifted = [](const std::string& var, int64_t by) {
    return leir::Expr::binary(leir::BinaryOp::kAdd, leir::Expr::index_var(var),
                              leir::Expr::integer(by));
  };
  std::vector<leir::Item> parts;
  if (whole_a > 0 && whole_c > 0) {
    leir::Block main = rest;
    main.loops[0].extent = whole_a;
    main.loops[1].extent = whole_c;
    parts.push_back(leir::Item::of(tile(p, main, 0, fa, fc).tiled));
  }
  if (whole_a > 0 && whole_c < c.extent) {
    leir::Block right = surgery::substitute_var(rest, c.var, shifted(tail_c, whole_c));
    right.loops[0].extent = whole_a;
    right.loops[1] = leir::Loop{c.kind, c.extent - whole_c, tail_c};
    parts.push_back(leir::Item::of(std::move(right)));
  }
  if (whole_a < a.extent) {
    leir::Block bottom = surgery::substitute_var(rest, a.var, shifted(tail_a, whole_a));
    bottom.loops[0] = leir::Loop{a.kind, a.extent - whole_a, tail_a};
    parts.push_back(leir::Item::of(std::move(bottom)));
  }
  return leir::Block{{b.loops.begin(), b.loops.begin() + pos}, std::move(parts)};
}

class LoopTiling final : public Strategy {
 public:
  std::string_view name() const override { return "loop_tiling"; }
  Category category() const override { return Category::kOperator; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "tile two adjacent loops: outer loops over tiles, inner loops within a tile";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const BlockPath& path : surgery::all_block_paths(p)) {
      const leir::Block& b = *surgery::find_block(p, path);
      for (size_t i = 0; i + 1 < b.loops.size(); ++i) {
        const bool tails_possible = i > 0 && b.loops[i].kind == leir::LoopKind::kSerial &&
                                    b.loops[i + 1].kind == leir::LoopKind::kSerial;
        for (int64_t fa : surgery::split_factors(b.loops[i].extent)) {
          for (int64_t fc : surgery::split_factors(b.loops[i + 1].extent)) {
            const bool tails = b.loops[i].extent % fa != 0 || b.loops[i + 1].extent % fc != 0;
            if (tails && !tails_possible) continue;
            out.push_back(
                Site(std::string(name()))
                    .set_block(path)
                    .set("loops", std::vector<std::string>{b.loops[i].var, b.loops[i + 1].var})
                    .set_ints("factors", {fa, fc}));
          }
        }
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
    Outcome<std::vector<int64_t>> factors = s.integers("factors");
    STEPTP_TRY(factors);
    if (loops->size() != 2 || factors->size() != 2)
      return infeasible("site.bad_parameter", "step {} needs loops=A,C and factors=FA,FC",
                        s.to_string());
    std::optional<size_t> pa = surgery::find_loop(b, (*loops)[0]);
    std::optional<size_t> pc = surgery::find_loop(b, (*loops)[1]);
    if (!pa || !pc)
      return infeasible("loop_tiling.no_such_loop", "block {} has no loop '{}' in its header",
                        s.values("block").front(), !pa ? (*loops)[0] : (*loops)[1]);
    // 1. Adjacent, in this order.
    if (*pc != *pa + 1)
      return infeasible("loop_tiling.not_adjacent", "loop '{}' is not immediately inside '{}'",
                        (*loops)[1], (*loops)[0]);
    // 2. Tiles of at least two points, and at least two tiles (or a tile and a tail).
    bool tails = false;
    for (size_t k = 0; k < 2; ++k) {
      const leir::Loop& l = b.loops[*pa + k];
      int64_t f = (*factors)[k];
      if (f >= l.extent)
        return infeasible("loop_tiling.factor_exceeds_extent",
                          "factor {} is not smaller than the extent {} of loop '{}'", f, l.extent,
                          l.var);
      if (f <= 1)
        return infeasible("loop_tiling.factor_too_small", "factor {} of loop '{}' must be ≥ 2", f,
                          l.var);
      tails = tails || l.extent % f != 0;
    }
    // 4. Tail nests are siblings inside the loops around a, in serial order.
    if (tails && (*pa == 0 || b.loops[*pa].kind != leir::LoopKind::kSerial ||
                  b.loops[*pa + 1].kind != leir::LoopKind::kSerial))
      return infeasible("loop_tiling.tail_needs_inner_serial_loops",
                        "a factor does not divide its extent, and the tail nests need serial "
                        "loops '{}' and '{}' inside at least one other loop",
                        (*loops)[0], (*loops)[1]);
    // 3. The interchange of a's inner part with c's outer part must reverse no dependence.
    // (Checked on the exact tiling of the whole-tile part; the dependence test depends on the
    // loops and subscripts, not on the extents.)
    leir::Block exact = b;
    exact.loops[*pa].extent =
        std::max<int64_t>((*factors)[0], b.loops[*pa].extent / (*factors)[0] * (*factors)[0]);
    exact.loops[*pa + 1].extent =
        std::max<int64_t>((*factors)[1], b.loops[*pa + 1].extent / (*factors)[1] * (*factors)[1]);
    Tiled t = tile(p, exact, *pa, (*factors)[0], (*factors)[1]);
    std::vector<std::string> order;
    for (const leir::Loop& l : t.tiled.loops) order.push_back(l.var);
    std::string tensor = analysis::reorder_violation(t.split, order);
    if (!tensor.empty())
      return infeasible("loop_tiling.reverses_dependence",
                        "neither '{}' nor '{}' separates '{}', so tiling would reorder dependent "
                        "iterations",
                        (*loops)[0], (*loops)[1], tensor);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    BlockPath path = *s.block();
    const leir::Block& b = *surgery::find_block(p, path);
    std::vector<int64_t> f = *s.integers("factors");
    const size_t pa = *surgery::find_loop(b, s.values("loops")[0]);
    if (b.loops[pa].extent % f[0] != 0 || b.loops[pa + 1].extent % f[1] != 0)
      return surgery::replace_block(p, path, tile_with_tails(p, b, pa, f[0], f[1]));
    Tiled t = tile(p, b, pa, f[0], f[1]);
    return surgery::replace_block(p, path, std::move(t.tiled));
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    const leir::Block& b = *surgery::find_block(p, *s.block());
    std::vector<int64_t> f = *s.integers("factors");
    size_t pa = *surgery::find_loop(b, s.values("loops")[0]);
    Tiled t = tile(p, b, pa, f[0], f[1]);
    const leir::Loop& a = b.loops[pa];
    const leir::Loop& cl = b.loops[pa + 1];
    if (a.extent % f[0] != 0 || cl.extent % f[1] != 0) {
      const int64_t wa = a.extent / f[0] * f[0], wc = cl.extent / f[1] * f[1];
      return fmt::format(
          "loops '{}' ({}) and '{}' ({}) of block {} are tiled by {}×{}; the factors leave "
          "tails, so whole tiles cover '{}' < {} and '{}' < {} (new outer loops '{}' and '{}' "
          "walk them), then a nest finishes '{}' from {} to {} and another '{}' from {} to {}. "
          "No dependence crosses two ({}, {}) points, so visiting them tile by tile and the "
          "tails last keeps the values while each tile's data stays in cache",
          a.var, a.extent, cl.var, cl.extent, s.values("block").front(), f[0], f[1], a.var, wa,
          cl.var, wc, t.outer_a, t.outer_c, cl.var, wc, cl.extent - 1, a.var, wa, a.extent - 1,
          a.var, cl.var);
    }
    return fmt::format(
        "loops '{}' ({}) and '{}' ({}) of block {} are tiled into {}×{} tiles of {}×{} points: "
        "new outer serial loops '{}' ({}) and '{}' ({}) walk the tiles, '{}' and '{}' walk one "
        "tile, and every '{}' becomes {}*{}+{} and every '{}' becomes {}*{}+{}; the same points "
        "are visited and no dependence is reversed, so the values are unchanged while each tile's "
        "data stays in cache",
        a.var, a.extent, cl.var, cl.extent, s.values("block").front(), a.extent / f[0],
        cl.extent / f[1], f[0], f[1], t.outer_a, a.extent / f[0], t.outer_c, cl.extent / f[1],
        a.var, cl.var, a.var, t.outer_a, f[0], a.var, cl.var, t.outer_c, f[1], cl.var);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,64]\ninput C f64[64,32]\noutput E f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
        "loop_tiling(block=0, loops=a,c, factors=8,16)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_loop_tiling() { return std::make_unique<LoopTiling>(); }

}  // namespace steptp::strategy
