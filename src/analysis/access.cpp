// analysis/access.cpp — access collection and accumulation recognition for loop nests.
#include "analysis/access.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "leir/visit.h"

namespace steptp::analysis {

using leir::BinaryOp;
using leir::Block;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;
using leir::Stmt;

std::string_view accumulate_op_name(AccumulateOp op) {
  switch (op) {
    case AccumulateOp::kSum:
      return "sum";
    case AccumulateOp::kProduct:
      return "product";
    case AccumulateOp::kMax:
      return "max";
    case AccumulateOp::kMin:
      return "min";
    case AccumulateOp::kDivideBy:
      return "divide_by";
  }
  return "?";
}

bool mentions_tensor(const ExprRef& e, std::string_view tensor) {
  bool found = false;
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() == ExprKind::kAccess && n->name() == tensor) found = true;
  });
  return found;
}

bool mentions_var(const ExprRef& e, std::string_view var) {
  bool found = false;
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() == ExprKind::kIndexVar && n->name() == var) found = true;
  });
  return found;
}

std::set<std::string> vars_of(const ExprRef& e) {
  std::set<std::string> out;
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() == ExprKind::kIndexVar) out.insert(n->name());
  });
  return out;
}

namespace {

bool is_self(const ExprRef& e, const ExprRef& lhs) { return leir::equal(e, lhs); }

// X+a-b+c: the self-reference at the bottom of a left spine of + and -, every other operand free
// of X. Also e+X (the commuted single form).
bool is_sum_form(const ExprRef& rhs, const ExprRef& lhs, const std::string& x) {
  const Expr* node = rhs.get();
  if (node->kind() == ExprKind::kBinary && node->binary_op() == BinaryOp::kAdd &&
      is_self(node->rhs(), lhs) && !mentions_tensor(node->lhs(), x))
    return true;
  bool any = false;
  while (node->kind() == ExprKind::kBinary &&
         (node->binary_op() == BinaryOp::kAdd || node->binary_op() == BinaryOp::kSub)) {
    if (mentions_tensor(node->rhs(), x)) return false;
    any = true;
    if (is_self(node->lhs(), lhs)) return true;
    node = node->lhs().get();
  }
  (void)any;
  return false;
}

bool is_product_form(const ExprRef& rhs, const ExprRef& lhs, const std::string& x) {
  const Expr* node = rhs.get();
  if (node->kind() == ExprKind::kBinary && node->binary_op() == BinaryOp::kMul &&
      is_self(node->rhs(), lhs) && !mentions_tensor(node->lhs(), x))
    return true;
  while (node->kind() == ExprKind::kBinary && node->binary_op() == BinaryOp::kMul) {
    if (mentions_tensor(node->rhs(), x)) return false;
    if (is_self(node->lhs(), lhs)) return true;
    node = node->lhs().get();
  }
  return false;
}

}  // namespace

std::optional<Accumulation> match_accumulation(const Stmt& s) {
  const ExprRef& rhs = s.rhs;
  const std::string& x = s.lhs->name();
  if (!mentions_tensor(rhs, x)) return std::nullopt;
  // Parentheses marks do not matter: equality ignores them.
  if (is_sum_form(rhs, s.lhs, x)) return Accumulation{AccumulateOp::kSum};
  if (is_product_form(rhs, s.lhs, x)) return Accumulation{AccumulateOp::kProduct};
  if (rhs->kind() == ExprKind::kCall &&
      (rhs->function() == Function::kMax || rhs->function() == Function::kMin)) {
    const auto& a = rhs->args();
    bool self_first = is_self(a[0], s.lhs) && !mentions_tensor(a[1], x);
    bool self_second = is_self(a[1], s.lhs) && !mentions_tensor(a[0], x);
    if (self_first || self_second)
      return Accumulation{rhs->function() == Function::kMax ? AccumulateOp::kMax
                                                            : AccumulateOp::kMin};
  }
  if (rhs->kind() == ExprKind::kBinary &&
      (rhs->binary_op() == BinaryOp::kDiv || rhs->binary_op() == BinaryOp::kFloorDiv ||
       rhs->binary_op() == BinaryOp::kMod) &&
      is_self(rhs->rhs(), s.lhs) && !mentions_tensor(rhs->lhs(), x))
    return Accumulation{AccumulateOp::kDivideBy};
  return std::nullopt;
}

namespace {

// Terms of an n-ary +/- chain with their signs, and factors of an n-ary * chain.
void flatten_sum(const ExprRef& e, bool positive, std::vector<std::pair<ExprRef, bool>>& out) {
  if (e->kind() == ExprKind::kBinary && e->binary_op() == BinaryOp::kAdd) {
    flatten_sum(e->lhs(), positive, out);
    flatten_sum(e->rhs(), positive, out);
  } else if (e->kind() == ExprKind::kBinary && e->binary_op() == BinaryOp::kSub) {
    flatten_sum(e->lhs(), positive, out);
    flatten_sum(e->rhs(), !positive, out);
  } else {
    out.emplace_back(e, positive);
  }
}

void flatten_product(const ExprRef& e, std::vector<ExprRef>& out) {
  if (e->kind() == ExprKind::kBinary && e->binary_op() == BinaryOp::kMul) {
    flatten_product(e->lhs(), out);
    flatten_product(e->rhs(), out);
  } else {
    out.push_back(e);
  }
}

}  // namespace

std::optional<SelfRead> accumulation_self_read(const Stmt& s) {
  const ExprRef& r = s.rhs;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (r->kind()) {
    case ExprKind::kBinary:
      switch (r->binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub: {
          std::vector<std::pair<ExprRef, bool>> terms;
          flatten_sum(r, true, terms);
          for (const auto& [t, positive] : terms)
            if (positive && is_self(t, s.lhs)) return SelfRead{t.get(), 0.0};
          return std::nullopt;
        }
        case BinaryOp::kMul: {
          std::vector<ExprRef> factors;
          flatten_product(r, factors);
          for (const ExprRef& f : factors)
            if (is_self(f, s.lhs)) return SelfRead{f.get(), 1.0};
          return std::nullopt;
        }
        case BinaryOp::kDiv:
        case BinaryOp::kFloorDiv:
        case BinaryOp::kMod:
          if (is_self(r->rhs(), s.lhs)) return SelfRead{r->rhs().get(), 1.0};
          return std::nullopt;
        case BinaryOp::kPow:
        case BinaryOp::kAnd:
        case BinaryOp::kOr:
          return std::nullopt;
      }
      return std::nullopt;
    case ExprKind::kCall:
      if ((r->function() == Function::kMax || r->function() == Function::kMin) &&
          r->args().size() == 2) {
        double identity = r->function() == Function::kMax ? -kInf : kInf;
        for (const ExprRef& a : r->args())
          if (is_self(a, s.lhs)) return SelfRead{a.get(), identity};
      }
      return std::nullopt;
    case ExprKind::kNumber:
    case ExprKind::kInf:
    case ExprKind::kIndexVar:
    case ExprKind::kAccess:
    case ExprKind::kNeg:
    case ExprKind::kCompare:
      return std::nullopt;
  }
  return std::nullopt;
}

namespace {

void collect_statements(const Block& b, std::vector<const Stmt*>& out) {
  for (const leir::Item& item : b.body) {
    if (item.is_stmt())
      out.push_back(&*item.stmt);
    else
      collect_statements(*item.block, out);
  }
}

void collect_ranges(const Block& b, leir::VarRanges& out) {
  for (const leir::Loop& l : b.loops) {
    auto it = out.find(l.var);
    if (it == out.end())
      out[l.var] = leir::Interval{0, l.extent - 1};
    else
      it->second.hi = std::max(it->second.hi, l.extent - 1);
  }
  for (const leir::Item& item : b.body)
    if (item.is_block()) collect_ranges(*item.block, out);
}

}  // namespace

std::vector<const Stmt*> statements(const Block& b) {
  std::vector<const Stmt*> out;
  collect_statements(b, out);
  return out;
}

leir::VarRanges loop_ranges(const Block& b) {
  leir::VarRanges out;
  collect_ranges(b, out);
  return out;
}

std::map<std::string, std::vector<Access>> accesses_by_tensor(const Block& b) {
  std::map<std::string, std::vector<Access>> out;
  for (const Stmt* s : statements(b)) {
    out[s->lhs->name()].push_back(Access{s, s->lhs, true});
    // Tensors read inside the LHS subscript are reads.
    for (const ExprRef& idx : s->lhs->indices()) {
      leir::for_each_expr(idx, [&](const ExprRef& n) {
        if (n->kind() == ExprKind::kAccess) out[n->name()].push_back(Access{s, n, false});
      });
    }
    leir::for_each_expr(s->rhs, [&](const ExprRef& n) {
      if (n->kind() == ExprKind::kAccess) out[n->name()].push_back(Access{s, n, false});
    });
  }
  return out;
}

std::optional<size_t> position_fixed_by(const std::vector<Access>& accesses, std::string_view var) {
  if (accesses.empty()) return std::nullopt;
  const size_t rank = accesses.front().ref->indices().size();
  for (size_t k = 0; k < rank; ++k) {
    bool every = true;
    for (const Access& a : accesses) {
      const auto& idx = a.ref->indices();
      every = every && k < idx.size() && idx[k]->kind() == leir::ExprKind::kIndexVar &&
              idx[k]->name() == var;
    }
    if (every) return k;
  }
  return std::nullopt;
}

std::vector<std::string> written_tensors(const Block& b) {
  std::set<std::string> names;
  for (const Stmt* s : statements(b)) names.insert(s->lhs->name());
  return {names.begin(), names.end()};
}

bool mentions_var(const Block& b, std::string_view var) {
  for (const leir::Loop& l : b.loops)
    if (l.var == var) return true;
  for (const leir::Item& item : b.body) {
    if (item.is_stmt()) {
      if (mentions_var(item.stmt->lhs, var) || mentions_var(item.stmt->rhs, var)) return true;
    } else if (mentions_var(*item.block, var)) {
      return true;
    }
  }
  return false;
}

namespace {

void collect_names(const Block& b, std::set<std::string>& vars, std::set<std::string>& tensors) {
  for (const leir::Loop& l : b.loops) vars.insert(l.var);
  auto visit = [&](const ExprRef& e) {
    leir::for_each_expr(e, [&](const ExprRef& n) {
      if (n->kind() == ExprKind::kIndexVar) vars.insert(n->name());
      if (n->kind() == ExprKind::kAccess) tensors.insert(n->name());
    });
  };
  for (const leir::Item& item : b.body) {
    if (item.is_stmt()) {
      visit(item.stmt->lhs);
      visit(item.stmt->rhs);
    } else {
      collect_names(*item.block, vars, tensors);
    }
  }
}

}  // namespace

std::set<std::string> loop_vars_in_use(const leir::Program& p) {
  std::set<std::string> vars, tensors;
  for (const Block& b : p.blocks) collect_names(b, vars, tensors);
  return vars;
}

std::set<std::string> tensor_names_in_use(const leir::Program& p) {
  std::set<std::string> vars, tensors;
  for (const Block& b : p.blocks) collect_names(b, vars, tensors);
  for (const leir::TensorDecl& d : p.decls) tensors.insert(d.name);
  return tensors;
}

}  // namespace steptp::analysis
