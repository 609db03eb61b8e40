// leir/wellformed.cpp — the static checks of wellformed.h, in one walk over the program.
//
// Errors are reported in program order (the first offending statement or loop wins), except
// "read but never written", which needs the whole program and is reported after the walk for
// the earliest such read. Messages start with the problem and end with where it is:
//   tensor 'X' is read but never written (and is not declared); first read in block 0,
//   statement 1: `C^{f64,g}_{tx}=X^{f64,g}_{tx}`
#include "leir/wellformed.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "leir/printer.h"
#include "support/saturating.h"

namespace steptp::leir {
namespace {

constexpr int64_t kMaxExtent = int64_t{1} << 62;

// CUDA launch limits per axis class: threadIdx x/y/z, blockIdx x/y/z.
constexpr std::array<int64_t, 6> kCudaAxisLimit = {1024, 1024, 64, 2147483647, 65535, 65535};
constexpr int64_t kCudaThreadsPerBlock = 1024;
constexpr std::array<const char*, 6> kCudaAxisName = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                                      "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};

struct IllFormed {
  Error error;
};

[[noreturn]] void fail(std::string message) {
  throw IllFormed{Error::make("ill_formed", std::move(message))};
}

std::string quoted_stmt(const Stmt& s) {
  std::string text = print(s);
  constexpr size_t kShown = 120;
  if (text.size() > kShown) text = text.substr(0, kShown) + "...";
  return "`" + text + "`";
}

// Binding names of B loops: (t|b)(x|y|z)[a-z]*. Returns the axis class 0..5, or nullopt.
std::optional<int> binding_axis(std::string_view var) {
  if (var.size() < 2 || (var[0] != 't' && var[0] != 'b')) return std::nullopt;
  if (var[1] < 'x' || var[1] > 'z') return std::nullopt;
  for (size_t i = 2; i < var.size(); ++i)
    if (var[i] < 'a' || var[i] > 'z') return std::nullopt;
  return (var[0] == 't' ? 0 : 3) + (var[1] - 'x');
}

bool integer_valued_dtype(DType t) { return is_integer(t) || t == DType::kBool; }

struct StmtWhere {
  size_t block = 0;
  size_t stmt = 0;
  const Stmt* s = nullptr;
  std::string text() const {
    return "block " + std::to_string(block) + ", statement " + std::to_string(stmt) + ": " +
           quoted_stmt(*s);
  }
};

struct IntermediateUse {
  DType dtype = DType::kF64;
  size_t rank = 0;
  bool written = false;
  std::optional<StmtWhere> first_read;
  size_t first_read_order = 0;  // program-order ordinal of the statement of the first read
};

class Checker {
 public:
  Checker(const Program& p, const WellFormedOptions& o) : p_(p), options_(o) {}

  void run() {
    check_declarations();
    for (size_t i = 0; i < p_.blocks.size(); ++i) {
      block_index_ = i;
      stmt_in_block_ = 0;
      axis_product_.fill(1);
      walk(p_.blocks[i]);
    }
    check_reads_have_writes();
  }

 private:
  // ---- declarations -------------------------------------------------------------------------
  void check_declarations() {
    if (p_.decls.empty()) {
      if (options_.require_declarations)
        fail(
            "the program declares no tensors; declare its inputs and at least one output "
            "(e.g. 'input A f64[16,1024]', 'output C f64[16,1024]')");
      return;
    }
    bool has_output = false;
    for (size_t i = 0; i < p_.decls.size(); ++i) {
      const TensorDecl& d = p_.decls[i];
      if (!is_tensor_name(d.name))
        fail("declaration " + std::to_string(i) + ": '" + d.name +
             "' is not a tensor name (one capital letter followed by lower-case letters)");
      if (d.role == TensorRole::kIntermediate)
        fail("declaration of '" + d.name +
             "' has role intermediate; only input, param, const and output are declared");
      for (size_t k = 0; k < i; ++k)
        if (p_.decls[k].name == d.name)
          fail("tensor '" + d.name + "' is declared twice (declarations " + std::to_string(k) +
               " and " + std::to_string(i) + ")");
      for (size_t k = 0; k < d.shape.size(); ++k)
        if (d.shape[k] < 1)
          fail("declared tensor '" + d.name + "' has dimension " + std::to_string(k) + " of size " +
               std::to_string(d.shape[k]) + "; sizes must be at least 1");
      has_output |= d.role == TensorRole::kOutput;
      decls_[d.name] = &d;
    }
    if (!has_output) fail("the declarations name no output; declare at least one 'output' tensor");
  }

  // ---- loops and blocks ---------------------------------------------------------------------
  void walk(const Block& b) {
    size_t bound_before = bound_.size();
    std::array<int64_t, 6> saved_axes = axis_product_;
    for (const Loop& l : b.loops) enter_loop(l);
    for (const Item& item : b.body) {
      if (item.is_stmt()) {
        check_stmt(*item.stmt);
        ++stmt_in_block_;
        ++stmt_ordinal_;
      } else if (item.is_block()) {
        walk(*item.block);
      } else {
        fail("block " + std::to_string(block_index_) + " has an empty body item");
      }
    }
    bound_.resize(bound_before);
    axis_product_ = saved_axes;
  }

  std::string loop_where(const Loop& l) const {
    return "block " + std::to_string(block_index_) + ", loop '" + l.var + "'";
  }

  void enter_loop(const Loop& l) {
    if (l.extent < 1 || l.extent > kMaxExtent)
      fail("loop extent " + std::to_string(l.extent) + " is outside 1..2^62; in " + loop_where(l));
    if (!is_index_var_name(l.var))
      fail("'" + l.var +
           "' cannot name a loop variable (lower-case letters only, not a "
           "function name or inf); in block " +
           std::to_string(block_index_));
    for (const std::string& outer : bound_)
      if (outer == l.var)
        fail("loop variable '" + l.var +
             "' is bound twice in one loop nest; rename the inner "
             "loop; in " +
             loop_where(l));
    bound_.push_back(l.var);
    if (l.kind != LoopKind::kBound) return;
    std::optional<int> axis = binding_axis(l.var);
    if (!axis)
      fail("bound loop variable '" + l.var +
           "' is not a binding name (t|b)(x|y|z)[a-z]*, "
           "e.g. tx or bya; in " +
           loop_where(l));
    if (!options_.cuda_limits) return;
    int64_t& product = axis_product_[static_cast<size_t>(*axis)];
    product = saturating_mul(product, l.extent);
    if (product > kCudaAxisLimit[static_cast<size_t>(*axis)])
      fail(std::string("CUDA launch limit exceeded: ") + kCudaAxisName[static_cast<size_t>(*axis)] +
           " extent " + std::to_string(product) + " is over " +
           std::to_string(kCudaAxisLimit[static_cast<size_t>(*axis)]) + "; in " + loop_where(l));
    int64_t threads =
        saturating_mul(saturating_mul(axis_product_[0], axis_product_[1]), axis_product_[2]);
    if (threads > kCudaThreadsPerBlock)
      fail("CUDA launch limit exceeded: " + std::to_string(threads) +
           " threads per block is over 1024; in " + loop_where(l));
  }

  // ---- statements and expressions -----------------------------------------------------------
  void check_stmt(const Stmt& s) {
    StmtWhere where{block_index_, stmt_in_block_, &s};
    if (!s.lhs || !s.rhs)
      fail("a statement lacks a side; in block " + std::to_string(block_index_));
    if (s.lhs->kind() != ExprKind::kAccess)
      fail("the left-hand side is not a tensor reference; in " + where.text());
    const Expr& lhs = *s.lhs;
    if (auto it = decls_.find(lhs.name()); it != decls_.end()) {
      TensorRole role = it->second->role;
      if (role == TensorRole::kInput || role == TensorRole::kParam || role == TensorRole::kConst)
        fail("writes to " + std::string(tensor_role_name(role)) + " tensor '" + lhs.name() +
             "', which is read-only; in " + where.text());
    }
    note_access(lhs, where, /*write=*/true);
    for (const ExprRef& i : lhs.indices()) index_expr(*i, lhs.name(), where);
    value_expr(*s.rhs, where);
  }

  void check_var(const Expr& e, const StmtWhere& where) {
    for (const std::string& b : bound_)
      if (b == e.name()) return;
    fail("loop variable '" + e.name() + "' is used outside any loop that binds it; in " +
         where.text());
  }

  void value_expr(const Expr& e, const StmtWhere& where) {
    switch (e.kind()) {
      case ExprKind::kIndexVar:
        check_var(e, where);
        return;
      case ExprKind::kAccess:
        note_access(e, where, /*write=*/false);
        for (const ExprRef& i : e.indices()) index_expr(*i, e.name(), where);
        return;
      case ExprKind::kNumber:
      case ExprKind::kInf:
      case ExprKind::kNeg:
      case ExprKind::kBinary:
      case ExprKind::kCompare:
      case ExprKind::kCall:
        break;
    }
    for (const ExprRef& c : e.children()) value_expr(*c, where);
  }

  [[noreturn]] void not_integer(const std::string& what, const std::string& tensor,
                                const StmtWhere& where) {
    fail("index expressions must be integer-valued, but the subscript of '" + tensor +
         "' contains " + what + "; in " + where.text());
  }

  // An expression inside the subscript of `tensor`: integer arithmetic only.
  void index_expr(const Expr& e, const std::string& tensor, const StmtWhere& where) {
    switch (e.kind()) {
      case ExprKind::kNumber:
        if (!e.is_integer_literal())
          not_integer("the non-integer literal '" + e.number_spelling() + "'", tensor, where);
        return;
      case ExprKind::kInf:
        not_integer("inf", tensor, where);
      case ExprKind::kIndexVar:
        check_var(e, where);
        return;
      case ExprKind::kAccess: {
        note_access(e, where, /*write=*/false);
        DType t = e.dtype();
        if (auto it = decls_.find(e.name()); it != decls_.end()) t = it->second->dtype;
        if (!integer_valued_dtype(t))
          not_integer("a read of '" + e.name() + "' whose dtype " + std::string(dtype_name(t)) +
                          " is not an integer type",
                      tensor, where);
        for (const ExprRef& i : e.indices()) index_expr(*i, e.name(), where);
        return;
      }
      case ExprKind::kNeg:
        index_expr(*e.operand(), tensor, where);
        return;
      case ExprKind::kBinary:
        if (e.binary_op() == BinaryOp::kDiv)
          not_integer("'/' (use '//' for floor division)", tensor, where);
        if (e.binary_op() == BinaryOp::kPow) not_integer("'**'", tensor, where);
        index_expr(*e.lhs(), tensor, where);
        index_expr(*e.rhs(), tensor, where);
        return;
      case ExprKind::kCompare:
        for (const ExprRef& c : e.operands()) index_expr(*c, tensor, where);
        return;
      case ExprKind::kCall:
        switch (e.function()) {
          case Function::kExp:
          case Function::kLog:
          case Function::kSqrt:
          case Function::kErf:
            not_integer("the math function '" + std::string(function_name(e.function())) + "'",
                        tensor, where);
          case Function::kIfThenElse:
            // The condition may compare values of any type; only the branches become indices.
            value_expr(*e.args()[0], where);
            index_expr(*e.args()[1], tensor, where);
            index_expr(*e.args()[2], tensor, where);
            return;
          case Function::kMax:
          case Function::kMin:
          case Function::kAbs:
            for (const ExprRef& a : e.args()) index_expr(*a, tensor, where);
            return;
        }
        return;
    }
  }

  void note_access(const Expr& e, const StmtWhere& where, bool write) {
    if (auto it = decls_.find(e.name()); it != decls_.end()) {
      // A declared tensor's superscripts must say what its declaration says: a body that reads
      // an f64 input "as f16" (or a global one as shared) describes another program, and the
      // engines would disagree on what it computes.
      if (e.dtype() != it->second->dtype)
        fail("tensor '" + e.name() + "' is declared " + std::string(dtype_name(it->second->dtype)) +
             " but referenced as " + std::string(dtype_name(e.dtype())) + "; in " + where.text());
      if (e.scope() != Scope::kGlobal)
        fail("tensor '" + e.name() +
             "' is declared, so it lives in global memory, but is "
             "referenced with scope '" +
             std::string(1, scope_letter(e.scope())) + "'; in " + where.text());
      size_t rank = it->second->shape.size();
      if (e.indices().size() != rank)
        fail("tensor '" + e.name() + "' is declared with rank " + std::to_string(rank) +
             " but referenced with " + std::to_string(e.indices().size()) + " subscript" +
             (e.indices().size() == 1 ? "" : "s") + "; in " + where.text());
      return;
    }
    auto [it, first] = intermediates_.try_emplace(e.name());
    IntermediateUse& use = it->second;
    if (first) {
      use.dtype = e.dtype();
      use.rank = e.indices().size();
    } else {
      if (use.dtype != e.dtype())
        fail("intermediate '" + e.name() + "' is referenced as " +
             std::string(dtype_name(use.dtype)) + " and as " + std::string(dtype_name(e.dtype())) +
             "; use one dtype in every superscript; in " + where.text());
      if (use.rank != e.indices().size())
        fail("intermediate '" + e.name() + "' is referenced with " + std::to_string(use.rank) +
             " and with " + std::to_string(e.indices().size()) + " subscripts; in " + where.text());
    }
    if (write) {
      use.written = true;
    } else if (!use.first_read) {
      use.first_read = where;
      use.first_read_order = stmt_ordinal_;
    }
  }

  void check_reads_have_writes() {
    // Without declarations every tensor looks like an intermediate; inputs would be flagged.
    if (p_.decls.empty()) return;
    const std::pair<const std::string, IntermediateUse>* earliest = nullptr;
    for (const auto& entry : intermediates_) {
      const IntermediateUse& use = entry.second;
      if (use.written || !use.first_read) continue;
      if (!earliest || use.first_read_order < earliest->second.first_read_order) earliest = &entry;
    }
    if (earliest)
      fail("tensor '" + earliest->first +
           "' is read but never written (and is not declared); first read in " +
           earliest->second.first_read->text());
  }

  const Program& p_;
  WellFormedOptions options_;
  std::map<std::string, const TensorDecl*> decls_;
  std::map<std::string, IntermediateUse> intermediates_;
  std::vector<std::string> bound_;  // loop variables of the enclosing loops, outermost first
  std::array<int64_t, 6> axis_product_{};
  size_t block_index_ = 0;
  size_t stmt_in_block_ = 0;
  size_t stmt_ordinal_ = 0;
};

}  // namespace

Result<void> check_well_formed(const Program& p, const WellFormedOptions& options) {
  try {
    Checker(p, options).run();
    return ok();
  } catch (IllFormed& e) {
    return std::move(e.error);
  }
}

}  // namespace steptp::leir
