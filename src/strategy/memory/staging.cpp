// strategy/memory/staging.cpp — resolving one tensor's accesses in a block to one subscript, and
// the copy/index nests the memory strategies insert (see staging.h).
#include "strategy/memory/staging.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "leir/printer.h"
#include "leir/visit.h"

namespace steptp::strategy::memory {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

namespace {

bool has_access(const ExprRef& e) {
  bool found = false;
  leir::for_each_expr(e,
                      [&](const ExprRef& n) { found = found || n->kind() == ExprKind::kAccess; });
  return found;
}

// Whether an access of `tensor` occurs inside a branch of an if_then_else (evaluated lazily, so
// the block may never read it at some points).
bool guarded_in(const ExprRef& e, std::string_view tensor, bool under_guard) {
  if (e->kind() == ExprKind::kAccess && e->name() == tensor && under_guard) return true;
  const bool lazy = e->kind() == ExprKind::kCall && e->function() == leir::Function::kIfThenElse;
  const auto& kids = e->children();
  for (size_t i = 0; i < kids.size(); ++i)
    if (guarded_in(kids[i], tensor, under_guard || (lazy && i > 0))) return true;
  return false;
}

bool guarded_in(const leir::Block& b, std::string_view tensor) {
  for (const leir::Stmt* s : analysis::statements(b))
    if (guarded_in(s->lhs, tensor, false) || guarded_in(s->rhs, tensor, false)) return true;
  return false;
}

// Shared by resolve_reads and resolve_writes: one subscript over header loops, bounded.
Outcome<StagedAccess> resolve_subscript(const leir::Program& p, size_t block,
                                        std::string_view tensor,
                                        const std::vector<ExprRef>& accesses,
                                        std::string_view strategy, std::string_view what) {
  const std::string c = std::string(strategy) + ".";
  const leir::Block& b = p.blocks[block];
  const ExprRef& first = accesses.front();
  for (const ExprRef& a : accesses)
    if (!leir::equal(a, first))
      return infeasible(c + "several_subscripts",
                        "block {} {} {} with more than one subscript ({} and {})", block, what,
                        tensor, leir::print(first), leir::print(a));
  std::set<std::string> used;
  for (const ExprRef& idx : first->indices()) {
    if (has_access(idx))
      return infeasible(c + "gather_subscript",
                        "{} in block {} is indexed through a tensor ({}), so its elements are "
                        "not known before the block runs",
                        leir::print(first), block, leir::print(idx));
    for (const std::string& v : analysis::vars_of(idx)) {
      if (!surgery::find_loop(b, v))
        return infeasible(c + "inner_loop_subscript",
                          "{} in block {} uses '{}', which is not a loop of the block's header",
                          leir::print(first), block, v);
      used.insert(v);
    }
  }
  if (used.empty())
    return infeasible(c + "no_loop_index",
                      "{} in block {} is indexed by no loop variable, so there is nothing to "
                      "stage per iteration",
                      leir::print(first), block);
  StagedAccess out;
  out.block = block;
  out.access = first;
  const leir::TensorDecl* decl = p.find_decl(tensor);
  out.dtype = decl != nullptr ? decl->dtype : first->dtype();
  leir::VarRanges ranges;
  for (const leir::Loop& l : b.loops) {
    if (!used.count(l.var)) continue;
    out.loops.push_back(l);
    ranges[l.var] = leir::Interval{0, l.extent - 1};
  }
  for (size_t d = 0; d < first->indices().size(); ++d) {
    std::optional<leir::Interval> iv = leir::index_interval(*first->indices()[d], ranges);
    if (!iv)
      return infeasible(c + "unbounded_index", "subscript {} of {} in block {} has no static bound",
                        d, leir::print(first), block);
    out.ranges.push_back(*iv);
  }
  return out;
}

}  // namespace

Outcome<size_t> top_level_block(const leir::Program& p, const Site& s, std::string_view strategy) {
  if (s.strategy() != strategy)
    return infeasible("site.wrong_strategy", "step {} is not a {} step", s.to_string(), strategy);
  Outcome<BlockPath> path = s.block();
  STEPTP_TRY(path);
  const std::string c = std::string(strategy) + ".";
  if (path->top >= p.blocks.size())
    return infeasible(c + "no_such_block", "block {} does not exist (the program has {} blocks)",
                      path->to_string(), p.blocks.size());
  if (!path->is_top_level())
    return infeasible(c + "not_top_level",
                      "block {} is nested; staging works on top-level blocks only",
                      path->to_string());
  return path->top;
}

Outcome<StagedAccess> resolve_reads(const leir::Program& p, size_t block, std::string_view tensor,
                                    std::string_view strategy) {
  const std::string c = std::string(strategy) + ".";
  const leir::Block& b = p.blocks[block];
  auto by_tensor = analysis::accesses_by_tensor(b);
  auto it = by_tensor.find(std::string(tensor));
  if (it == by_tensor.end())
    return infeasible(c + "not_read", "block {} does not read {}", block, tensor);
  std::vector<ExprRef> reads;
  for (const analysis::Access& a : it->second) {
    if (a.is_write)
      return infeasible(c + "written_in_block",
                        "block {} writes {} as well as reading it, so a copy made before the "
                        "block would go stale",
                        block, tensor);
    reads.push_back(a.ref);
  }
  Outcome<StagedAccess> resolved = resolve_subscript(p, block, tensor, reads, strategy, "reads");
  STEPTP_TRY(resolved);
  StagedAccess staged = std::move(resolved).value();
  for (size_t d = 0; d < staged.ranges.size(); ++d)
    if (staged.ranges[d].lo < 0)
      return infeasible(
          c + "negative_index", "subscript {} of {} in block {} ranges over [{},{}], below 0", d,
          leir::print(staged.access), block, staged.ranges[d].lo, staged.ranges[d].hi);
  staged.guarded = guarded_in(b, tensor);
  if (staged.guarded) {
    // The copy would read every element the subscript can reach, including those the guard
    // skips: only safe for a fully initialised declared tensor and an in-bounds subscript.
    const leir::TensorDecl* decl = p.find_decl(tensor);
    if (decl == nullptr || decl->role == leir::TensorRole::kOutput)
      return infeasible(c + "guarded_read",
                        "block {} reads {} only where an if_then_else allows it, and {} is not "
                        "a declared input, so a copy could read elements that were never written",
                        block, leir::print(staged.access), tensor);
    for (size_t d = 0; d < staged.ranges.size(); ++d)
      if (staged.ranges[d].hi >= decl->shape[d])
        return infeasible(c + "guarded_read",
                          "block {} reads {} only where an if_then_else allows it, and subscript "
                          "{} reaches {}, outside dimension {} of {} (extent {})",
                          block, leir::print(staged.access), d, staged.ranges[d].hi, d, tensor,
                          decl->shape[d]);
  }
  return staged;
}

Outcome<StagedAccess> resolve_writes(const leir::Program& p, size_t block, std::string_view tensor,
                                     std::string_view strategy) {
  const leir::Block& b = p.blocks[block];
  std::vector<ExprRef> writes;
  for (const leir::Stmt* s : analysis::statements(b))
    if (s->lhs->name() == tensor) writes.push_back(s->lhs);
  if (writes.empty())
    return infeasible(std::string(strategy) + ".not_written", "block {} does not write {}", block,
                      tensor);
  return resolve_subscript(p, block, tensor, writes, strategy, "writes");
}

std::vector<std::string> read_only_tensors(const leir::Block& b) {
  std::vector<std::string> written = analysis::written_tensors(b);
  std::vector<std::string> out;
  for (const leir::Stmt* s : analysis::statements(b)) {
    auto note = [&](const ExprRef& n) {
      if (n->kind() != ExprKind::kAccess) return;
      if (std::find(written.begin(), written.end(), n->name()) != written.end()) return;
      if (std::find(out.begin(), out.end(), n->name()) == out.end()) out.push_back(n->name());
    };
    for (const ExprRef& idx : s->lhs->indices()) leir::for_each_expr(idx, note);
    leir::for_each_expr(s->rhs, note);
  }
  return out;
}

leir::Block make_nest(std::vector<leir::Loop> loops, leir::Stmt stmt, surgery::NameAllocator& names,
                      const ExprRef& write_witness) {
  leir::Block nest;
  for (leir::Loop& l : loops) {
    if (l.kind != leir::LoopKind::kBound) l.kind = leir::LoopKind::kSerial;
    nest.loops.push_back(l);
  }
  if (nest.loops.empty()) {
    nest.loops.push_back(leir::Loop{leir::LoopKind::kBound, 1, "tx"});
    nest.body.push_back(leir::Item::of(std::move(stmt)));
    return nest;
  }
  // Independence is decided on the witness subscript when one is given (a bijective re-layout of
  // an injective subscript is injective, but the dependence test cannot see through // and %).
  leir::Block probe = nest;
  probe.body.push_back(
      leir::Item::of(leir::Stmt{write_witness ? write_witness : stmt.lhs, stmt.rhs}));
  nest.body.push_back(leir::Item::of(std::move(stmt)));
  auto rename = [&](size_t i, const std::string& to, leir::LoopKind kind) {
    std::string from = nest.loops[i].var;
    nest = surgery::rename_var(nest, from, to);
    probe = surgery::rename_var(probe, from, to);
    nest.loops[i].kind = kind;
    probe.loops[i].kind = kind;
  };
  // A bound loop whose iterations would write one element twice is a race: run it serially.
  for (size_t i = 0; i < nest.loops.size(); ++i) {
    const leir::Loop l = nest.loops[i];
    if (l.kind != leir::LoopKind::kBound || analysis::is_independent_loop(probe, l.var)) continue;
    rename(i, names.fresh_loop_var(), leir::LoopKind::kSerial);
  }
  bool bound = std::any_of(nest.loops.begin(), nest.loops.end(),
                           [](const leir::Loop& l) { return l.kind == leir::LoopKind::kBound; });
  if (bound || surgery::find_loop(nest, "tx")) return nest;
  for (size_t i = 0; i < nest.loops.size(); ++i) {
    const leir::Loop l = nest.loops[i];
    if (l.extent > analysis::LaunchLimits::kMaxThreadsX ||
        !analysis::is_independent_loop(probe, l.var))
      continue;
    rename(i, "tx", leir::LoopKind::kBound);
    break;
  }
  return nest;
}

leir::Block replace_accesses(const leir::Block& b, std::string_view tensor,
                             const std::function<ExprRef(const ExprRef&)>& fn) {
  return surgery::rewrite_body(b, [&](const ExprRef& e) -> ExprRef {
    if (e->kind() != ExprKind::kAccess || e->name() != tensor) return e;
    return fn(e);
  });
}

ExprRef with_name_scope(const ExprRef& access, const std::string& name, leir::Scope scope) {
  return Expr::access(name, access->dtype(), scope, access->indices());
}

ExprRef with_indices(const ExprRef& access, std::vector<ExprRef> indices) {
  return Expr::access(access->name(), access->dtype(), access->scope(), std::move(indices));
}

}  // namespace steptp::strategy::memory
