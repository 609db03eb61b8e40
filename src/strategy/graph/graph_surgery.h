// strategy/graph/graph_surgery.h — rewrite and legality helpers shared by the graph-level
// strategies (fusion/fission, inlining, splitting, CSE, concat/split, DCE, reorder).
//
// Pure queries and pure rewrites over the immutable IR; none decides a whole strategy's
// legality, each answers one precise question used by a numbered precondition.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "strategy/strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy::graph {

// The top-level block a site's "block" parameter names, or an Infeasible "<strategy>.no_such_block"
// (also for a nested path: graph strategies work on top-level blocks).
Outcome<size_t> top_block(const leir::Program& p, const Site& s, std::string_view strategy);

// Two item lists run under one header `loops`, all of `first` then all of `second` at every
// point (fused), or all points of `first` before all points of `second` (separate blocks). Both
// orders give the same values when every tensor that one list writes and the other touches is
// accessed, by direct statements only, through one identical subscript tuple that is injective
// over the header box: each element is then touched at one point only, in the same statement
// order either way. Returns the first tensor (by name) that breaks this, or "".
std::string interleaving_conflict(const std::vector<leir::Loop>& loops,
                                  const std::vector<leir::Item>& first,
                                  const std::vector<leir::Item>& second);

// Two item lists run under the loops `loops` one after the other at every point (fused) or
// each over all points (separate). Both orders give the same values when every tensor that one
// list writes and the other touches has, in every access (nested blocks included), each of
// `loops`' variables as the whole subscript at one fixed position: each point then touches its
// own slice of it. Returns the first tensor (by name) that breaks this, or "".
std::string slice_conflict(const std::vector<leir::Loop>& loops,
                           const std::vector<leir::Item>& first,
                           const std::vector<leir::Item>& second);

// Whether distinct points of the header box always give distinct subscript tuples.
bool is_injective_subscript(const std::vector<leir::ExprRef>& indices,
                            const std::vector<leir::Loop>& loops);

// Same number of loops with equal extents and kinds, position by position.
bool same_header_shape(const std::vector<leir::Loop>& a, const std::vector<leir::Loop>& b);

// `b` with its header variables renamed to `target`'s, position by position (simultaneously, so
// swapped names are safe). Requires same_header_shape.
leir::Block rename_header_to(const leir::Block& b, const std::vector<leir::Loop>& target,
                             surgery::NameAllocator& names);

// Simultaneous substitution of index variables (values and subscripts).
leir::ExprRef substitute_vars(const leir::ExprRef& e,
                              const std::map<std::string, leir::ExprRef, std::less<>>& with);

// The nodes of a value expression that are always evaluated, in pre-order: subscripts are not
// entered and only the condition of an if_then_else is (its branches are lazy).
std::vector<leir::ExprRef> eager_nodes(const leir::ExprRef& e);
// `e` with every eager occurrence of `target` replaced by `replacement`.
leir::ExprRef replace_eager(const leir::ExprRef& e, const leir::ExprRef& target,
                            const leir::ExprRef& replacement);
// A compound value worth naming: arithmetic (not & |), a call or a negation, reading a tensor.
bool is_compound_value(const leir::ExprRef& e);

// Floating-point precision order: fp8 0, f16/bf16 1, f32 2, f64 3; -1 for non-float types.
int float_rank(leir::DType t);

// Index expressions for the loop variables of `loops`, in order.
std::vector<leir::ExprRef> loop_indices(const std::vector<leir::Loop>& loops);
// The loops whose variables `e` mentions, in header order.
std::vector<leir::Loop> loops_mentioned(const std::vector<leir::Loop>& loops,
                                        const leir::ExprRef& e);

// The tensors an expression reads (accesses anywhere, subscripts included), sorted.
std::vector<std::string> tensors_read(const leir::ExprRef& e);
// Every tensor written by a statement of the blocks [from, to] (inclusive), nested included.
std::vector<std::string> tensors_written(const leir::Program& p, size_t from, size_t to);

// The block with every statement writing `tensor` removed (nested blocks left empty vanish).
leir::Block without_writes_to(const leir::Block& b, std::string_view tensor);

}  // namespace steptp::strategy::graph
