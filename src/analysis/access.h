// analysis/access.h — what a loop nest reads and writes: the tensor accesses of a block (its
// statements and nested blocks), recognised accumulation statements, and the loop variables in
// scope with their ranges.
//
// Pure queries over the immutable IR; nothing here rewrites a program.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "leir/interval.h"
#include "leir/ir.h"

namespace steptp::analysis {

// The operator of an accumulation statement X = X op e (or a commuted form).
enum class AccumulateOp {
  kSum,       // X=X+e, X=e+X, X=X-e, X=X+a-b...: identity 0
  kProduct,   // X=X*e, X=e*X: identity 1
  kMax,       // X=max(X,e), X=max(e,X): identity -inf
  kMin,       // X=min(X,e), X=min(e,X): identity +inf
  kDivideBy,  // X=e/X, X=e//X, X=e%X: identity 1, not reassociable
};
std::string_view accumulate_op_name(AccumulateOp op);  // "sum" "product" "max" "min" "divide_by"

// An accumulation: the RHS reads the LHS element (same subscript) exactly once, in one of the
// recognised positions, and nothing else of the LHS tensor.
struct Accumulation {
  AccumulateOp op = AccumulateOp::kSum;
  bool reassociable() const { return op != AccumulateOp::kDivideBy; }
};
std::optional<Accumulation> match_accumulation(const leir::Stmt& s);

// The identity rule of the semantics of record (leir_spec §2.3): on the first write of an element,
// the statement's self-read sees the identity of its accumulation instead of garbage. The rule is
// wider than match_accumulation: any positive term of an n-ary +/- chain, any factor of a * chain,
// either argument of max/min, and the trailing divisor of / // %. The interpreter, the C and CUDA
// backends all take it from here so that they seed the same read with the same value.
struct SelfRead {
  const leir::Expr* read = nullptr;  // the node of the RHS that reads the LHS element
  double identity = 0.0;             // 0 for + -, 1 for * / // %, -inf for max, +inf for min
};
std::optional<SelfRead> accumulation_self_read(const leir::Stmt& s);

// One tensor reference inside a block.
struct Access {
  const leir::Stmt* stmt = nullptr;  // the statement it occurs in
  leir::ExprRef ref;                 // the kAccess node
  bool is_write = false;             // the statement's LHS
};

// Every tensor reference of the block's body (statements and nested blocks, subscripts of
// subscripts included), grouped by tensor name.
std::map<std::string, std::vector<Access>> accesses_by_tensor(const leir::Block& b);

// The first subscript position at which every one of `accesses` (of one tensor) is exactly the
// loop variable `var`, or nullopt (also for no accesses). Fixing `var` then fixes one slice of
// the tensor that no other value of `var` touches: what operator_fusion needs to fuse under a
// loop, and what the C backend needs to keep such a slice in a local array.
std::optional<size_t> position_fixed_by(const std::vector<Access>& accesses, std::string_view var);

// Tensors written anywhere in the block's body, sorted by name.
std::vector<std::string> written_tensors(const leir::Block& b);

// Every statement of the block's body, nested blocks included, in program order.
std::vector<const leir::Stmt*> statements(const leir::Block& b);

// The loop variables of the block's header and of its nested blocks, with their ranges
// [0, extent-1] (the largest extent when sibling nests reuse a name).
leir::VarRanges loop_ranges(const leir::Block& b);

// Whether an expression mentions the index variable (as a value or inside a subscript).
bool mentions_var(const leir::ExprRef& e, std::string_view var);
bool mentions_var(const leir::Block& b, std::string_view var);  // body and nested headers
// Whether an expression reads the tensor.
bool mentions_tensor(const leir::ExprRef& e, std::string_view tensor);

// Every loop variable name and tensor name in the program (declarations included).
std::set<std::string> loop_vars_in_use(const leir::Program& p);
std::set<std::string> tensor_names_in_use(const leir::Program& p);

// The index variables an expression mentions.
std::set<std::string> vars_of(const leir::ExprRef& e);

}  // namespace steptp::analysis
