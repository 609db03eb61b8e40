// strategy/graph/graph_surgery.cpp — helpers shared by the graph-level strategies.
#include "strategy/graph/graph_surgery.h"

#include <algorithm>
#include <set>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "leir/visit.h"

namespace steptp::strategy::graph {

using leir::Block;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

Outcome<size_t> top_block(const leir::Program& p, const Site& s, std::string_view strategy) {
  if (s.strategy() != strategy)
    return infeasible("site.wrong_strategy", "step {} is not a {} step", s.to_string(), strategy);
  Outcome<BlockPath> path = s.block();
  STEPTP_TRY(path);
  if (!path->is_top_level() || path->top >= p.blocks.size())
    return infeasible(std::string(strategy) + ".no_such_block",
                      "there is no top-level block {} (the program has {} blocks)",
                      path->to_string(), p.blocks.size());
  return path->top;
}

bool is_injective_subscript(const std::vector<ExprRef>& indices,
                            const std::vector<leir::Loop>& loops) {
  leir::VarRanges ranges;
  std::set<std::string> covered;
  for (const leir::Loop& l : loops) {
    ranges[l.var] = leir::Interval{0, l.extent - 1};
    if (l.extent == 1) covered.insert(l.var);
  }
  // A dimension injective in its own variables pins them all; together the dimensions must pin
  // every loop variable.
  for (const ExprRef& ix : indices)
    if (analysis::vars_of(ix).size() > 0 && analysis::is_injective_index(*ix, ranges))
      for (const std::string& v : analysis::vars_of(ix)) covered.insert(v);
  return std::all_of(loops.begin(), loops.end(),
                     [&](const leir::Loop& l) { return covered.count(l.var) > 0; });
}

namespace {
// The first tensor (by name) that one list writes and the other touches whose accesses — those
// of `a`, then those of `b` — fail `ok`, or "".
template <typename Ok>
std::string first_shared_conflict(const Block& a, const Block& b, const Ok& ok) {
  auto acc_a = analysis::accesses_by_tensor(a);
  auto acc_b = analysis::accesses_by_tensor(b);
  auto writes = [](const std::vector<analysis::Access>& l) {
    return std::any_of(l.begin(), l.end(), [](const analysis::Access& x) { return x.is_write; });
  };
  for (const auto& [tensor, list_a] : acc_a) {
    auto it = acc_b.find(tensor);
    if (it == acc_b.end()) continue;
    if (!writes(list_a) && !writes(it->second)) continue;
    std::vector<analysis::Access> all = list_a;
    all.insert(all.end(), it->second.begin(), it->second.end());
    if (!ok(all)) return tensor;
  }
  return "";
}
}  // namespace

std::string interleaving_conflict(const std::vector<leir::Loop>& loops,
                                  const std::vector<leir::Item>& first,
                                  const std::vector<leir::Item>& second) {
  Block a{loops, first};
  Block b{loops, second};
  std::set<const leir::Stmt*> direct;
  for (const Block* blk : {&a, &b})
    for (const leir::Item& it : blk->body)
      if (it.is_stmt()) direct.insert(&*it.stmt);
  return first_shared_conflict(a, b, [&](const std::vector<analysis::Access>& all) {
    const ExprRef& ref = all.front().ref;
    bool ok = is_injective_subscript(ref->indices(), loops);
    for (const analysis::Access& x : all)
      ok = ok && direct.count(x.stmt) > 0 && leir::equal(x.ref, ref);
    return ok;
  });
}

std::string slice_conflict(const std::vector<leir::Loop>& loops,
                           const std::vector<leir::Item>& first,
                           const std::vector<leir::Item>& second) {
  return first_shared_conflict(
      Block{loops, first}, Block{loops, second}, [&](const std::vector<analysis::Access>& all) {
        return std::all_of(loops.begin(), loops.end(), [&](const leir::Loop& l) {
          return analysis::position_fixed_by(all, l.var).has_value();
        });
      });
}

bool same_header_shape(const std::vector<leir::Loop>& a, const std::vector<leir::Loop>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].extent != b[i].extent || a[i].kind != b[i].kind) return false;
  return true;
}

Block rename_header_to(const Block& b, const std::vector<leir::Loop>& target,
                       surgery::NameAllocator& names) {
  STEPTP_CHECK(same_header_shape(b.loops, target), "rename_header_to: headers differ");
  Block out = b;
  std::vector<std::string> temp;
  for (size_t i = 0; i < b.loops.size(); ++i) {
    temp.push_back(names.fresh_loop_var());
    out = surgery::rename_var(out, b.loops[i].var, temp.back());
  }
  for (size_t i = 0; i < b.loops.size(); ++i)
    out = surgery::rename_var(out, temp[i], target[i].var);
  return out;
}

ExprRef substitute_vars(const ExprRef& e, const std::map<std::string, ExprRef, std::less<>>& with) {
  return leir::rewrite(e, [&](const ExprRef& n) -> ExprRef {
    if (n->kind() != ExprKind::kIndexVar) return n;
    auto it = with.find(n->name());
    return it == with.end() ? n : it->second;
  });
}

namespace {
void collect_eager(const ExprRef& e, std::vector<ExprRef>& out) {
  out.push_back(e);
  if (e->kind() == ExprKind::kAccess) return;
  if (e->kind() == ExprKind::kCall && e->function() == leir::Function::kIfThenElse) {
    collect_eager(e->args()[0], out);
    return;
  }
  for (const ExprRef& c : e->children()) collect_eager(c, out);
}
}  // namespace

std::vector<ExprRef> eager_nodes(const ExprRef& e) {
  std::vector<ExprRef> out;
  collect_eager(e, out);
  return out;
}

ExprRef replace_eager(const ExprRef& e, const ExprRef& target, const ExprRef& replacement) {
  if (leir::equal(e, target)) return replacement;
  if (e->kind() == ExprKind::kAccess) return e;
  std::vector<ExprRef> children = e->children();
  bool lazy = e->kind() == ExprKind::kCall && e->function() == leir::Function::kIfThenElse;
  bool changed = false;
  for (size_t i = 0; i < children.size() && (!lazy || i == 0); ++i) {
    ExprRef c = replace_eager(children[i], target, replacement);
    changed = changed || c != children[i];
    children[i] = std::move(c);
  }
  return changed ? e->with_children(std::move(children)) : e;
}

bool is_compound_value(const ExprRef& e) {
  bool kind_ok = false;
  switch (e->kind()) {
    case ExprKind::kBinary:
      kind_ok = e->binary_op() != leir::BinaryOp::kAnd && e->binary_op() != leir::BinaryOp::kOr;
      break;
    case ExprKind::kCall:
    case ExprKind::kNeg:
      kind_ok = true;
      break;
    case ExprKind::kNumber:
    case ExprKind::kInf:
    case ExprKind::kIndexVar:
    case ExprKind::kAccess:
    case ExprKind::kCompare:
      break;
  }
  return kind_ok && !tensors_read(e).empty();
}

int float_rank(leir::DType t) {
  switch (t) {
    case leir::DType::kF64:
      return 3;
    case leir::DType::kF32:
      return 2;
    case leir::DType::kF16:
    case leir::DType::kBF16:
      return 1;
    case leir::DType::kF8E4M3FN:
    case leir::DType::kF8E4M3FNUZ:
    case leir::DType::kF8E5M2:
      return 0;
    case leir::DType::kI8:
    case leir::DType::kI16:
    case leir::DType::kI32:
    case leir::DType::kI64:
    case leir::DType::kU8:
    case leir::DType::kU16:
    case leir::DType::kU32:
    case leir::DType::kU64:
    case leir::DType::kBool:
    case leir::DType::kC64:
    case leir::DType::kC128:
    case leir::DType::kU4:
    case leir::DType::kI4:
      return -1;
  }
  return -1;
}

std::vector<ExprRef> loop_indices(const std::vector<leir::Loop>& loops) {
  std::vector<ExprRef> out;
  for (const leir::Loop& l : loops) out.push_back(Expr::index_var(l.var));
  return out;
}

std::vector<leir::Loop> loops_mentioned(const std::vector<leir::Loop>& loops, const ExprRef& e) {
  std::set<std::string> vars = analysis::vars_of(e);
  std::vector<leir::Loop> out;
  for (const leir::Loop& l : loops)
    if (vars.count(l.var) > 0) out.push_back(l);
  return out;
}

std::vector<std::string> tensors_read(const ExprRef& e) {
  std::set<std::string> names;
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() == ExprKind::kAccess) names.insert(n->name());
  });
  return {names.begin(), names.end()};
}

std::vector<std::string> tensors_written(const leir::Program& p, size_t from, size_t to) {
  std::set<std::string> names;
  for (size_t i = from; i <= to && i < p.blocks.size(); ++i)
    for (const std::string& t : analysis::written_tensors(p.blocks[i])) names.insert(t);
  return {names.begin(), names.end()};
}

Block without_writes_to(const Block& b, std::string_view tensor) {
  Block out{b.loops, {}};
  for (const leir::Item& it : b.body) {
    if (it.is_stmt()) {
      if (it.stmt->lhs->name() != tensor) out.body.push_back(it);
      continue;
    }
    Block inner = without_writes_to(*it.block, tensor);
    if (!inner.body.empty()) out.body.push_back(leir::Item::of(std::move(inner)));
  }
  return out;
}

}  // namespace steptp::strategy::graph
