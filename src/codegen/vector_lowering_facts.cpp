// codegen/vector_lowering_facts.cpp — the facts of lowering_facts.h about vector code: lane jams
// (and their explicit wide form), wide reductions and wide math, stationary vector tiles,
// streaming stores and merged innermost loops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "codegen/lowering_facts.h"
#include "leir/interval.h"
#include "leir/visit.h"
#include "support/error.h"
#include "support/saturating.h"

namespace steptp::codegen {
namespace {

using leir::BinaryOp;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

// The self-reference: the LHS access itself (same tensor, superscript and subscript).
bool is_self(const ExprRef& e, const leir::Stmt& s) { return leir::equal(e, s.lhs); }

}  // namespace

int64_t executions_from(const leir::Block& b, size_t from) {
  int64_t total = 0;
  for (const leir::Item& i : b.body)
    total = saturating_add(total, i.is_stmt() ? 1 : executions_from(*i.block, 0));
  for (size_t k = from; k < b.loops.size(); ++k) total = saturating_mul(total, b.loops[k].extent);
  return total;
}

namespace {

// A choice of jammed loops among the jammable ones (see find_lane_jam).
struct JamChoice {
  int64_t accumulators = 1;
  int64_t spilled = 0;  // registers beyond kJamVectorRegisters
  double cost = 0;      // per accumulator update, in vector loads (see kJamSpillCost)
};

// Consecutive iterations of `var` touch consecutive elements: the variable is in the last
// subscript with coefficient 1 and in no other (`required`: it must be there at all).
bool runs_along(const ExprRef& access, const std::string& var, bool required) {
  const auto& idx = access->indices();
  for (size_t k = 0; k + 1 < idx.size(); ++k)
    if (analysis::mentions_var(idx[k], var)) return false;
  if (idx.empty() || !analysis::mentions_var(idx.back(), var)) return !required;
  std::optional<leir::AffineForm> f = leir::affine_form(*idx.back());
  if (!f) return false;
  auto c = f->coefs.find(var);
  return c != f->coefs.end() && c->second == 1;
}

// Whether GCC loads `read` along the V loop `lanes` in whole vectors: it runs along the loop
// (or does not move with it) and the loop's extent is a multiple of the vector width. Otherwise
// GCC assembles each vector of it element by element (the collapsed SIMD loop crosses into the
// next row mid-vector, or the stride is not 1).
bool loads_whole_vectors(const ExprRef& read, const leir::Loop& lanes) {
  return lanes.extent % kStationaryLanes == 0 && runs_along(read, lanes.var, false);
}

JamChoice evaluate_jam(const leir::Block& b, const std::vector<ExprRef>& reads,
                       const std::vector<size_t>& jammed, JamRegisters budget) {
  JamChoice c;
  for (size_t k : jammed) c.accumulators = saturating_mul(c.accumulators, b.loops[k].extent);
  int64_t loads = 0, most = 0;
  double weighted = 0;
  for (const ExprRef& r : reads) {
    int64_t copies = 1;
    for (size_t k : jammed)
      if (analysis::mentions_var(r, b.loops[k].var)) copies *= b.loops[k].extent;
    loads += copies;
    most = std::max(most, copies);
    weighted += static_cast<double>(copies) *
                (loads_whole_vectors(r, b.loops.back()) ? 1.0 : kStationaryLanes);
  }
  const int64_t registers =
      budget.loads_held ? c.accumulators + loads + 1 : c.accumulators + (loads - most) + 2;
  c.spilled = std::max<int64_t>(0, registers - budget.available);
  c.cost = (weighted + kJamSpillCost * static_cast<double>(c.spilled)) /
           static_cast<double>(c.accumulators);
  return c;
}

}  // namespace

std::optional<LaneJam> find_lane_jam(const leir::Block& b, JamRegisters registers) {
  if (b.loops.empty() || b.loops.back().kind != leir::LoopKind::kVectorized ||
      !analysis::reduction_lane_accumulation(b, b.loops.size() - 1))
    return std::nullopt;
  const leir::Stmt& s = *b.body[0].stmt;
  std::vector<size_t> jammable;  // outermost first
  std::vector<size_t> collapsed{b.loops.size() - 1};
  // More jammable loops than this are not weighed (2^n choices); the walk stops there.
  constexpr size_t kMaxJammable = 8;
  size_t k = b.loops.size() - 1;
  while (k > 0) {
    const leir::Loop& l = b.loops[k - 1];
    if (!analysis::mentions_var(s.lhs, l.var)) {
      if (l.kind != leir::LoopKind::kSerial && l.kind != leir::LoopKind::kUnrolled) break;
      collapsed.insert(collapsed.begin(), k - 1);
    } else {
      if (l.kind == leir::LoopKind::kVectorized || l.extent < 1 || l.extent > kMaxJamAccumulators ||
          jammable.size() == kMaxJammable || !analysis::is_independent_loop(b, l.var))
        break;
      jammable.insert(jammable.begin(), k - 1);
    }
    --k;
  }
  if (jammable.empty()) return std::nullopt;
  // Collapsed loops outside the outermost jammable one would re-read the accumulators'
  // elements on every iteration: leave them to the ordinary lowering.
  while (!collapsed.empty() && collapsed.front() < jammable.front())
    collapsed.erase(collapsed.begin());

  std::vector<ExprRef> reads;
  leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
    if (e->kind() == ExprKind::kAccess && !leir::equal(e, s.lhs)) reads.push_back(e);
  });
  // Every subset of the jammable loops; on equal cost, more accumulators, then the earlier
  // subset in this order (bit i: the i-th innermost jammable loop), so the choice is
  // deterministic.
  const size_t n = jammable.size();
  std::optional<JamChoice> best;
  std::vector<size_t> best_jammed;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    std::vector<size_t> jammed;
    for (size_t i = 0; i < n; ++i)
      if (mask & (1u << i)) jammed.push_back(jammable[n - 1 - i]);
    std::reverse(jammed.begin(), jammed.end());
    JamChoice c = evaluate_jam(b, reads, jammed, registers);
    if (c.accumulators < 2 || c.accumulators > kMaxJamAccumulators) continue;
    const bool better = !best || c.cost < best->cost - 1e-12 ||
                        (c.cost <= best->cost + 1e-12 && c.accumulators > best->accumulators);
    if (better) {
      best = c;
      best_jammed = std::move(jammed);
    }
  }
  if (!best) return std::nullopt;
  LaneJam jam;
  jam.first = jammable.front();
  jam.jammed = best_jammed;
  for (size_t j : jammable)
    if (std::find(best_jammed.begin(), best_jammed.end(), j) == best_jammed.end())
      jam.hoisted.push_back(j);
  jam.collapsed = std::move(collapsed);
  jam.accumulators = best->accumulators;
  jam.spilled = best->spilled;
  return jam;
}

bool is_explicit_wide_lane_jam(const leir::Block& b, const leir::TensorTable& table,
                               const LaneJam& jam) {
  if (b.loops.empty() || jam.collapsed.empty() || jam.collapsed.back() + 1 != b.loops.size())
    return false;
  const leir::Loop& lanes = b.loops.back();
  std::optional<analysis::Accumulation> acc =
      analysis::reduction_lane_accumulation(b, b.loops.size() - 1);
  if (!acc || acc->op != analysis::AccumulateOp::kSum || lanes.extent % kWideJamLanes != 0)
    return false;
  const leir::Stmt& s = *b.body[0].stmt;
  auto is_f64 = [&](const ExprRef& access) {
    const leir::TensorInfo* info = table.find(access->name());
    return info && info->dtype == leir::DType::kF64;
  };
  if (!is_f64(s.lhs)) return false;
  bool ok = true;
  leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
    if (e->kind() != ExprKind::kAccess || leir::equal(e, s.lhs)) return;
    if (!is_f64(e)) ok = false;
    if (analysis::mentions_var(e, lanes.var) && !runs_along(e, lanes.var, true)) ok = false;
    for (const ExprRef& i : e->indices())  // no gather: a subscript holds no tensor read
      leir::for_each_expr(i, [&](const ExprRef& x) {
        if (x->kind() == ExprKind::kAccess) ok = false;
      });
  });
  return ok;
}

std::optional<LaneJam> find_explicit_wide_lane_jam(const leir::Block& b,
                                                   const leir::TensorTable& table) {
  std::optional<LaneJam> jam = find_lane_jam(b, kWideJamRegisters);
  if (jam && is_explicit_wide_lane_jam(b, table, *jam)) return jam;
  return std::nullopt;
}

namespace {

// The reads of an expression built only from + - * /, negation, numbers and tensor reads
// (what vector arithmetic can evaluate lane by lane), appended to `reads`; false otherwise.
bool collect_lane_wise_reads(const ExprRef& e, std::vector<ExprRef>& reads) {
  switch (e->kind()) {
    case ExprKind::kNumber:
      return true;
    case ExprKind::kAccess:
      reads.push_back(e);
      return true;
    case ExprKind::kNeg:
      return collect_lane_wise_reads(e->operand(), reads);
    case ExprKind::kBinary:
      switch (e->binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
        case BinaryOp::kMul:
        case BinaryOp::kDiv:
          return collect_lane_wise_reads(e->lhs(), reads) &&
                 collect_lane_wise_reads(e->rhs(), reads);
        default:
          return false;
      }
    default:
      return false;
  }
}

bool serial_or_unrolled(leir::LoopKind k) {
  return k == leir::LoopKind::kSerial || k == leir::LoopKind::kUnrolled;
}

}  // namespace

bool is_wide_vector_reduction(const leir::Block& b) {
  if (b.loops.empty() || b.loops.back().kind != leir::LoopKind::kVectorized) return false;
  std::optional<analysis::Accumulation> acc =
      analysis::reduction_lane_accumulation(b, b.loops.size() - 1);
  if (!acc ||
      (acc->op != analysis::AccumulateOp::kSum && acc->op != analysis::AccumulateOp::kProduct))
    return false;
  std::vector<ExprRef> reads;
  return collect_lane_wise_reads(b.body[0].stmt->rhs, reads);
}

namespace {

// Whether every tensor read of `e` happens whatever its selects decide: a read inside a branch
// of an if_then_else must also be read by the condition. Sets `transcendental` on exp or log
// (erf, whose libmvec variants run as fast at 256 bits as at 512, does not). False on
// floating-point // and % (fmod).
bool reads_unconditionally(const ExprRef& e, bool& transcendental) {
  switch (e->kind()) {
    case ExprKind::kNumber:
    case ExprKind::kInf:
    case ExprKind::kIndexVar:
    case ExprKind::kAccess:
      return true;
    case ExprKind::kNeg:
      return reads_unconditionally(e->operand(), transcendental);
    case ExprKind::kBinary:
      if (e->binary_op() == BinaryOp::kFloorDiv || e->binary_op() == BinaryOp::kMod) return false;
      return reads_unconditionally(e->lhs(), transcendental) &&
             reads_unconditionally(e->rhs(), transcendental);
    case ExprKind::kCompare:
      for (const ExprRef& operand : e->operands())
        if (!reads_unconditionally(operand, transcendental)) return false;
      return true;
    case ExprKind::kCall: {
      const leir::Function f = e->function();
      if (f == leir::Function::kExp || f == leir::Function::kLog) transcendental = true;
      for (const ExprRef& arg : e->args())
        if (!reads_unconditionally(arg, transcendental)) return false;
      if (f != leir::Function::kIfThenElse) return true;
      std::vector<ExprRef> guarded;
      for (size_t k = 1; k < e->args().size(); ++k)
        leir::for_each_expr(e->args()[k], [&](const ExprRef& n) {
          if (n->kind() == ExprKind::kAccess) guarded.push_back(n);
        });
      return std::all_of(guarded.begin(), guarded.end(), [&](const ExprRef& r) {
        bool in_condition = false;
        leir::for_each_expr(e->args()[0], [&](const ExprRef& n) {
          if (n->kind() == ExprKind::kAccess && leir::equal(n, r)) in_condition = true;
        });
        return in_condition;
      });
    }
  }
  return false;
}

}  // namespace

bool reads_unconditionally(const leir::Block& b) {
  bool all = true, transcendental = false;
  leir::for_each_stmt({b}, [&](const leir::Stmt& s, const leir::StmtContext&) {
    all = all && reads_unconditionally(s.rhs, transcendental);
  });
  return all;
}

bool is_wide_elementwise_math(const leir::Block& b) {
  if (b.loops.empty() || b.body.empty()) return false;
  bool transcendental = false;
  for (const leir::Item& item : b.body) {
    if (!item.is_stmt()) return false;
    const leir::Stmt& s = *item.stmt;
    if (analysis::mentions_tensor(s.rhs, s.lhs->name())) return false;  // an accumulation
    if (!reads_unconditionally(s.rhs, transcendental)) return false;
  }
  return transcendental && analysis::is_independent_loop(b, b.loops.back().var);
}

namespace {

// The row-major element offset of `access` into a tensor of `shape` (its rank) as one affine
// form over the loop variables, or nullopt when a subscript is not affine (a gather, a
// division). A variable whose terms cancel keeps a zero coefficient.
std::optional<leir::AffineForm> flattened_offset(const leir::Expr& access,
                                                 const std::vector<int64_t>& shape) {
  leir::AffineForm offset;
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    std::optional<leir::AffineForm> f = leir::affine_form(*access.indices()[k]);
    if (!f) return std::nullopt;
    offset.constant += f->constant * stride;
    for (const auto& [var, coef] : f->coefs) offset.coefs[var] += coef * stride;
    stride *= shape[k];
  }
  return offset;
}

}  // namespace

bool is_streaming_store_nest(const leir::Block& b, const leir::TensorTable& table,
                             int64_t min_bytes) {
  constexpr int64_t kRun = 4;  // doubles per 256-bit store
  if (b.loops.empty() || b.body.size() != 1 || !b.body[0].is_stmt()) return false;
  const leir::Loop& inner = b.loops.back();
  if (inner.kind != leir::LoopKind::kSerial && inner.kind != leir::LoopKind::kVectorized)
    return false;
  if (inner.extent < kRun || inner.extent % kRun != 0 || inner.extent > kStreamingStoreMaxRow)
    return false;
  const leir::Stmt& s = *b.body[0].stmt;
  const leir::TensorInfo* info = table.find(s.lhs->name());
  if (info == nullptr || info->dtype != leir::DType::kF64 || info->scope != leir::Scope::kGlobal ||
      info->shape.size() != s.lhs->indices().size())
    return false;
  if (leir::element_count(info->shape) * 8 < min_bytes) return false;
  if (analysis::mentions_tensor(s.rhs, s.lhs->name())) return false;
  std::optional<leir::AffineForm> offset = flattened_offset(*s.lhs, info->shape);
  if (!offset || offset->constant % kRun != 0) return false;
  for (const auto& [var, coef] : offset->coefs) {
    if (var == inner.var ? coef != 1 : coef % kRun != 0) return false;
  }
  if (!offset->coefs.count(inner.var)) return false;
  return analysis::is_independent_loop(b, inner.var);
}

namespace {

// Whether loops `outer` and `inner` (extent inner_extent) of the perfect nest `b` may merge
// (merged_innermost_loops).
bool loops_merge(const leir::Block& b, const std::string& outer, const std::string& inner,
                 int64_t inner_extent, const leir::TensorTable& table) {
  for (const leir::Item& item : b.body) {
    const leir::Stmt& s = *item.stmt;
    size_t mentions = 0;            // of either variable anywhere in the statement
    size_t subscript_mentions = 0;  // of either variable inside an access's subscripts
    bool ok = true;
    auto count_vars = [&](const ExprRef& e, size_t& n) {
      leir::for_each_expr(e, [&](const ExprRef& x) {
        if (x->kind() == ExprKind::kIndexVar && (x->name() == outer || x->name() == inner)) ++n;
      });
    };
    auto visit = [&](const ExprRef& e) {
      count_vars(e, mentions);
      leir::for_each_expr(e, [&](const ExprRef& a) {
        if (!ok || a->kind() != ExprKind::kAccess) return;
        const leir::TensorInfo* info = table.find(a->name());
        if (info == nullptr || info->shape.size() != a->indices().size()) {
          ok = false;
          return;
        }
        std::optional<leir::AffineForm> offset = flattened_offset(*a, info->shape);
        if (!offset) {
          ok = false;
          return;
        }
        auto coef = [&](const std::string& v) {
          auto it = offset->coefs.find(v);
          return it == offset->coefs.end() ? int64_t{0} : it->second;
        };
        const int64_t outer_coef = coef(outer), inner_coef = coef(inner);
        // Affine subscripts hold no accesses, so no mention is counted twice.
        for (const ExprRef& index : a->indices()) count_vars(index, subscript_mentions);
        if (outer_coef != inner_extent * inner_coef) ok = false;
      });
    };
    visit(s.lhs);
    visit(s.rhs);
    if (!ok || mentions != subscript_mentions) return false;
  }
  return true;
}

}  // namespace

std::optional<leir::Block> merged_innermost_loops(const leir::Block& b,
                                                  const leir::TensorTable& table) {
  for (const leir::Item& item : b.body)
    if (!item.is_stmt()) return std::nullopt;
  leir::Block merged = b;
  bool changed = false;
  while (merged.loops.size() >= 2 && merged.loops.back().extent < kMergedRowTarget) {
    const leir::Loop& inner = merged.loops.back();
    const leir::Loop& outer = merged.loops[merged.loops.size() - 2];
    if (outer.kind != leir::LoopKind::kSerial) break;
    if (inner.kind != leir::LoopKind::kSerial &&
        !(inner.kind == leir::LoopKind::kVectorized &&
          analysis::is_independent_loop(merged, inner.var)))
      break;
    if (!loops_merge(merged, outer.var, inner.var, inner.extent, table)) break;
    const std::string gone = outer.var;
    leir::Loop spanning = inner;
    spanning.extent = inner.extent * outer.extent;
    merged.loops.pop_back();
    merged.loops.back() = spanning;
    const ExprRef zero = leir::Expr::integer(0);
    for (leir::Item& item : merged.body) {
      auto drop = [&](const ExprRef& e) {
        return e->kind() == ExprKind::kIndexVar && e->name() == gone ? zero : e;
      };
      item.stmt->lhs = leir::rewrite(item.stmt->lhs, drop);
      item.stmt->rhs = leir::rewrite(item.stmt->rhs, drop);
    }
    changed = true;
  }
  if (!changed) return std::nullopt;
  return merged;
}

int64_t stationary_vector_start(int64_t row_extent, int64_t v, int64_t lanes) {
  return std::min(v * lanes, row_extent - lanes);
}

std::optional<StationaryTile> find_stationary_tile(const leir::Block& b,
                                                   const leir::TensorTable& table,
                                                   TileVectors unit) {
  if (b.loops.size() < 2 || b.body.size() != 1 || !b.body[0].is_stmt()) return std::nullopt;
  const leir::Stmt& s = *b.body[0].stmt;
  std::optional<analysis::Accumulation> acc = analysis::match_accumulation(s);
  if (!acc || acc->op != analysis::AccumulateOp::kSum) return std::nullopt;
  const leir::Loop& row = b.loops.back();
  if (!serial_or_unrolled(row.kind) && row.kind != leir::LoopKind::kVectorized) return std::nullopt;
  StationaryTile t;
  t.lanes = unit.lanes;
  t.vectors = (row.extent + unit.lanes - 1) / unit.lanes;
  if (row.extent < unit.lanes || t.vectors > unit.max_vectors) return std::nullopt;
  std::vector<ExprRef> reads;
  if (!collect_lane_wise_reads(s.rhs, reads)) return std::nullopt;
  auto is_f64 = [&](const ExprRef& a) {
    const leir::TensorInfo* info = table.find(a->name());
    return info != nullptr && info->dtype == leir::DType::kF64;
  };
  if (!is_f64(s.lhs) || !runs_along(s.lhs, row.var, true)) return std::nullopt;
  for (const ExprRef& r : reads) {
    if (!is_f64(r) || !runs_along(r, row.var, false)) return std::nullopt;
    if (analysis::mentions_var(r, row.var) && !is_self(r, s)) t.row_reads.push_back(r);
  }
  if (!analysis::is_independent_loop(b, row.var)) return std::nullopt;
  int64_t shared_updates = 1;  // reduction iterations that reuse the registers
  size_t k = b.loops.size() - 1;
  for (; k > 0; --k) {
    const leir::Loop& l = b.loops[k - 1];
    if (!serial_or_unrolled(l.kind) || l.extent < 1) break;
    if (!analysis::mentions_var(s.lhs, l.var)) {
      t.reduction.insert(t.reduction.begin(), k - 1);
      shared_updates = saturating_mul(shared_updates, l.extent);
      continue;
    }
    const int64_t rows = t.rows * l.extent;
    if (rows * t.vectors > unit.max_vectors || !analysis::is_independent_loop(b, l.var)) break;
    t.rows = rows;
    t.jammed.insert(t.jammed.begin(), k - 1);
  }
  if (t.reduction.empty() || shared_updates < 2) return std::nullopt;
  t.first = k;
  return t;
}

std::vector<bool> shared_row_reads(const leir::Block& b, const StationaryTile& t) {
  std::vector<bool> shared(t.row_reads.size(), false);
  if (t.lanes == kStationaryLanes || t.rows < 2) return shared;
  const std::string& accumulated = b.body[0].stmt->lhs->name();
  for (size_t k = 0; k < t.row_reads.size(); ++k) {
    const ExprRef& r = t.row_reads[k];
    shared[k] = r->name() != accumulated &&
                std::none_of(t.jammed.begin(), t.jammed.end(), [&](size_t loop) {
                  return analysis::mentions_var(r, b.loops[loop].var);
                });
  }
  return shared;
}

bool calls_any(const leir::Block& b, std::initializer_list<leir::Function> functions) {
  bool found = false;
  leir::for_each_stmt({b}, [&](const leir::Stmt& s, const leir::StmtContext&) {
    leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
      if (e->kind() == leir::ExprKind::kCall &&
          std::find(functions.begin(), functions.end(), e->function()) != functions.end())
        found = true;
    });
  });
  return found;
}

bool has_wide_tile_version(const leir::Block& b) {
  return !calls_any(b, {leir::Function::kIfThenElse});
}

}  // namespace steptp::codegen
