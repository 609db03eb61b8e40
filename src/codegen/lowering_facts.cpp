// codegen/lowering_facts.cpp — statement facts, identity initialisation, guarded loop ranges and
// local arrays (lowering_facts.h). The facts about vector code (lane jams, wide versions,
// stationary tiles, streaming stores, merged loops) are in vector_lowering_facts.cpp.
#include "codegen/lowering_facts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "analysis/access.h"
#include "analysis/dependence.h"
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

}  // namespace

std::optional<double> accumulation_identity(const leir::Stmt& s) {
  std::optional<analysis::SelfRead> self = analysis::accumulation_self_read(s);
  if (!self) return std::nullopt;
  return self->identity;
}

std::vector<StmtFacts> analyze_statements(const leir::Program& p) {
  std::vector<StmtFacts> out;
  std::set<std::string> written;
  for (const leir::TensorDecl& d : p.decls)
    if (d.role != leir::TensorRole::kOutput) written.insert(d.name);
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext& ctx) {
    StmtFacts f;
    f.stmt = &s;
    f.loops = ctx.loops;
    f.top_block = ctx.top_block;
    f.ordinal = ctx.stmt_ordinal;
    f.identity = accumulation_identity(s);
    f.first_write = written.insert(s.lhs->name()).second;
    f.init_before = f.first_write && f.identity.has_value();
    out.push_back(std::move(f));
  });
  return out;
}

bool body_is_write_disjoint(const std::vector<leir::Item>& body, const std::string& var) {
  for (const leir::Item& item : body) {
    if (item.is_stmt()) {
      if (!analysis::mentions_var(item.stmt->lhs, var)) return false;
    } else if (!body_is_write_disjoint(item.block->body, var)) {
      return false;
    }
  }
  return true;
}

bool loop_is_write_disjoint(const leir::Block& b, size_t loop_index) {
  STEPTP_CHECK(loop_index < b.loops.size(), "loop index out of range");
  return body_is_write_disjoint(b.body, b.loops[loop_index].var);
}

std::vector<const leir::Loop*> init_loops(const StmtFacts& f) {
  std::vector<const leir::Loop*> out;
  for (const leir::Loop* l : f.loops)
    if (analysis::mentions_var(f.stmt->lhs, l->var)) out.push_back(l);
  return out;
}

namespace {

// True when the statement writes every element of its tensor: each LHS subscript is a distinct
// enclosing loop variable whose extent equals that dimension (statements are unguarded, so it
// runs at every point of its loops).
bool covers_whole_tensor(const leir::Stmt& s, const std::vector<const leir::Loop*>& loops,
                         const leir::TensorInfo& t) {
  const auto& idx = s.lhs->indices();
  if (idx.size() != t.shape.size()) return false;
  std::set<std::string> seen;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (idx[d]->kind() != ExprKind::kIndexVar) return false;
    const leir::Loop* loop = nullptr;
    for (const leir::Loop* l : loops)
      if (l->var == idx[d]->name()) loop = l;
    if (loop == nullptr || loop->extent != t.shape[d] || !seen.insert(loop->var).second)
      return false;
  }
  return true;
}

}  // namespace

std::map<std::string, TensorInitPlan> plan_identity_inits(const leir::Program& p,
                                                          const leir::TensorTable& table) {
  struct Writes {
    size_t first_block = 0;
    bool any = false;
    size_t complete_after = std::numeric_limits<size_t>::max();  // earliest covering block
    std::vector<std::pair<size_t, double>> accumulations;        // (top block, identity)
  };
  std::map<std::string, Writes> by_tensor;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext& ctx) {
    const leir::TensorInfo* t = table.find(s.lhs->name());
    if (t == nullptr) return;
    Writes& w = by_tensor[t->name];
    if (!w.any) w.first_block = ctx.top_block;
    w.any = true;
    if (std::optional<double> id = accumulation_identity(s))
      w.accumulations.emplace_back(ctx.top_block, *id);
    if (covers_whole_tensor(s, ctx.loops, *t))
      w.complete_after = std::min(w.complete_after, ctx.top_block);
  });
  std::map<std::string, TensorInitPlan> out;
  for (const auto& [name, w] : by_tensor) {
    std::vector<double> needed;
    for (const auto& [block, id] : w.accumulations)
      if (w.complete_after == std::numeric_limits<size_t>::max() || w.complete_after >= block)
        needed.push_back(id);
    if (needed.empty()) continue;
    TensorInitPlan plan;
    plan.first_block = w.first_block;
    plan.identity = needed.front();
    bool same =
        std::all_of(needed.begin(), needed.end(), [&](double id) { return id == needed.front(); });
    leir::DType dtype = table.find(name)->dtype;
    bool storable = std::isfinite(plan.identity) || leir::is_float(dtype);
    plan.mode = same && storable ? IdentityInit::kPrefill : IdentityInit::kTracked;
    out[name] = plan;
  }
  return out;
}

namespace {

bool is_zero(const ExprRef& e) { return e->kind() == ExprKind::kNumber && e->number_value() == 0; }
bool is_inf(const ExprRef& e, bool negative) {
  if (negative) return e->kind() == ExprKind::kNeg && e->operand()->kind() == ExprKind::kInf;
  return e->kind() == ExprKind::kInf;
}

// Adds the bound `f <= 0` puts on `var` (f affine, its coefficient of var nonzero).
void bound_from(leir::AffineForm f, const std::string& var, std::vector<GuardBound>& out) {
  const int64_t k = f.coefs.at(var);
  f.coefs.erase(var);
  GuardBound b;
  if (k > 0) {  // k·var <= -rest
    b.numerator = leir::negated(f);
    b.divisor = k;
    b.lower = false;
  } else {  // |k|·var >= rest
    b.numerator = f;
    b.divisor = -k;
    b.lower = true;
  }
  out.push_back(std::move(b));
}

// Splits a conjunction of comparison chains into bounds on `var` and residual links.
bool split_guard(const ExprRef& cond, const std::string& var, GuardedLoopRange& out) {
  if (cond->kind() == ExprKind::kBinary && cond->binary_op() == leir::BinaryOp::kAnd)
    return split_guard(cond->lhs(), var, out) && split_guard(cond->rhs(), var, out);
  if (cond->kind() != ExprKind::kCompare) return false;
  const auto& operands = cond->operands();
  for (size_t i = 0; i + 1 < operands.size(); ++i) {
    const ExprRef& a = operands[i];
    const ExprRef& b = operands[i + 1];
    const leir::CompareOp op = cond->compare_ops()[i];
    // a OP b as d OP 0 with d = a - b (coefficients that cancel are dropped).
    std::optional<leir::AffineForm> d =
        leir::affine_form(*leir::Expr::binary(leir::BinaryOp::kSub, a, b));
    if (!d || !d->coefs.count(var)) {
      // Not affine and on var: no range. Otherwise the link does not depend on var (c-c cancels).
      if (!d && (analysis::mentions_var(a, var) || analysis::mentions_var(b, var))) return false;
      out.residual.push_back(leir::Expr::compare({a, b}, {op}));
      continue;
    }
    // Every link as f <= 0: a < b is a - b + 1 <= 0, a >= b is b - a <= 0.
    auto plus_one = [](leir::AffineForm f) {
      f.constant += 1;
      return f;
    };
    switch (op) {
      case leir::CompareOp::kLe:
        bound_from(*d, var, out.bounds);
        break;
      case leir::CompareOp::kLt:
        bound_from(plus_one(*d), var, out.bounds);
        break;
      case leir::CompareOp::kGe:
        bound_from(leir::negated(*d), var, out.bounds);
        break;
      case leir::CompareOp::kGt:
        bound_from(plus_one(leir::negated(*d)), var, out.bounds);
        break;
      case leir::CompareOp::kEq:
        bound_from(*d, var, out.bounds);
        bound_from(leir::negated(*d), var, out.bounds);
        break;
      case leir::CompareOp::kNe:
        return false;
    }
  }
  return true;
}

}  // namespace

std::optional<GuardedLoopRange> guarded_loop_range(const leir::Stmt& s, const std::string& var) {
  const ExprRef& rhs = s.rhs;
  ExprRef guarded;
  bool is_sum = false;
  if (rhs->kind() == ExprKind::kBinary && rhs->binary_op() == leir::BinaryOp::kAdd) {
    is_sum = true;
    if (leir::equal(rhs->lhs(), s.lhs))
      guarded = rhs->rhs();
    else if (leir::equal(rhs->rhs(), s.lhs))
      guarded = rhs->lhs();
  } else if (rhs->kind() == ExprKind::kCall &&
             (rhs->function() == leir::Function::kMax || rhs->function() == leir::Function::kMin)) {
    if (leir::equal(rhs->args()[0], s.lhs))
      guarded = rhs->args()[1];
    else if (leir::equal(rhs->args()[1], s.lhs))
      guarded = rhs->args()[0];
  }
  if (!guarded || guarded->kind() != ExprKind::kCall ||
      guarded->function() != leir::Function::kIfThenElse)
    return std::nullopt;
  const ExprRef& otherwise = guarded->args()[2];
  const bool no_op =
      is_sum ? is_zero(otherwise) : is_inf(otherwise, rhs->function() == leir::Function::kMax);
  if (!no_op || analysis::mentions_tensor(guarded->args()[0], s.lhs->name())) return std::nullopt;
  GuardedLoopRange out;
  if (!split_guard(guarded->args()[0], var, out) || out.bounds.empty()) return std::nullopt;
  std::vector<ExprRef> kept = rhs->children();
  for (ExprRef& c : kept)
    if (c == guarded) c = guarded->args()[1];
  out.stmt = leir::Stmt{s.lhs, rhs->with_children(std::move(kept))};
  return out;
}

std::map<std::string, std::set<size_t>> blocks_using(const leir::Program& p) {
  std::map<std::string, std::set<size_t>> out;
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext& ctx) {
    auto note = [&](const ExprRef& n) {
      if (n->kind() == ExprKind::kAccess) out[n->name()].insert(ctx.top_block);
    };
    leir::for_each_expr(s.lhs, note);
    leir::for_each_expr(s.rhs, note);
  });
  return out;
}

std::map<std::string, LocalArrayPlan> plan_local_arrays(
    const leir::Program& p, const leir::TensorTable& table,
    const std::map<std::string, TensorInitPlan>& inits, int64_t max_elements) {
  const std::map<std::string, std::set<size_t>> users = blocks_using(p);
  std::map<std::string, LocalArrayPlan> out;
  for (const leir::TensorInfo& t : table.tensors) {
    if (t.role != leir::TensorRole::kIntermediate || t.scope == leir::Scope::kGlobal) continue;
    auto init = inits.find(t.name);
    if (init != inits.end() && init->second.mode == IdentityInit::kTracked) continue;
    auto used = users.find(t.name);
    if (used == users.end() || used->second.size() != 1) continue;
    const size_t b = *used->second.begin();
    const leir::Block& block = p.blocks[b];
    const std::vector<analysis::Access> accesses = analysis::accesses_by_tensor(block)[t.name];
    LocalArrayPlan plan;
    plan.block = b;
    plan.fixed.assign(t.shape.size(), false);
    plan.elements = leir::element_count(t.shape);
    std::optional<LocalArrayPlan> best;
    if (plan.elements <= max_elements) best = plan;
    // The array is declared between two header loops that the backends open as plain loops:
    // above the first vectorized or unrolled loop and above a register-tiled jam.
    size_t deepest = block.loops.size();
    for (size_t d = 0; d < block.loops.size(); ++d)
      if (block.loops[d].kind == leir::LoopKind::kVectorized ||
          block.loops[d].kind == leir::LoopKind::kUnrolled) {
        deepest = d;
        break;
      }
    if (std::optional<LaneJam> jam = find_lane_jam(block)) deepest = std::min(deepest, jam->first);
    if (std::optional<StationaryTile> tile = find_stationary_tile(block, table))
      deepest = std::min(deepest, tile->first);
    for (size_t d = 0; d < deepest; ++d) {
      // The condition operator_fusion establishes when it fuses under common loops.
      std::optional<size_t> at = analysis::position_fixed_by(accesses, block.loops[d].var);
      if (!at) break;
      plan.fixed[*at] = true;
      plan.depth = d + 1;
      plan.elements /= std::max<int64_t>(1, t.shape[*at]);
      if (plan.elements <= max_elements) best = plan;
    }
    if (best) out[t.name] = *best;
  }
  return out;
}

}  // namespace steptp::codegen
