// strategy/memory/staging.h — what the memory strategies share: resolving the reads (or the
// writes) of one tensor in one top-level block to a single subscript over the block's header
// loops, building the small copy/index nest that runs before or after that block, and renaming
// every access of a tensor inside a block.
//
// Pure queries and builders; legality beyond the subscript shape is decided by each strategy.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "leir/interval.h"
#include "leir/ir.h"
#include "strategy/strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy::memory {

// The accesses of one tensor in one top-level block, all with one subscript.
struct StagedAccess {
  size_t block = 0;
  leir::ExprRef access;                   // one of them (they are all equal)
  leir::DType dtype = leir::DType::kF64;  // the tensor's real dtype (declaration first)
  std::vector<leir::Loop> loops;          // the header loops the subscript uses, header order
  std::vector<leir::Interval> ranges;     // per subscript component, over those loops
  bool guarded = false;                   // some access sits in a lazy if_then_else branch
};

// The top-level block a site's "block" parameter names; Infeasible "<strategy>.no_such_block"
// or "<strategy>.not_top_level".
Outcome<size_t> top_level_block(const leir::Program& p, const Site& s, std::string_view strategy);

// The reads of `tensor` in block `block`. Infeasible codes (prefixed "<strategy>."): not_read,
// written_in_block, several_subscripts, gather_subscript, inner_loop_subscript, no_loop_index,
// unbounded_index, negative_index, guarded_read (a guarded read of anything but a declared
// input, param or const inside its shape: staging it would read what the block never reads).
Outcome<StagedAccess> resolve_reads(const leir::Program& p, size_t block, std::string_view tensor,
                                    std::string_view strategy);

// The writes of `tensor` in block `block` (codes: not_written, several_subscripts,
// gather_subscript, inner_loop_subscript, no_loop_index, unbounded_index).
Outcome<StagedAccess> resolve_writes(const leir::Program& p, size_t block, std::string_view tensor,
                                     std::string_view strategy);

// Tensors read but not written in a block, in order of first appearance.
std::vector<std::string> read_only_tensors(const leir::Block& b);

// A top-level nest running `stmt` over `loops`: bound loops stay bound where their iterations
// write disjoint elements (others become serial under a fresh name), every other loop becomes
// serial, and a nest left without a bound loop binds its first independent loop of extent
// <= 1024 to tx. No loops at all gives B^{1}_{tx=0}. Independence is judged on
// `write_witness` as the written access when given (the un-mapped subscript of a re-layout).
leir::Block make_nest(std::vector<leir::Loop> loops, leir::Stmt stmt, surgery::NameAllocator& names,
                      const leir::ExprRef& write_witness = nullptr);

// The block with every access of `tensor` (in any statement or subscript) replaced by fn(access).
leir::Block replace_accesses(const leir::Block& b, std::string_view tensor,
                             const std::function<leir::ExprRef(const leir::ExprRef&)>& fn);

// The same access with another name and/or scope, or other indices.
leir::ExprRef with_name_scope(const leir::ExprRef& access, const std::string& name,
                              leir::Scope scope);
leir::ExprRef with_indices(const leir::ExprRef& access, std::vector<leir::ExprRef> indices);

}  // namespace steptp::strategy::memory
