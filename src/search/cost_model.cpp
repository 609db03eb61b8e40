// search/cost_model.cpp — the static cost estimate (see cost_model.h for what it models).
//
//   cost = Σ_statements executions(stmt) · (1 + Σ_accesses access_cost) / simd / threads
//        + Σ_global intermediates 2 · elements                  (written once, read once)
//   access_cost: 0.1 when the innermost loop variable does not occur in the subscript (stays in
//   a register), 0.25 when it occurs only in the last subscript (unit stride) or the tensor
//   fits in L1, 1.0 otherwise (strided: a cache line per element).
#include "search/cost_model.h"

#include <algorithm>
#include <set>
#include <string>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "leir/tensor_table.h"
#include "leir/visit.h"

namespace steptp::search {
namespace {

enum class Stride { kInvariant, kUnit, kStrided };

Stride stride_of(const leir::Expr& access, const std::string& inner) {
  const auto& idx = access.indices();
  bool in_last = false, elsewhere = false;
  for (size_t i = 0; i < idx.size(); ++i) {
    bool m = analysis::mentions_var(idx[i], inner);
    if (i + 1 == idx.size()) in_last = m;
    else elsewhere = elsewhere || m;
  }
  if (!in_last && !elsewhere) return Stride::kInvariant;
  if (in_last && !elsewhere) return Stride::kUnit;
  return Stride::kStrided;
}

int64_t elements_of(const leir::Program& p, const std::string& tensor,
                    const std::vector<int64_t>* inferred) {
  if (const leir::TensorDecl* d = p.find_decl(tensor)) return leir::element_count(d->shape);
  return inferred ? leir::element_count(*inferred) : 1 << 20;
}

// Threads that can work on a top-level block: the leading P/B loops the C backend runs in
// parallel (independent ones, collapsed), capped by the thread count.
double parallel_factor(const leir::Block& b, int threads) {
  if (threads <= 1) return 1;
  double iterations = 1;
  for (const leir::Loop& l : b.loops) {
    if (l.kind != leir::LoopKind::kParallel && l.kind != leir::LoopKind::kBound) break;
    if (!analysis::is_independent_loop(b, l.var)) break;
    iterations *= static_cast<double>(l.extent);
  }
  return std::clamp(iterations, 1.0, static_cast<double>(threads));
}

}  // namespace

double estimated_cost(const leir::Program& p, const CostModelOptions& options) {
  Result<leir::TensorTable> table = leir::infer_tensor_table(p);
  auto inferred_shape = [&](const std::string& name) -> const std::vector<int64_t>* {
    if (!table.ok()) return nullptr;
    const leir::TensorInfo* t = table->find(name);
    return t ? &t->shape : nullptr;
  };

  std::vector<double> block_cost(p.blocks.size(), 0.0);
  leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext& ctx) {
    double executions = 1;
    for (const leir::Loop* l : ctx.loops) executions *= static_cast<double>(l->extent);
    const leir::Loop* inner = ctx.loops.empty() ? nullptr : ctx.loops.back();
    double per = 1.0;
    bool all_contiguous = true;
    auto charge = [&](const leir::ExprRef& e) {
      if (e->kind() != leir::ExprKind::kAccess) return;
      Stride st = inner ? stride_of(*e, inner->var) : Stride::kInvariant;
      bool small = elements_of(p, e->name(), inferred_shape(e->name())) <= options.cache_elements;
      switch (st) {
        case Stride::kInvariant: per += 0.1; break;
        case Stride::kUnit: per += 0.25; break;
        case Stride::kStrided:
          per += small ? 0.25 : 1.0;
          all_contiguous = false;
          break;
      }
    };
    leir::for_each_expr(s.lhs, charge);
    leir::for_each_expr(s.rhs, charge);
    if (inner && inner->kind == leir::LoopKind::kVectorized && all_contiguous)
      per /= std::max(1, options.vector_width);
    if (inner && inner->kind == leir::LoopKind::kUnrolled) per *= 0.9;
    block_cost[ctx.top_block] += executions * per;
  });

  double total = 0;
  for (size_t b = 0; b < p.blocks.size(); ++b)
    total += block_cost[b] / parallel_factor(p.blocks[b], options.threads);

  // Global intermediates are written to and read back from memory.
  if (table.ok()) {
    for (const leir::TensorInfo& t : table->tensors)
      if (t.role == leir::TensorRole::kIntermediate && t.scope == leir::Scope::kGlobal)
        total += 2.0 * static_cast<double>(leir::element_count(t.shape));
  }
  return total;
}

}  // namespace steptp::search
