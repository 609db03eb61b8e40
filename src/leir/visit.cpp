#include "leir/visit.h"

namespace steptp::leir {

void for_each_expr(const ExprRef& e, const std::function<void(const ExprRef&)>& fn) {
  fn(e);
  for (const ExprRef& c : e->children()) for_each_expr(c, fn);
}

ExprRef rewrite(const ExprRef& e, const std::function<ExprRef(const ExprRef&)>& fn) {
  const auto& kids = e->children();
  std::vector<ExprRef> new_kids;
  bool changed = false;
  new_kids.reserve(kids.size());
  for (const ExprRef& c : kids) {
    ExprRef r = rewrite(c, fn);
    changed |= r != c;
    new_kids.push_back(std::move(r));
  }
  ExprRef node = changed ? e->with_children(std::move(new_kids)) : e;
  return fn(node);
}

namespace {

void walk(const Block& b, StmtContext& ctx,
          const std::function<void(const Stmt&, const StmtContext&)>& fn) {
  size_t depth = ctx.loops.size();
  for (const Loop& l : b.loops) ctx.loops.push_back(&l);
  for (const Item& item : b.body) {
    if (item.is_stmt()) {
      ctx.nest = &b;
      fn(*item.stmt, ctx);
      ++ctx.stmt_ordinal;
    } else {
      walk(*item.block, ctx, fn);
    }
  }
  ctx.loops.resize(depth);
}

Block rewrite_block(const Block& b, const std::function<ExprRef(const ExprRef&)>& fn) {
  Block out;
  out.loops = b.loops;
  for (const Item& item : b.body) {
    if (item.is_stmt()) {
      out.body.push_back(Item::of(Stmt{rewrite(item.stmt->lhs, fn), rewrite(item.stmt->rhs, fn)}));
    } else {
      out.body.push_back(Item::of(rewrite_block(*item.block, fn)));
    }
  }
  return out;
}

}  // namespace

void for_each_stmt(const std::vector<Block>& blocks,
                   const std::function<void(const Stmt&, const StmtContext&)>& fn) {
  StmtContext ctx;
  for (size_t i = 0; i < blocks.size(); ++i) {
    ctx.top_block = i;
    walk(blocks[i], ctx, fn);
  }
}

std::vector<Block> rewrite_exprs(const std::vector<Block>& blocks,
                                 const std::function<ExprRef(const ExprRef&)>& fn) {
  std::vector<Block> out;
  out.reserve(blocks.size());
  for (const Block& b : blocks) out.push_back(rewrite_block(b, fn));
  return out;
}

}  // namespace steptp::leir
