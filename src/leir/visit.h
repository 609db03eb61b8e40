// leir/visit.h — generic traversal and bottom-up rewriting of LEIR expressions and bodies.
//
// Rewriting never mutates: it returns new nodes and shares every unchanged subtree.
#pragma once

#include <functional>
#include <vector>

#include "leir/ir.h"

namespace steptp::leir {

// Pre-order visit of e and all its descendants (indices of accesses included).
void for_each_expr(const ExprRef& e, const std::function<void(const ExprRef&)>& fn);

// Bottom-up rewrite: children first, then fn(node with rewritten children). fn returns the
// node unchanged (the same pointer) to keep it.
ExprRef rewrite(const ExprRef& e, const std::function<ExprRef(const ExprRef&)>& fn);

// The loops enclosing a statement, outermost first, and the statement itself.
struct StmtContext {
  std::vector<const Loop*> loops;  // all enclosing loops, across nested blocks
  const Block* nest = nullptr;     // the block whose body holds the statement (its own nest)
  size_t top_block = 0;            // index of the enclosing top-level block
  size_t stmt_ordinal = 0;         // program-order position of the statement
};

// Every statement in program order with its enclosing loops.
void for_each_stmt(const std::vector<Block>& blocks,
                   const std::function<void(const Stmt&, const StmtContext&)>& fn);

// Rewrites every expression (lhs and rhs) of every statement; loops are kept.
std::vector<Block> rewrite_exprs(const std::vector<Block>& blocks,
                                 const std::function<ExprRef(const ExprRef&)>& fn);

}  // namespace steptp::leir
