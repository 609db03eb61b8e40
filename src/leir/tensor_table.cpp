// leir/tensor_table.cpp — the table of every tensor a program touches (see tensor_table.h).
//
// Intermediate shapes are the bounding box of all writes: each write subscript is bounded by
// exact interval arithmetic (leir/interval.h) over the enclosing loop ranges. A write subscript
// that cannot be bounded statically (a tensor reference inside it) is ill_formed for an
// intermediate, since its extent would be unknowable before running.
#include "leir/tensor_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "leir/interval.h"
#include "leir/visit.h"

namespace steptp::leir {

const TensorInfo* TensorTable::find(std::string_view name) const {
  for (const TensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

struct Pending {
  TensorInfo info;
  size_t rank = 0;
  bool written = false;
  std::vector<Interval> box;  // union of written index intervals, per dimension
  std::string first_reader;   // a statement that reads it, for the "never written" message
};

Error ill_formed(std::string message) { return Error::make("ill_formed", std::move(message)); }

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

}  // namespace

Result<TensorTable> infer_tensor_table(const Program& p) {
  TensorTable table;
  for (const TensorDecl& d : p.decls) {
    if (table.find(d.name) != nullptr)
      return ill_formed(fmt::format("tensor {} is declared twice", d.name));
    table.tensors.push_back(TensorInfo{d.name, d.role, d.dtype, Scope::kGlobal, d.shape});
  }

  std::vector<Pending> pending;  // intermediates by first appearance
  std::map<std::string, size_t, std::less<>> index_of;
  std::optional<Error> failure;

  auto note_reference = [&](const Expr& access, size_t block, size_t ordinal) -> Pending* {
    if (p.find_decl(access.name()) != nullptr) return nullptr;
    auto it = index_of.find(access.name());
    if (it == index_of.end()) {
      Pending fresh;
      fresh.info =
          TensorInfo{access.name(), TensorRole::kIntermediate, access.dtype(), access.scope(), {}};
      fresh.rank = access.indices().size();
      fresh.first_reader = fmt::format("block {}, statement {}", block, ordinal);
      it = index_of.emplace(access.name(), pending.size()).first;
      pending.push_back(std::move(fresh));
    }
    Pending& t = pending[it->second];
    if (!failure && (t.rank != access.indices().size() || t.info.dtype != access.dtype())) {
      failure =
          ill_formed(fmt::format("intermediate {} is referenced as {}-d {} in block {}, statement "
                                 "{}, but first as {}-d {}",
                                 access.name(), access.indices().size(), dtype_name(access.dtype()),
                                 block, ordinal, t.rank, dtype_name(t.info.dtype)));
    }
    return &t;
  };

  for_each_stmt(p.blocks, [&](const Stmt& s, const StmtContext& ctx) {
    if (failure) return;
    // Program order of first appearance: the LHS is written after the RHS is read, but the
    // reference orders names by their first textual appearance, which is the LHS.
    Pending* lhs = note_reference(*s.lhs, ctx.top_block, ctx.stmt_ordinal);
    auto visit_reads = [&](const ExprRef& e) {
      for_each_expr(e, [&](const ExprRef& n) {
        if (n->kind() == ExprKind::kAccess) note_reference(*n, ctx.top_block, ctx.stmt_ordinal);
      });
    };
    for (const ExprRef& idx : s.lhs->indices()) visit_reads(idx);
    visit_reads(s.rhs);
    if (lhs == nullptr || failure) return;

    VarRanges ranges;
    for (const Loop* l : ctx.loops) ranges[l->var] = Interval{0, l->extent - 1};
    std::vector<Interval> box;
    for (size_t d = 0; d < s.lhs->indices().size(); ++d) {
      auto iv = index_interval(*s.lhs->indices()[d], ranges);
      if (!iv) {
        failure = ill_formed(fmt::format(
            "write to intermediate {} in block {}, statement {} has subscript {} with no static "
            "bound (tensor references and unbounded divisions are not allowed in the subscripts "
            "of an intermediate's writes)",
            s.lhs->name(), ctx.top_block, ctx.stmt_ordinal, d));
        return;
      }
      if (iv->lo < 0) {
        failure = ill_formed(fmt::format(
            "write to {} may have a negative index (block {}, statement {}: subscript {} "
            "ranges over [{},{}])",
            s.lhs->name(), ctx.top_block, ctx.stmt_ordinal, d, iv->lo, iv->hi));
        return;
      }
      box.push_back(*iv);
    }
    if (!lhs->written) {
      lhs->box = box;
      lhs->written = true;
    } else {
      for (size_t d = 0; d < box.size(); ++d) {
        lhs->box[d].lo = std::min(lhs->box[d].lo, box[d].lo);
        lhs->box[d].hi = std::max(lhs->box[d].hi, box[d].hi);
      }
    }
  });
  if (failure) return *failure;

  for (Pending& t : pending) {
    if (!t.written)
      return ill_formed(fmt::format("intermediate {} is read ({}) but never written", t.info.name,
                                    t.first_reader));
    for (const Interval& iv : t.box) t.info.shape.push_back(iv.hi + 1);
    if (element_count(t.info.shape) >= kIndexLimit)
      return ill_formed(
          fmt::format("intermediate {} has an inferred shape {} whose element "
                      "count overflows",
                      t.info.name, shape_text(t.info.shape)));
    table.tensors.push_back(std::move(t.info));
  }
  return table;
}

}  // namespace steptp::leir
