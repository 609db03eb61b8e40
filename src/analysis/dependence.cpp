// analysis/dependence.cpp — separation, reductions, reorder legality and launch limits.
#include "analysis/dependence.h"

#include <algorithm>
#include <cstdlib>

namespace steptp::analysis {

using leir::Block;
using leir::ExprRef;

bool is_injective_index(const leir::Expr& e, const leir::VarRanges& ranges) {
  std::optional<leir::AffineForm> form = leir::affine_form(e);
  if (!form) return false;
  std::vector<std::pair<int64_t, int64_t>> terms;  // |coef|, extent-1
  for (const auto& [var, coef] : form->coefs) {
    auto it = ranges.find(var);
    if (it == ranges.end()) return false;
    if (it->second.hi - it->second.lo == 0) continue;  // a single value: nothing to separate
    terms.emplace_back(std::llabs(coef), it->second.hi - it->second.lo);
  }
  std::sort(terms.begin(), terms.end());
  int64_t span = 0;
  for (const auto& [coef, range] : terms) {
    if (coef <= span) return false;
    span = leir::sat_add(span, leir::sat_mul(coef, range));
  }
  return true;
}

bool separates(const Block& b, std::string_view var, std::string_view tensor) {
  auto all = accesses_by_tensor(b);
  auto it = all.find(std::string(tensor));
  if (it == all.end()) return true;  // not touched: nothing to conflict on
  const std::vector<Access>& acc = it->second;
  size_t rank = acc.front().ref->indices().size();
  for (const Access& a : acc)
    if (a.ref->indices().size() != rank) return false;
  leir::VarRanges ranges = loop_ranges(b);
  for (size_t d = 0; d < rank; ++d) {
    const ExprRef& e = acc.front().ref->indices()[d];
    bool same = std::all_of(acc.begin(), acc.end(),
                            [&](const Access& a) { return leir::equal(a.ref->indices()[d], e); });
    if (same && mentions_var(e, var) && is_injective_index(*e, ranges)) return true;
  }
  return false;
}

bool is_pure_reduction(const Block& b, std::string_view tensor) {
  auto all = accesses_by_tensor(b);
  auto it = all.find(std::string(tensor));
  if (it == all.end()) return false;
  std::optional<AccumulateOp> kind;
  for (const Access& a : it->second) {
    // Every access must be the LHS or the self-reference of an accumulation into this tensor.
    if (a.stmt->lhs->name() != tensor) return false;
    if (!leir::equal(a.ref, it->second.front().ref)) return false;
    std::optional<Accumulation> acc = match_accumulation(*a.stmt);
    if (!acc || !acc->reassociable()) return false;
    if (kind && *kind != acc->op) return false;
    kind = acc->op;
  }
  return true;
}

std::optional<Accumulation> reduction_lane_accumulation(const Block& b, size_t pos) {
  if (pos + 1 != b.loops.size()) return std::nullopt;
  if (b.body.size() != 1 || !b.body[0].is_stmt()) return std::nullopt;
  const leir::Stmt& s = *b.body[0].stmt;
  if (mentions_var(s.lhs, b.loops[pos].var)) return std::nullopt;
  std::optional<Accumulation> acc = match_accumulation(s);
  if (!acc || !acc->reassociable()) return std::nullopt;
  return acc;
}

bool is_independent_loop(const Block& b, std::string_view var) {
  for (const std::string& t : written_tensors(b))
    if (!separates(b, var, t)) return false;
  return true;
}

std::string reorder_violation(const Block& b, const std::vector<std::string>& order) {
  for (const std::string& t : written_tensors(b)) {
    if (is_pure_reduction(b, t)) continue;
    // Conflicting iterations agree on every separating variable, so their order is decided by
    // the first non-separating variable where they differ: those must keep their relative order.
    std::vector<std::string> before, after;
    for (const leir::Loop& l : b.loops)
      if (l.extent > 1 && !separates(b, l.var, t)) before.push_back(l.var);
    for (const std::string& v : order)
      if (std::find(before.begin(), before.end(), v) != before.end()) after.push_back(v);
    if (before != after) return t;
  }
  return "";
}

std::optional<HardwareAxis> hardware_axis(std::string_view var) {
  if (var.size() < 2) return std::nullopt;
  if (var[0] != 't' && var[0] != 'b') return std::nullopt;
  if (var[1] != 'x' && var[1] != 'y' && var[1] != 'z') return std::nullopt;
  for (char c : var.substr(2))
    if (c < 'a' || c > 'z') return std::nullopt;
  return HardwareAxis{var[0], var[1]};
}

int64_t axis_limit(HardwareAxis a) {
  if (a.level == 't') {
    if (a.axis == 'z') return LaunchLimits::kMaxThreadsZ;
    return a.axis == 'x' ? LaunchLimits::kMaxThreadsX : LaunchLimits::kMaxThreadsY;
  }
  return a.axis == 'x' ? LaunchLimits::kMaxBlocksX : LaunchLimits::kMaxBlocksYZ;
}

namespace {
void collect_bound(const Block& b, std::vector<const leir::Loop*>& out) {
  for (const leir::Loop& l : b.loops)
    if (l.kind == leir::LoopKind::kBound) out.push_back(&l);
  for (const leir::Item& item : b.body)
    if (item.is_block()) collect_bound(*item.block, out);
}
}  // namespace

std::vector<const leir::Loop*> bound_loops(const Block& kernel) {
  std::vector<const leir::Loop*> out;
  collect_bound(kernel, out);
  return out;
}

int64_t threads_per_block(const Block& kernel) {
  int64_t n = 1;
  for (const leir::Loop* l : bound_loops(kernel)) {
    std::optional<HardwareAxis> a = hardware_axis(l->var);
    if (a && a->level == 't') n = leir::sat_mul(n, l->extent);
  }
  return n;
}

}  // namespace steptp::analysis
