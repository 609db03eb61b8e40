// interp/compiler.cpp — Program → CompiledProgram: name resolution, affine addresses, static
// bounds, accumulation identities, fold classification and the chunking decision.
//
// Chunking rule (why values stay those of sequential execution): the innermost loop of a block
// whose body is only statements runs kChunk iterations per pass over each statement when
//   1. every LHS is affine; a statement whose LHS moves along the loop reads its own tensor only
//      at exactly the LHS address (so no iteration reads another iteration's element), and a
//      statement whose LHS stays put is a recognised fold `X = X op e` whose `e` never reads X;
//   2. no tensor written by one statement of the body is accessed by another statement of it;
//   3. no tensor it touches needs dynamic race tracking (race_analysis.cpp).
// Otherwise the body runs one point at a time, in order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "analysis/access.h"
#include "interp/compiled_program.h"
#include "interp/race_analysis.h"
#include "leir/interval.h"
#include "leir/printer.h"
#include "leir/wellformed.h"

namespace steptp::interp {
namespace {

using leir::BinaryOp;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

Error ill_formed(std::string message) { return Error::make("ill_formed", std::move(message)); }

// The accumulation-position self-read of a statement, if any, with its identity and fold kind.
struct Accumulation {
  const Expr* self_read = nullptr;
  double identity = 0.0;
  Fold fold = Fold::kNone;
  ExprRef fold_operand;
};

bool reads_tensor(const ExprRef& e, const std::string& name) {
  if (e->kind() == ExprKind::kAccess && e->name() == name) return true;
  for (const ExprRef& c : e->children())
    if (reads_tensor(c, name)) return true;
  return false;
}

// The identity and self-read come from the one rule of analysis/access.h; a fold (the fast path
// of X = X op e) is taken only when the self-read is a direct operand of the root and the other
// operand does not read X.
Accumulation classify_accumulation(const leir::Stmt& s) {
  Accumulation acc;
  std::optional<analysis::SelfRead> self = analysis::accumulation_self_read(s);
  if (!self) return acc;
  acc.self_read = self->read;
  acc.identity = self->identity;
  const ExprRef& r = s.rhs;
  auto set_fold = [&](Fold f, const ExprRef& operand) {
    if (!reads_tensor(operand, s.lhs->name())) {
      acc.fold = f;
      acc.fold_operand = operand;
    }
  };
  if (r->kind() == ExprKind::kBinary) {
    const bool self_left = acc.self_read == r->lhs().get();
    const bool self_right = acc.self_read == r->rhs().get();
    switch (r->binary_op()) {
      case BinaryOp::kAdd:
        if (self_left) set_fold(Fold::kAdd, r->rhs());
        if (self_right) set_fold(Fold::kAdd, r->lhs());
        break;
      case BinaryOp::kSub:
        if (self_left) set_fold(Fold::kSubRight, r->rhs());
        break;
      case BinaryOp::kMul:
        if (self_left) set_fold(Fold::kMul, r->rhs());
        if (self_right) set_fold(Fold::kMul, r->lhs());
        break;
      case BinaryOp::kDiv:
        set_fold(Fold::kDivInto, r->lhs());
        break;
      case BinaryOp::kFloorDiv:
        set_fold(Fold::kFloorDivInto, r->lhs());
        break;
      case BinaryOp::kMod:
        set_fold(Fold::kModInto, r->lhs());
        break;
      case BinaryOp::kPow:
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
        break;
    }
  } else if (r->kind() == ExprKind::kCall) {
    const bool is_max = r->function() == Function::kMax;
    const size_t other = acc.self_read == r->args()[0].get() ? 1 : 0;
    set_fold(is_max ? Fold::kMax : Fold::kMin, r->args()[other]);
  }
  return acc;
}

// The value op of a binary operator and of a function call (every one has its own).
ValueOp value_op(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return ValueOp::kAdd;
    case BinaryOp::kSub:
      return ValueOp::kSub;
    case BinaryOp::kMul:
      return ValueOp::kMul;
    case BinaryOp::kDiv:
      return ValueOp::kDiv;
    case BinaryOp::kFloorDiv:
      return ValueOp::kFloorDiv;
    case BinaryOp::kMod:
      return ValueOp::kMod;
    case BinaryOp::kPow:
      return ValueOp::kPow;
    case BinaryOp::kAnd:
      return ValueOp::kAnd;
    case BinaryOp::kOr:
      return ValueOp::kOr;
  }
  STEPTP_CHECK(false, "no value op for this operator");
  return ValueOp::kConst;
}

ValueOp value_op(Function f) {
  switch (f) {
    case Function::kMax:
      return ValueOp::kMax;
    case Function::kMin:
      return ValueOp::kMin;
    case Function::kExp:
      return ValueOp::kExp;
    case Function::kLog:
      return ValueOp::kLog;
    case Function::kSqrt:
      return ValueOp::kSqrt;
    case Function::kAbs:
      return ValueOp::kAbs;
    case Function::kErf:
      return ValueOp::kErf;
    case Function::kIfThenElse:
      return ValueOp::kSelect;
  }
  STEPTP_CHECK(false, "no value op for this operator");
  return ValueOp::kConst;
}

class Compiler {
 public:
  Compiler(CompiledProgram& cp) : cp_(cp) {}

  Result<void> compile_top(const leir::Block& b, size_t top) {
    top_ = top;
    TopBlock tb;
    STEPTP_TRY(compile_block(b, tb.block));
    cp_.blocks.push_back(std::move(tb));
    return ok();
  }

  // Per statement: the accesses it makes (reads and its write), for the later analyses.
  std::vector<std::vector<int>> stmt_accesses;
  // Per access: the B/P loop slots enclosing it.
  std::vector<std::vector<int>> access_parallel;
  // Per statement: its accumulation self-read access (or -1).
  std::vector<int> self_read_access;

 private:
  struct Scope {
    std::string name;
    int slot;
    int64_t extent;
    leir::LoopKind kind;
  };

  Result<void> compile_block(const leir::Block& b, CompiledBlock& out) {
    size_t depth = scope_.size();
    for (const leir::Loop& l : b.loops) {
      for (const Scope& s : scope_)
        if (s.name == l.var)
          return ill_formed(
              fmt::format("block {}: loop variable {} is declared twice in one nest", top_, l.var));
      if (l.extent < 1)
        return ill_formed(
            fmt::format("block {}: loop {} has extent {} < 1", top_, l.var, l.extent));
      int slot = cp_.num_slots++;
      cp_.slot_names.push_back(l.var);
      scope_.push_back(Scope{l.var, slot, l.extent, l.kind});
      out.loops.push_back(CompiledLoop{slot, l.extent, l.kind});
    }
    int64_t points = 1;
    for (const Scope& s : scope_) points = leir::sat_mul(points, s.extent);
    for (const leir::Item& item : b.body) {
      if (item.is_stmt()) {
        out.items.push_back(static_cast<int>(cp_.stmts.size()));
        STEPTP_TRY(compile_stmt(*item.stmt));
        cp_.statement_executions = leir::sat_add(cp_.statement_executions, points);
      } else {
        out.items.push_back(-1 - static_cast<int>(out.nested.size()));
        out.nested.emplace_back();
        STEPTP_TRY(compile_block(*item.block, out.nested.back()));
      }
    }
    scope_.resize(depth);
    return ok();
  }

  std::string where() const {
    return fmt::format("block {}, statement {} `{}`", top_, ordinal_, text_);
  }

  Result<void> compile_stmt(const leir::Stmt& s) {
    ordinal_ = cp_.stmts.size();
    text_ = leir::print(s);
    CompiledStmt cs;
    cs.top_block = top_;
    cs.ordinal = ordinal_;
    cs.text = text_;
    current_accesses_.clear();
    if (s.lhs->kind() != ExprKind::kAccess)
      return ill_formed(where() + ": the LHS is not a tensor");
    const leir::TensorInfo* t = cp_.table.find(s.lhs->name());
    if (t == nullptr) return ill_formed(where() + ": unknown tensor " + s.lhs->name());
    if (t->role != leir::TensorRole::kOutput && t->role != leir::TensorRole::kIntermediate)
      return ill_formed(fmt::format("{}: writes {} {}, which is read-only", where(),
                                    leir::tensor_role_name(t->role), t->name));
    cs.dtype = t->dtype;
    Accumulation acc = classify_accumulation(s);
    accumulation_ = &acc;
    self_read_ = -1;
    STEPTP_TRY(compile_access(*s.lhs, /*is_write=*/true, cs.lhs));
    STEPTP_TRY(compile_value(s.rhs, cs.rhs));
    if (acc.fold != Fold::kNone) {
      cs.fold = acc.fold;
      STEPTP_TRY(compile_value(acc.fold_operand, cs.fold_operand));
    }
    accumulation_ = nullptr;
    stmt_accesses.push_back(current_accesses_);
    self_read_access.push_back(self_read_);
    cp_.stmts.push_back(std::move(cs));
    return ok();
  }

  int find_slot(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->name == name) return it->slot;
    return -1;
  }

  Result<void> compile_access(const Expr& e, bool is_write, int& out) {
    const leir::TensorInfo* info = cp_.table.find(e.name());
    if (info == nullptr) return ill_formed(where() + ": unknown tensor " + e.name());
    int tensor = static_cast<int>(info - cp_.table.tensors.data());
    if (e.indices().size() != info->shape.size())
      return ill_formed(fmt::format("{}: {} has rank {} but is indexed with {} subscripts", where(),
                                    e.name(), info->shape.size(), e.indices().size()));
    Access a;
    a.tensor = tensor;
    a.is_write = is_write;
    if (accumulation_ != nullptr && accumulation_->self_read == &e && !is_write) {
      a.has_identity = true;
      a.identity = accumulation_->identity;
    }
    leir::VarRanges ranges;
    for (const Scope& s : scope_) ranges[s.name] = leir::Interval{0, s.extent - 1};
    a.static_in_bounds = true;
    const auto& strides = cp_.strides[tensor];
    std::map<int, int64_t> addr_terms;
    for (size_t d = 0; d < e.indices().size(); ++d) {
      const Expr& ix = *e.indices()[d];
      DimIndex dim;
      if (auto f = leir::affine_form(ix)) {
        dim.constant = f->constant;
        for (const auto& [var, c] : f->coefs) {
          int slot = find_slot(var);
          if (slot < 0)
            return ill_formed(fmt::format("{}: loop variable {} is not in scope", where(), var));
          dim.terms.emplace_back(slot, c);
          addr_terms[slot] = leir::sat_add(addr_terms[slot], leir::sat_mul(c, strides[d]));
        }
        a.base = leir::sat_add(a.base, leir::sat_mul(f->constant, strides[d]));
      } else {
        dim.affine = false;
        a.affine = false;
        STEPTP_TRY(compile_index(e.indices()[d], dim.node));
      }
      auto iv = leir::index_interval(ix, ranges);
      if (!iv || iv->lo < 0 || iv->hi >= info->shape[d]) a.static_in_bounds = false;
      a.dims.push_back(std::move(dim));
    }
    for (const auto& [slot, c] : addr_terms)
      if (c != 0) a.terms.emplace_back(slot, c);
    out = static_cast<int>(cp_.accesses.size());
    if (a.has_identity) self_read_ = out;
    cp_.accesses.push_back(std::move(a));
    current_accesses_.push_back(out);
    std::vector<int> parallel;
    for (const Scope& s : scope_)
      if (s.kind == leir::LoopKind::kBound || s.kind == leir::LoopKind::kParallel)
        parallel.push_back(s.slot);
    access_parallel.push_back(std::move(parallel));
    return ok();
  }

  Result<void> compile_index(const ExprRef& e, int& out) {
    IndexNode n;
    switch (e->kind()) {
      case ExprKind::kNumber:
        if (!e->is_integer_literal() || e->number_value() > 9.0e15)
          return ill_formed(fmt::format("{}: {} is not an integer index", where(), leir::print(e)));
        n.kind = IndexNode::Kind::kConst;
        n.value = static_cast<int64_t>(e->number_value());
        break;
      case ExprKind::kIndexVar:
        n.kind = IndexNode::Kind::kVar;
        n.slot = find_slot(e->name());
        if (n.slot < 0)
          return ill_formed(
              fmt::format("{}: loop variable {} is not in scope", where(), e->name()));
        break;
      case ExprKind::kNeg:
        n.kind = IndexNode::Kind::kNeg;
        STEPTP_TRY(compile_index(e->operand(), n.a));
        break;
      case ExprKind::kAccess:
        n.kind = IndexNode::Kind::kLoad;
        STEPTP_TRY(compile_access(*e, false, n.access));
        break;
      case ExprKind::kBinary: {
        switch (e->binary_op()) {
          case BinaryOp::kAdd:
            n.kind = IndexNode::Kind::kAdd;
            break;
          case BinaryOp::kSub:
            n.kind = IndexNode::Kind::kSub;
            break;
          case BinaryOp::kMul:
            n.kind = IndexNode::Kind::kMul;
            break;
          case BinaryOp::kFloorDiv:
            n.kind = IndexNode::Kind::kFloorDiv;
            break;
          case BinaryOp::kMod:
            n.kind = IndexNode::Kind::kMod;
            break;
          case BinaryOp::kDiv:
          case BinaryOp::kPow:
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            return ill_formed(fmt::format("{}: operator {} is not allowed in an index", where(),
                                          leir::binary_op_spelling(e->binary_op())));
        }
        STEPTP_TRY(compile_index(e->lhs(), n.a));
        STEPTP_TRY(compile_index(e->rhs(), n.b));
        break;
      }
      case ExprKind::kInf:
      case ExprKind::kCompare:
      case ExprKind::kCall:
        return ill_formed(
            fmt::format("{}: {} is not an integer index expression", where(), leir::print(e)));
    }
    out = static_cast<int>(cp_.indices.size());
    cp_.indices.push_back(n);
    return ok();
  }

  Result<void> compile_value(const ExprRef& e, int& out) {
    ValueNode n;
    switch (e->kind()) {
      case ExprKind::kNumber:
        n.op = ValueOp::kConst;
        n.value = e->number_value();
        break;
      case ExprKind::kInf:
        n.op = ValueOp::kConst;
        n.value = std::numeric_limits<double>::infinity();
        break;
      case ExprKind::kIndexVar:
        n.op = ValueOp::kVar;
        n.slot = find_slot(e->name());
        if (n.slot < 0)
          return ill_formed(
              fmt::format("{}: loop variable {} is not in scope", where(), e->name()));
        break;
      case ExprKind::kAccess:
        n.op = ValueOp::kLoad;
        STEPTP_TRY(compile_access(*e, false, n.access));
        break;
      case ExprKind::kNeg: {
        int a = -1;
        STEPTP_TRY(compile_value(e->operand(), a));
        if (cp_.values[a].op == ValueOp::kConst) {  // -1.0, -inf: fold the literal
          n.op = ValueOp::kConst;
          n.value = -cp_.values[a].value;
        } else {
          n.op = ValueOp::kNeg;
          n.args = {a};
        }
        break;
      }
      case ExprKind::kBinary: {
        n.op = value_op(e->binary_op());
        int a = -1, b = -1;
        STEPTP_TRY(compile_value(e->lhs(), a));
        STEPTP_TRY(compile_value(e->rhs(), b));
        n.args = {a, b};
        break;
      }
      case ExprKind::kCompare:
        n.op = ValueOp::kCompare;
        n.compares = e->compare_ops();
        for (const ExprRef& c : e->operands()) {
          int a = -1;
          STEPTP_TRY(compile_value(c, a));
          n.args.push_back(a);
        }
        if (n.args.size() != n.compares.size() + 1)
          return ill_formed(where() + ": malformed comparison chain");
        break;
      case ExprKind::kCall: {
        n.op = value_op(e->function());
        if (static_cast<int>(e->args().size()) != leir::function_arity(e->function()))
          return ill_formed(fmt::format("{}: {} takes {} arguments, not {}", where(),
                                        leir::function_name(e->function()),
                                        leir::function_arity(e->function()), e->args().size()));
        for (const ExprRef& c : e->args()) {
          int a = -1;
          STEPTP_TRY(compile_value(c, a));
          n.args.push_back(a);
        }
        break;
      }
    }
    out = static_cast<int>(cp_.values.size());
    cp_.values.push_back(std::move(n));
    return ok();
  }

  CompiledProgram& cp_;
  std::vector<Scope> scope_;
  size_t top_ = 0;
  size_t ordinal_ = 0;
  std::string text_;
  const Accumulation* accumulation_ = nullptr;
  int self_read_ = -1;
  std::vector<int> current_accesses_;
};

int64_t coef_of(const Access& a, int slot) {
  for (const auto& [s, c] : a.terms)
    if (s == slot) return c;
  return 0;
}

bool same_address(const Access& a, const Access& b) {
  return a.affine && b.affine && a.base == b.base && a.terms == b.terms;
}

void decide_chunking(CompiledProgram& cp, CompiledBlock& b,
                     const std::vector<std::vector<int>>& stmt_accesses,
                     const std::vector<bool>& tracked_access) {
  for (CompiledBlock& n : b.nested) decide_chunking(cp, n, stmt_accesses, tracked_access);
  if (b.loops.empty() || !b.nested.empty()) return;
  int lane = b.loops.back().slot;
  for (int si : b.items) {
    const CompiledStmt& s = cp.stmts[si];
    const Access& lhs = cp.accesses[s.lhs];
    if (!lhs.affine) return;
    bool moves = coef_of(lhs, lane) != 0;
    for (int ai : stmt_accesses[si]) {
      const Access& a = cp.accesses[ai];
      if (tracked_access[ai]) return;
      if (ai == s.lhs || a.tensor != lhs.tensor) continue;
      if (moves && !same_address(a, lhs)) return;
    }
    if (!moves && s.fold == Fold::kNone) return;
    for (int sj : b.items) {
      if (sj == si) continue;
      for (int aj : stmt_accesses[sj])
        if (cp.accesses[aj].tensor == lhs.tensor) return;
    }
  }
  b.chunked = true;
}

}  // namespace

Result<std::unique_ptr<CompiledProgram>> compile_program(const leir::Program& program,
                                                         const RunOptions& options) {
  leir::WellFormedOptions wf;
  wf.require_declarations = false;  // a body alone is runnable when it needs no inputs
  STEPTP_TRY(leir::check_well_formed(program, wf));
  auto cp = std::make_unique<CompiledProgram>();
  cp->program = program;
  cp->options = options;
  auto table = leir::infer_tensor_table(program);
  if (!table.ok()) return std::move(table).error();
  cp->table = std::move(table).value();

  int64_t bytes = 0;
  for (const leir::TensorInfo& t : cp->table.tensors) {
    if (!leir::is_executable(t.dtype))
      return ill_formed(fmt::format("tensor {} has dtype {}, which the interpreter cannot execute",
                                    t.name, leir::dtype_name(t.dtype)));
    std::vector<int64_t> strides(t.shape.size(), 1);
    for (size_t d = t.shape.size(); d-- > 1;)
      strides[d - 1] = leir::sat_mul(strides[d], t.shape[d]);
    for (int64_t e : t.shape)
      if (e < 0) return ill_formed(fmt::format("tensor {} has a negative extent", t.name));
    int64_t count = leir::element_count(t.shape);
    cp->strides.push_back(std::move(strides));
    cp->sizes.push_back(count);
    bytes = leir::sat_add(bytes, leir::sat_mul(count, 8 + 1));
  }
  if (bytes > options.memory_budget_bytes)
    return Error::make("budget_exceeded",
                       fmt::format("the program's tensors need {} bytes, over the memory budget of "
                                   "{} bytes",
                                   bytes, options.memory_budget_bytes));

  Compiler compiler(*cp);
  for (size_t i = 0; i < program.blocks.size(); ++i)
    STEPTP_TRY(compiler.compile_top(program.blocks[i], i));
  if (cp->statement_executions > options.work_budget)
    return Error::make(
        "budget_exceeded",
        fmt::format("the program executes {}{} statements, over the work budget of {}",
                    cp->statement_executions >= leir::kIndexLimit ? "at least " : "",
                    cp->statement_executions, options.work_budget));

  std::vector<bool> tracked_access(cp->accesses.size(), false);
  analyse_races(*cp, compiler.stmt_accesses, compiler.access_parallel, compiler.self_read_access,
                tracked_access);
  for (TopBlock& tb : cp->blocks)
    decide_chunking(*cp, tb.block, compiler.stmt_accesses, tracked_access);
  return cp;
}

}  // namespace steptp::interp
