// strategy/math/partially_equivalent_then_correct.cpp — a conv over a zero-padded copy E of A
// becomes a conv that reads A directly over the interior (where no read touches the padding:
// partially equivalent) plus guarded correction blocks for the border outputs.
//
//   before: B^{2}_{tx=0}L^{3}_{a=0}L^{12}_{c=0}[F_{tx,a,c}=if_then_else(2<=c<10,A_{tx,a,c-2},0);];
//           B^{2}_{tx=0}L^{4}_{a=0}L^{10}_{c=0}L^{3}_{d=0}L^{3}_{f=0}[G_{tx,a,c}=G_{tx,a,c}+
//             D_{a,d,f}*F_{tx,d,c+f};];
//   after:  B^{2}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}L^{3}_{d=0}L^{3}_{f=0}[G_{tx,a,c+2}=G_{tx,a,c+2}+
//             D_{a,d,f}*A_{tx,d,c+f};];
//           B^{2}_{tx=0}L^{4}_{a=0}L^{2}_{c=0}[G_{tx,a,c}=0;L^{3}_{d=0}L^{3}_{f=0}[G_{tx,a,c}=
//             G_{tx,a,c}+D_{a,d,f}*if_then_else(2<=c+f<10,A_{tx,d,c+f-2},0);];];  (and c+8)
//
// Preconditions: 1. the site block is one statement O=O+X reading one tensor E exactly once
// (not_accumulation); 2. it is the first write of O, an intermediate or output indexed by
// distinct loop variables, its output loops outermost (continued_accumulation, irregular_output);
// 3. E is written once, by an earlier one-statement block E=if_then_else(lo<=v<hi&...,A_{..},0)
// whose A indices are v or v-lo, and A is not written (not_padding); 4. each guarded index of the
// read is affine, one output variable plus reduction variables (irregular_read); 5. the interior
// is non-empty and smaller than the output (no_interior, nothing_to_correct). The padding block
// is removed when nothing else reads E. Every term is the same product in the same order, and each
// element starts from 0 exactly once, so values are bitwise unchanged.
#include <fmt/format.h>

#include <map>

#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::BinaryOp;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

// An integer affine index: Σ coef·var + constant, terms in first-appearance order.
struct Affine {
  std::vector<std::pair<std::string, int64_t>> terms;
  int64_t constant = 0;

  void add(const std::string& v, int64_t c) {
    for (auto& [name, coef] : terms)
      if (name == v) {
        coef += c;
        return;
      }
    terms.emplace_back(v, c);
  }
  int64_t coef(std::string_view v) const {
    for (const auto& [name, c] : terms)
      if (name == v) return c;
    return 0;
  }
};

std::optional<Affine> affine(const ExprRef& e) {
  switch (e->kind()) {
    case ExprKind::kIndexVar: {
      Affine a;
      a.add(e->name(), 1);
      return a;
    }
    case ExprKind::kNumber:
      if (!e->is_integer_literal()) return std::nullopt;
      return Affine{{}, int64_t(e->number_value())};
    case ExprKind::kNeg: {
      std::optional<Affine> a = affine(e->operand());
      if (!a) return std::nullopt;
      for (auto& t : a->terms) t.second = -t.second;
      a->constant = -a->constant;
      return a;
    }
    case ExprKind::kBinary: {
      std::optional<Affine> l = affine(e->lhs()), r = affine(e->rhs());
      if (!l || !r) return std::nullopt;
      BinaryOp op = e->binary_op();
      if (op == BinaryOp::kAdd || op == BinaryOp::kSub) {
        int64_t sign = op == BinaryOp::kAdd ? 1 : -1;
        for (const auto& [v, c] : r->terms) l->add(v, sign * c);
        l->constant += sign * r->constant;
        return l;
      }
      if (op == BinaryOp::kMul && (l->terms.empty() || r->terms.empty())) {
        const Affine& k = l->terms.empty() ? *l : *r;
        Affine x = l->terms.empty() ? *r : *l;
        for (auto& t : x.terms) t.second *= k.constant;
        x.constant *= k.constant;
        return x;
      }
      return std::nullopt;
    }
    case ExprKind::kInf:
    case ExprKind::kAccess:
    case ExprKind::kCompare:
    case ExprKind::kCall:
      return std::nullopt;
  }
  return std::nullopt;
}

// Prints back as `c+f*2-2`: terms in order, zero terms dropped, the constant last.
ExprRef to_expr(const Affine& a) {
  ExprRef out;
  for (const auto& [v, c] : a.terms) {
    if (c == 0) continue;
    ExprRef term = Expr::index_var(v);
    int64_t mag = c < 0 ? -c : c;
    if (mag != 1) term = Expr::binary(BinaryOp::kMul, term, Expr::integer(mag));
    if (!out)
      out = c < 0 ? Expr::neg(term) : term;
    else
      out = Expr::binary(c < 0 ? BinaryOp::kSub : BinaryOp::kAdd, out, term);
  }
  if (!out) return Expr::integer(a.constant);
  if (a.constant > 0) return Expr::binary(BinaryOp::kAdd, out, Expr::integer(a.constant));
  if (a.constant < 0) return Expr::binary(BinaryOp::kSub, out, Expr::integer(-a.constant));
  return out;
}

// Rewrites every affine index (subscripts and comparison operands) into canonical form.
ExprRef canonical_indices(const ExprRef& e) {
  return leir::rewrite(e, [](const ExprRef& n) -> ExprRef {
    auto fix = [](const std::vector<ExprRef>& xs) {
      std::vector<ExprRef> out;
      for (const ExprRef& x : xs) {
        std::optional<Affine> a = affine(x);
        out.push_back(a ? to_expr(*a) : x);
      }
      return out;
    };
    if (n->kind() == ExprKind::kAccess) return n->with_children(fix(n->indices()));
    if (n->kind() == ExprKind::kCompare) return n->with_children(fix(n->operands()));
    return n;
  });
}

// Replaces index variables by expressions (simultaneously).
ExprRef substitute(const ExprRef& e, const std::map<std::string, ExprRef>& by) {
  return leir::rewrite(e, [&](const ExprRef& n) -> ExprRef {
    if (n->kind() != ExprKind::kIndexVar) return n;
    auto it = by.find(n->name());
    return it == by.end() ? n : Expr::grouped(it->second);
  });
}

// One guarded output axis: the output loop, its interior [lo, hi) and the padding guard bound.
struct Axis {
  size_t loop = 0;  // position in the conv header
  int64_t lo = 0, hi = 0;
};

struct PadSite {
  size_t pad = 0, conv = 0;
  leir::Stmt pad_stmt, conv_stmt;
  ExprRef read;            // the E access in the conv statement
  ExprRef guard, source;   // the padding condition and the A access
  std::vector<Axis> axes;  // guarded output axes, header order
  size_t n_out = 0;        // the first n_out header loops are output loops
  bool keep_pad = false;   // E is read elsewhere or is a program output
};

// How often statements after block `from` read `tensor` (in values and in subscripts).
size_t reads_after(const leir::Program& p, size_t from, const std::string& tensor) {
  size_t reads = 0;
  std::vector<leir::Block> rest(p.blocks.begin() + long(from) + 1, p.blocks.end());
  leir::for_each_stmt(rest, [&](const leir::Stmt& st, const leir::StmtContext&) {
    leir::for_each_expr(st.rhs, [&](const ExprRef& e) {
      reads += e->kind() == ExprKind::kAccess && e->name() == tensor ? 1 : 0;
    });
    for (const ExprRef& i : st.lhs->indices())
      leir::for_each_expr(i, [&](const ExprRef& e) {
        reads += e->kind() == ExprKind::kAccess && e->name() == tensor ? 1 : 0;
      });
  });
  return reads;
}

class PartiallyEquivalentThenCorrect final : public ResolvedStrategy<PadSite> {
 public:
  std::string_view name() const override { return "partially_equivalent_then_correct"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "read the unpadded input over a conv's interior, then correct the border outputs";
  }

  std::vector<Site> sites(const leir::Program& p) const override { return top_level_sites(p); }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const PadSite& m) const override {
    const leir::Block& conv = p.blocks[m.conv];
    // E's padding variables → the conv's read indices.
    std::map<std::string, ExprRef> pad_to_read;
    const auto& pad_idx = m.pad_stmt.lhs->indices();
    for (size_t k = 0; k < pad_idx.size(); ++k)
      pad_to_read[pad_idx[k]->name()] = m.read->indices()[k];
    ExprRef direct = substitute(m.source, pad_to_read);
    ExprRef guarded = Expr::call(leir::Function::kIfThenElse,
                                 {substitute(m.guard, pad_to_read), direct, Expr::integer(0)});
    auto with_read = [&](const ExprRef& replacement) {
      return leir::rewrite(m.conv_stmt.rhs, [&](const ExprRef& n) {
        return leir::equal(n, m.read) ? replacement : n;
      });
    };
    // Output loops restricted to a box [from, from+extent) on the guarded axes.
    auto boxed = [&](const std::vector<std::pair<int64_t, int64_t>>& box, const leir::Stmt& st,
                     std::vector<leir::Loop>& loops) {
      std::map<std::string, ExprRef> shift;
      for (size_t i = 0; i < m.axes.size(); ++i) {
        leir::Loop& l = loops[m.axes[i].loop];
        l.extent = box[i].second;
        if (box[i].first != 0)
          shift[l.var] =
              Expr::binary(BinaryOp::kAdd, Expr::index_var(l.var), Expr::integer(box[i].first));
      }
      return leir::Stmt{canonical_indices(substitute(st.lhs, shift)),
                        canonical_indices(substitute(st.rhs, shift))};
    };
    std::vector<leir::Block> out;
    // The partially equivalent conv: the interior box, reading A directly.
    {
      std::vector<std::pair<int64_t, int64_t>> box;
      for (const Axis& a : m.axes) box.emplace_back(a.lo, a.hi - a.lo);
      leir::Block b{conv.loops, {}};
      b.body.push_back(
          leir::Item::of(boxed(box, leir::Stmt{m.conv_stmt.lhs, with_read(direct)}, b.loops)));
      out.push_back(std::move(b));
    }
    // The corrections: for axis i, the low and high borders, earlier axes interior, later full.
    leir::Stmt fix{m.conv_stmt.lhs, with_read(guarded)};
    for (size_t i = 0; i < m.axes.size(); ++i) {
      int64_t n = conv.loops[m.axes[i].loop].extent;
      for (auto part : {std::pair<int64_t, int64_t>{0, m.axes[i].lo},
                        std::pair<int64_t, int64_t>{m.axes[i].hi, n - m.axes[i].hi}}) {
        if (part.second == 0) continue;
        std::vector<std::pair<int64_t, int64_t>> box;
        for (size_t j = 0; j < m.axes.size(); ++j) {
          const Axis& a = m.axes[j];
          if (j < i)
            box.emplace_back(a.lo, a.hi - a.lo);
          else if (j == i)
            box.push_back(part);
          else
            box.emplace_back(0, conv.loops[a.loop].extent);
        }
        std::vector<leir::Loop> loops = conv.loops;
        leir::Stmt st = boxed(box, fix, loops);
        leir::Block reduce{std::vector<leir::Loop>(loops.begin() + long(m.n_out), loops.end()),
                           {leir::Item::of(st)}};
        leir::Block b{std::vector<leir::Loop>(loops.begin(), loops.begin() + long(m.n_out)), {}};
        b.body.push_back(leir::Item::of(leir::Stmt{st.lhs, Expr::integer(0)}));
        b.body.push_back(leir::Item::of(std::move(reduce)));
        out.push_back(std::move(b));
      }
    }
    leir::Program q = p;
    q.blocks.erase(q.blocks.begin() + long(m.conv));
    q.blocks.insert(q.blocks.begin() + long(m.conv), out.begin(), out.end());
    if (!m.keep_pad) q.blocks.erase(q.blocks.begin() + long(m.pad));
    return q;
  }

  std::string describe(const leir::Program& p, const Site& /*s*/, const PadSite& m) const override {
    const leir::Block& conv = p.blocks[m.conv];
    std::string ranges;
    for (const Axis& a : m.axes)
      ranges += fmt::format("{}'{}' in [{},{}) of {}", ranges.empty() ? "" : ", ",
                            conv.loops[a.loop].var, a.lo, a.hi, conv.loops[a.loop].extent);
    return fmt::format(
        "block {} accumulates {} from {}, the zero-padded copy of {} made by block {}. For "
        "{} every read lands inside the padding guard, so that part of the conv reads {} "
        "directly (partially equivalent); the remaining border outputs are recomputed by "
        "correction blocks that start them at 0 and read {} through the same guard. {}",
        m.conv, m.conv_stmt.lhs->name(), m.read->name(), m.source->name(), m.pad, ranges,
        m.source->name(), m.source->name(),
        m.keep_pad
            ? fmt::format("{} is still read elsewhere, so block {} stays", m.read->name(), m.pad)
            : fmt::format("Nothing else reads {}, so block {} is removed", m.read->name(), m.pad));
  }

 private:
  std::string code(std::string_view reason) const {
    return std::string(name()) + "." + std::string(reason);
  }

  // Preconditions 4.–5.: the interior [lo, hi) of every guarded output axis, into m.axes.
  Check resolve_axes(const leir::Block& conv, PadSite& m) const {
    const auto& pad_idx = m.pad_stmt.lhs->indices();
    for (const ExprRef& cmp : guard_terms(m.guard)) {
      const std::string& v = cmp->operands()[1]->name();
      int64_t g_lo = int64_t(cmp->operands()[0]->number_value());
      int64_t g_hi = int64_t(cmp->operands()[2]->number_value());
      size_t k = 0;
      while (pad_idx[k]->name() != v) ++k;
      std::optional<Affine> a = affine(m.read->indices()[k]);
      std::optional<size_t> out_loop;
      int64_t lo_sum = a ? a->constant : 0, hi_sum = lo_sum, stride = 0;
      bool ok = a.has_value();
      for (const auto& [var, c] : a ? a->terms : std::vector<std::pair<std::string, int64_t>>{}) {
        std::optional<size_t> pos = surgery::find_loop(conv, var);
        if (!pos || c == 0) {
          ok = ok && pos.has_value();
          continue;
        }
        if (*pos < m.n_out) {
          ok = ok && !out_loop && c > 0;
          out_loop = pos;
          stride = c;
        } else {
          int64_t span = c * (conv.loops[*pos].extent - 1);
          (span < 0 ? lo_sum : hi_sum) += span;
        }
      }
      bool reused = std::any_of(m.axes.begin(), m.axes.end(),
                                [&](const Axis& x) { return out_loop && x.loop == *out_loop; });
      if (!ok || !out_loop || reused)
        return infeasible(code("irregular_read"),
                          "the read {} of {} along padded axis '{}' is not one output loop "
                          "variable plus reduction variables",
                          leir::print(m.read->indices()[k]), m.read->name(), v);
      // Interior: stride·o + lo_sum >= g_lo and stride·o + hi_sum <= g_hi-1.
      int64_t n = conv.loops[*out_loop].extent;
      auto ceil_div = [](int64_t x, int64_t d) { return x >= 0 ? (x + d - 1) / d : -((-x) / d); };
      auto floor_div = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
      int64_t lo = std::clamp<int64_t>(ceil_div(g_lo - lo_sum, stride), 0, n);
      int64_t hi = std::clamp<int64_t>(floor_div(g_hi - 1 - hi_sum, stride) + 1, 0, n);
      if (hi <= lo)
        return infeasible(code("no_interior"),
                          "every output '{}' of block {} reads the padding of {} along '{}' "
                          "(guard {}<={}<{})",
                          conv.loops[*out_loop].var, m.conv, m.read->name(), v, g_lo, v, g_hi);
      m.axes.push_back(Axis{*out_loop, lo, hi});
    }
    return feasible();
  }

  Outcome<PadSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<BlockPath> path = s.block();
    STEPTP_TRY(path);
    if (!path->is_top_level() || path->top >= p.blocks.size())
      return infeasible(code("no_such_block"), "there is no top-level block {}", path->to_string());
    PadSite m;
    m.conv = path->top;
    const leir::Block& conv = p.blocks[m.conv];
    // 1. One statement O=O+X reading one tensor exactly once, in a nest of header loops only.
    if (conv.body.size() != 1 || !conv.body[0].is_stmt())
      return infeasible(code("not_accumulation"), "block {} does not hold exactly one statement",
                        m.conv);
    m.conv_stmt = *conv.body[0].stmt;
    const ExprRef& lhs = m.conv_stmt.lhs;
    const ExprRef& rhs = m.conv_stmt.rhs;
    if (rhs->kind() != ExprKind::kBinary || rhs->binary_op() != BinaryOp::kAdd ||
        !leir::equal(rhs->lhs(), lhs))
      return infeasible(code("not_accumulation"), "block {} computes {}, not {}={}+...", m.conv,
                        leir::print(rhs), lhs->name(), lhs->name());
    // 2. The first write of O, indexed by distinct loop variables that lead the header.
    std::vector<std::string> out_vars;
    for (const ExprRef& i : lhs->indices()) {
      if (i->kind() != ExprKind::kIndexVar ||
          std::find(out_vars.begin(), out_vars.end(), i->name()) != out_vars.end())
        return infeasible(code("irregular_output"), "{} is not indexed by distinct loop variables",
                          leir::print(lhs));
      out_vars.push_back(i->name());
    }
    m.n_out = out_vars.size();
    for (size_t i = 0; i < conv.loops.size(); ++i) {
      bool is_out =
          std::find(out_vars.begin(), out_vars.end(), conv.loops[i].var) != out_vars.end();
      if (is_out != (i < m.n_out))
        return infeasible(code("irregular_output"),
                          "block {}'s loops are not the output loops of {} followed by the "
                          "reduction loops",
                          m.conv, leir::print(lhs));
    }
    if (m.n_out == conv.loops.size())
      return infeasible(code("not_accumulation"), "block {} has no reduction loop", m.conv);
    auto writes = [&](size_t from, size_t to, std::string_view t) {
      size_t count = 0;
      std::vector<leir::Block> range(p.blocks.begin() + long(from), p.blocks.begin() + long(to));
      leir::for_each_stmt(range, [&](const leir::Stmt& e, const leir::StmtContext&) {
        count += e.lhs->name() == t ? 1 : 0;
      });
      return count;
    };
    const leir::TensorDecl* out_decl = p.find_decl(lhs->name());
    if ((out_decl != nullptr && out_decl->role != leir::TensorRole::kOutput) ||
        writes(0, m.conv, lhs->name()) != 0)
      return infeasible(code("continued_accumulation"),
                        "{} already holds values before block {}, so its sum does not start "
                        "from 0",
                        lhs->name(), m.conv);
    // 3. The one tensor read, and its padding block.
    std::vector<ExprRef> reads;
    leir::for_each_expr(rhs->rhs(), [&](const ExprRef& e) {
      if (e->kind() == ExprKind::kAccess) reads.push_back(e);
    });
    std::optional<size_t> pad;
    for (const ExprRef& r : reads) {
      size_t uses = 0;
      for (const ExprRef& o : reads) uses += o->name() == r->name() ? 1 : 0;
      if (uses != 1 || r->name() == lhs->name()) continue;
      for (size_t b = 0; b < m.conv && !pad; ++b) {
        const leir::Block& pb = p.blocks[b];
        if (pb.body.size() == 1 && pb.body[0].is_stmt() &&
            pb.body[0].stmt->lhs->name() == r->name() && padding_form(pb, m)) {
          m.read = r;
          pad = b;
        }
      }
    }
    if (!pad)
      return infeasible(code("not_padding"),
                        "block {} reads no tensor made by an earlier zero-padding block "
                        "E=if_then_else(lo<=v<hi,A_{{v-lo}},0)",
                        m.conv);
    m.pad = *pad;
    const std::string& e_name = m.read->name();
    const std::string& a_name = m.source->name();
    if (p.find_decl(e_name) != nullptr || writes(0, p.blocks.size(), e_name) != 1 ||
        writes(m.pad, m.conv + 1, a_name) != 0)
      return infeasible(code("not_padding"),
                        "{} must be an intermediate written only by block {}, and {} must not be "
                        "written between blocks {} and {}",
                        e_name, m.pad, a_name, m.pad, m.conv);
    // 4.–5. Each guarded read index: one output variable plus reduction variables.
    STEPTP_TRY(resolve_axes(conv, m));
    std::sort(m.axes.begin(), m.axes.end(),
              [](const Axis& x, const Axis& y) { return x.loop < y.loop; });
    if (std::all_of(m.axes.begin(), m.axes.end(),
                    [&](const Axis& a) { return a.lo == 0 && a.hi == conv.loops[a.loop].extent; }))
      return infeasible(code("nothing_to_correct"),
                        "no output of block {} reads the padding of {}, so there is no border "
                        "to correct",
                        m.conv, e_name);
    // E stays when anything besides the conv reads it.
    m.keep_pad = reads_after(p, m.pad, e_name) != 1;
    return m;
  }

  // The comparisons lo<=v<hi of a guard joined by &, or empty if it has another shape.
  static std::vector<ExprRef> guard_terms(const ExprRef& g) {
    if (g->kind() == ExprKind::kBinary && g->binary_op() == BinaryOp::kAnd) {
      std::vector<ExprRef> l = guard_terms(g->lhs()), r = guard_terms(g->rhs());
      if (l.empty() || r.empty()) return {};
      l.insert(l.end(), r.begin(), r.end());
      return l;
    }
    const ExprRef u = Expr::ungrouped(g);
    if (u->kind() == ExprKind::kCompare && u->operands().size() == 3 &&
        u->compare_ops()[0] == leir::CompareOp::kLe &&
        u->compare_ops()[1] == leir::CompareOp::kLt &&
        u->operands()[0]->kind() == ExprKind::kNumber && u->operands()[0]->is_integer_literal() &&
        u->operands()[2]->kind() == ExprKind::kNumber && u->operands()[2]->is_integer_literal() &&
        u->operands()[1]->kind() == ExprKind::kIndexVar)
      return {u};
    return {};
  }

  // 3. E_{v..}=if_then_else(lo<=v<hi&...,A_{..},0) over exactly its header loops, A's index on a
  // guarded axis v-lo and v elsewhere, each variable guarded at most once.
  static bool padding_form(const leir::Block& pb, PadSite& m) {
    const leir::Stmt& st = *pb.body[0].stmt;
    const auto& idx = st.lhs->indices();
    if (idx.size() != pb.loops.size()) return false;
    for (size_t k = 0; k < idx.size(); ++k)
      if (idx[k]->kind() != ExprKind::kIndexVar || idx[k]->name() != pb.loops[k].var) return false;
    const ExprRef& r = st.rhs;
    if (r->kind() != ExprKind::kCall || r->function() != leir::Function::kIfThenElse) return false;
    const ExprRef& zero = r->args()[2];
    const ExprRef src = Expr::ungrouped(r->args()[1]);
    if (zero->kind() != ExprKind::kNumber || zero->number_value() != 0.0 ||
        src->kind() != ExprKind::kAccess || src->indices().size() != idx.size() ||
        src->name() == st.lhs->name())
      return false;
    std::vector<ExprRef> terms = guard_terms(r->args()[0]);
    if (terms.empty()) return false;
    std::map<std::string, int64_t> shift;
    for (const ExprRef& t : terms)
      if (!shift.emplace(t->operands()[1]->name(), int64_t(t->operands()[0]->number_value()))
               .second)
        return false;
    for (size_t k = 0; k < idx.size(); ++k) {
      std::optional<Affine> a = affine(src->indices()[k]);
      auto it = shift.find(idx[k]->name());
      int64_t lo = it == shift.end() ? 0 : it->second;
      if (!a || a->coef(idx[k]->name()) != 1 || a->constant != -lo) return false;
      for (const auto& [v, c] : a->terms)
        if (v != idx[k]->name() && c != 0) return false;
    }
    for (const auto& shifted : shift)
      if (std::none_of(idx.begin(), idx.end(),
                       [&](const ExprRef& i) { return i->name() == shifted.first; }))
        return false;
    m.pad_stmt = st;
    m.guard = r->args()[0];
    m.source = src;
    return true;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_partially_equivalent_then_correct() {
  return std::make_unique<PartiallyEquivalentThenCorrect>();
}

}  // namespace steptp::strategy
