#include "codegen/lowering_facts.h"

#include <algorithm>
#include <limits>
#include <set>

#include "leir/visit.h"
#include "support/error.h"

namespace steptp::codegen {
namespace {

using leir::BinaryOp;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

// The self-reference: the LHS access itself (same tensor, superscript and subscript).
bool is_self(const ExprRef& e, const leir::Stmt& s) { return leir::equal(e, s.lhs); }

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

std::optional<double> accumulation_identity(const leir::Stmt& s) {
  const ExprRef& r = s.rhs;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (r->kind()) {
    case ExprKind::kBinary:
      switch (r->binary_op()) {
        case BinaryOp::kAdd: case BinaryOp::kSub: {
          std::vector<std::pair<ExprRef, bool>> terms;
          flatten_sum(r, true, terms);
          for (const auto& [t, positive] : terms)
            if (positive && is_self(t, s)) return 0.0;
          return std::nullopt;
        }
        case BinaryOp::kMul: {
          std::vector<ExprRef> factors;
          flatten_product(r, factors);
          for (const ExprRef& f : factors)
            if (is_self(f, s)) return 1.0;
          return std::nullopt;
        }
        case BinaryOp::kDiv: case BinaryOp::kFloorDiv: case BinaryOp::kMod:
          if (is_self(r->rhs(), s)) return 1.0;
          return std::nullopt;
        case BinaryOp::kPow: case BinaryOp::kAnd: case BinaryOp::kOr:
          return std::nullopt;
      }
      return std::nullopt;
    case ExprKind::kCall:
      if (r->function() == Function::kMax || r->function() == Function::kMin) {
        if (is_self(r->args()[0], s) || is_self(r->args()[1], s))
          return r->function() == Function::kMax ? -kInf : kInf;
      }
      return std::nullopt;
    case ExprKind::kNumber: case ExprKind::kInf: case ExprKind::kIndexVar: case ExprKind::kAccess:
    case ExprKind::kNeg: case ExprKind::kCompare:
      return std::nullopt;
  }
  return std::nullopt;
}

void collect_index_vars(const ExprRef& e, std::vector<std::string>& out) {
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() == ExprKind::kIndexVar &&
        std::find(out.begin(), out.end(), n->name()) == out.end())
      out.push_back(n->name());
  });
}

bool uses_var(const ExprRef& e, const std::string& var) {
  bool found = false;
  leir::for_each_expr(e, [&](const ExprRef& n) {
    if (n->kind() == ExprKind::kIndexVar && n->name() == var) found = true;
  });
  return found;
}

bool lhs_uses_var(const leir::Stmt& s, const std::string& var) {
  for (const ExprRef& i : s.lhs->indices())
    if (uses_var(i, var)) return true;
  return false;
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
      if (!lhs_uses_var(*item.stmt, var)) return false;
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
    if (lhs_uses_var(*f.stmt, l->var)) out.push_back(l);
  return out;
}

}  // namespace steptp::codegen
