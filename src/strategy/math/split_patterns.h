// strategy/math/split_patterns.h — what the three split strategies (exponential, multiplicative,
// additive) share: naming one statement and one operand of it, the operands eligible as a shift,
// and the guarded previous element along a loop.
//
// Splits are identities (X = X+N-N, X = X/N*N, exp(X±R) = exp(X-N)·exp(N±R)); what they must
// establish is that N exists, is finite and (for division) is provably non-zero.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "strategy/strategy.h"

namespace steptp::strategy::split {

// One statement of the program: its block path, its position in the block's body, the
// statement, and the variables of every loop enclosing it.
struct StmtRef {
  BlockPath path;
  size_t index = 0;
  leir::Stmt stmt;
  std::vector<std::string> loop_vars;
};

// Every statement in program order.
std::vector<StmtRef> all_statements(const leir::Program& p);
// The statement a site names ("block", "stmt"), or an Infeasible "<code>no_such_statement".
Outcome<StmtRef> site_statement(const leir::Program& p, const Site& s, std::string_view code);
// Site(strategy).set_block(path).set_int("stmt", index).
Site statement_site(std::string_view strategy, const StmtRef& r);

// The tensor reads of an expression that are values (not inside a subscript, a comparison or
// an if_then_else, whose reads may be valid only under their guard), in pre-order;
// `operand=i` in a site is an index into this list.
std::vector<leir::ExprRef> value_operands(const leir::ExprRef& e);
// The same expression with its n-th node satisfying `pred` (pre-order, values only) replaced.
leir::ExprRef replace_nth(const leir::ExprRef& e, size_t n,
                          const std::function<bool(const leir::ExprRef&)>& pred,
                          const std::function<leir::ExprRef(const leir::ExprRef&)>& make);
leir::ExprRef replace_operand(const leir::ExprRef& e, size_t n,
                              const std::function<leir::ExprRef(const leir::ExprRef&)>& make);

// The statement and the value operand X a site names ("block", "stmt", "operand"), X checked
// with usable_operand; or an Infeasible (<code>no_such_statement, <code>no_such_operand, ...).
struct OperandRef {
  StmtRef stmt;
  size_t operand = 0;
  std::vector<leir::ExprRef> operands;  // value_operands of the statement
  leir::ExprRef x;
};
Outcome<OperandRef> site_operand(const leir::Program& p, const Site& s, std::string_view code);

// An operand usable as the shifted value X: a float tensor read that is not the statement's own
// output, or an Infeasible naming why not.
Check usable_operand(const leir::Program& p, const StmtRef& r, const leir::ExprRef& x,
                     std::string_view code);
// Refuses ("<code>may_overflow_exp") a value that becomes the argument of a new exp(·) when it
// reads a tensor some statement accumulates (T=T+…, T=T*…) or one computed from such a tensor:
// an accumulated sum of n terms easily exceeds 709, where exp overflows to inf and
// X/exp(N)*exp(N) turns into inf/inf = NaN.
Check exp_argument_in_range(const leir::Program& p, const leir::ExprRef& n, std::string_view code);
// `if_then_else(k-1<0,identity,X_{..,k-1})` for X whose last index is an enclosing loop
// variable k, X written before the statement's top-level block; or an Infeasible.
Outcome<leir::ExprRef> previous_element(const leir::Program& p, const StmtRef& r,
                                        const leir::ExprRef& x, const leir::ExprRef& identity,
                                        std::string_view code);

// The program with the statement replaced.
leir::Program with_statement(const leir::Program& p, const StmtRef& r, leir::Stmt s);

}  // namespace steptp::strategy::split
