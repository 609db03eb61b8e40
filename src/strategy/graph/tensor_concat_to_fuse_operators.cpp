// strategy/graph/tensor_concat_to_fuse_operators.cpp — fuses two adjacent, independent blocks
// that apply the same operator to different tensors into one operator over stacked tensors
// with an extra leading index: copy the differing operands in, compute once, copy results out.
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}[E^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}+C^{f64,g}_{tx,a};];
//           B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+C^{f64,g}_{tx,a};];
//   after:
//   B^{16}_{tx=0}L^{32}_{a=0}[G^{f64,g}_{0,tx,a}=A^{f64,g}_{tx,a};G^{f64,g}_{1,tx,a}=D^{f64,g}_{tx,a};];
//           L^{2}_{c=0}B^{16}_{tx=0}L^{32}_{a=0}[H^{f64,g}_{c,tx,a}=G^{f64,g}_{c,tx,a}+C^{f64,g}_{tx,a};];
//           B^{16}_{tx=0}L^{32}_{a=0}[E^{f64,g}_{tx,a}=H^{f64,g}_{0,tx,a};F^{f64,g}_{tx,a}=H^{f64,g}_{1,tx,a};];
//
// Preconditions: 1. block+1 exists (no_next_block); 2. each block is one statement
// (not_single_statement) and not a plain copy (copy); 3. same header shape; the second's
// variables are renamed to the first's (header_mismatch); 4. the two are independent: different
// outputs, neither reads the other's output (dependent); 5. the same output subscript and dtype
// (output_mismatch); 6. the same operator tree, leaf for leaf: equal numbers and variables,
// shared accesses equal, self-reads in the same place, differing accesses of one dtype
// (different_operators, dtype_mismatch), no differing access inside an if_then_else branch
// (guarded_operand: the copy would read it eagerly), at least one differing access
// (identical_computations); a statement reads its own output only as that self-read
// (self_reference); 7. an accumulation's output is not written earlier, since the stacked
// result starts from the identity (continued_accumulation).
// Stacked operands are copied point by point (indexed by every header variable), so the fused
// statement reads exactly the values the originals read.
#include <fmt/format.h>

#include "analysis/access.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

struct Fusion {
  std::vector<std::pair<ExprRef, ExprRef>> pairs;  // differing operands, by first occurrence
  bool self = false;                               // both statements accumulate
  std::string code;                                // why the trees do not match
  std::string detail;
};

// Walks both trees together; returns false (with fusion.code) when they differ structurally.
bool match(const ExprRef& x, const ExprRef& y, const leir::Stmt& sx, const leir::Stmt& sy,
           bool lazy, Fusion& f) {
  auto fail = [&](std::string code) {
    f.code = std::move(code);
    f.detail = leir::print(x) + " vs " + leir::print(y);
    return false;
  };
  if (x->kind() == ExprKind::kAccess || y->kind() == ExprKind::kAccess) {
    if (x->kind() != y->kind()) return fail("different_operators");
    bool self_x = leir::equal(x, sx.lhs);
    bool self_y = leir::equal(y, sy.lhs);
    if (self_x || self_y) {
      if (!(self_x && self_y)) return fail("different_operators");
      f.self = true;
      return true;
    }
    if (leir::equal(x, y)) return true;
    if (x->dtype() != y->dtype()) return fail("dtype_mismatch");
    if (lazy) return fail("guarded_operand");
    for (const auto& [a, b] : f.pairs)
      if (leir::equal(a, x) && leir::equal(b, y)) return true;
    f.pairs.emplace_back(x, y);
    return true;
  }
  if (x->kind() != y->kind() || x->children().size() != y->children().size())
    return fail("different_operators");
  switch (x->kind()) {
    case ExprKind::kNumber:
    case ExprKind::kInf:
    case ExprKind::kIndexVar:
      if (!leir::equal(x, y)) return fail("different_operators");
      return true;
    case ExprKind::kBinary:
      if (x->binary_op() != y->binary_op()) return fail("different_operators");
      break;
    case ExprKind::kCompare:
      if (x->compare_ops() != y->compare_ops()) return fail("different_operators");
      break;
    case ExprKind::kCall:
      if (x->function() != y->function()) return fail("different_operators");
      break;
    case ExprKind::kNeg:
    case ExprKind::kAccess:
      break;
  }
  bool branches = x->kind() == ExprKind::kCall && x->function() == leir::Function::kIfThenElse;
  for (size_t i = 0; i < x->children().size(); ++i)
    if (!match(x->children()[i], y->children()[i], sx, sy, lazy || (branches && i > 0), f))
      return false;
  return true;
}

struct ConcatSite {
  size_t block = 0;
  leir::Stmt first;
  leir::Stmt second;  // renamed to the first's loop variables
  Fusion fusion;
};

class TensorConcatToFuseOperators final : public ResolvedStrategy<ConcatSite> {
 public:
  std::string_view name() const override { return "tensor_concat_to_fuse_operators"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "stack the operands of two identical independent operators and compute them once";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i + 1 < p.blocks.size(); ++i) {
      Site s = Site(std::string(name())).set_block(BlockPath{i, {}});
      if (check(p, s).ok()) out.push_back(std::move(s));
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const ConcatSite& r) const override {
    const leir::Block& a = p.blocks[r.block];
    surgery::NameAllocator names(p);
    std::vector<ExprRef> point = graph::loop_indices(a.loops);
    std::string q = names.fresh_loop_var();
    auto stacked = [&](const std::string& t, leir::DType dt, ExprRef lead,
                       const std::vector<ExprRef>& rest) {
      std::vector<ExprRef> idx{std::move(lead)};
      idx.insert(idx.end(), rest.begin(), rest.end());
      return Expr::access(t, dt, leir::Scope::kGlobal, std::move(idx));
    };
    // Copy block: every differing operand into its stacked tensor.
    leir::Block copy{a.loops, {}};
    std::vector<std::string> operand_names;
    for (const auto& [x, y] : r.fusion.pairs) {
      operand_names.push_back(names.fresh_tensor());
      copy.body.push_back(leir::Item::of(
          leir::Stmt{stacked(operand_names.back(), x->dtype(), Expr::integer(0), point), x}));
      copy.body.push_back(leir::Item::of(
          leir::Stmt{stacked(operand_names.back(), y->dtype(), Expr::integer(1), point), y}));
    }
    // Compute block: the first statement's tree over the stacked tensors.
    std::string out_name = names.fresh_tensor();
    const ExprRef& lhs = r.first.lhs;
    ExprRef out_ref = stacked(out_name, lhs->dtype(), Expr::index_var(q), lhs->indices());
    std::vector<ExprRef> qpoint = point;
    ExprRef rhs = leir::rewrite(r.first.rhs, [&](const ExprRef& e) -> ExprRef {
      if (e->kind() != ExprKind::kAccess) return e;
      if (leir::equal(e, lhs)) return out_ref;
      for (size_t k = 0; k < r.fusion.pairs.size(); ++k)
        if (leir::equal(e, r.fusion.pairs[k].first))
          return stacked(operand_names[k], e->dtype(), Expr::index_var(q), point);
      return e;
    });
    leir::Block compute{{leir::Loop{leir::LoopKind::kSerial, 2, q}}, {}};
    compute.loops.insert(compute.loops.end(), a.loops.begin(), a.loops.end());
    compute.body.push_back(leir::Item::of(leir::Stmt{out_ref, rhs}));
    // Copy-out block over the loops the output subscript uses.
    leir::Block back{{}, {}};
    for (const leir::Loop& l : a.loops)
      for (const ExprRef& ix : lhs->indices())
        if (analysis::mentions_var(ix, l.var)) {
          back.loops.push_back(l);
          break;
        }
    if (back.loops.empty()) back.loops.push_back(leir::Loop{leir::LoopKind::kBound, 1, "tx"});
    back.body.push_back(leir::Item::of(
        leir::Stmt{lhs, stacked(out_name, lhs->dtype(), Expr::integer(0), lhs->indices())}));
    back.body.push_back(leir::Item::of(leir::Stmt{
        r.second.lhs, stacked(out_name, lhs->dtype(), Expr::integer(1), lhs->indices())}));
    leir::Program out = surgery::replace_top_block(p, r.block + 1, {});
    return surgery::replace_top_block(out, r.block,
                                      {std::move(copy), std::move(compute), std::move(back)});
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const ConcatSite& r) const override {
    std::string operands;
    for (const auto& [x, y] : r.fusion.pairs)
      operands += (operands.empty() ? "" : ", ") + x->name() + "/" + y->name();
    return fmt::format(
        "blocks {} and {} apply the same operator to different tensors ({}) and neither reads "
        "the other's result ({} vs {}); the differing operands are stacked along a new leading "
        "index of extent 2, one block computes both results at once into a stacked tensor, and "
        "a last block copies slice 0 back to {} and slice 1 to {}",
        r.block, r.block + 1, operands, r.first.lhs->name(), r.second.lhs->name(),
        r.first.lhs->name(), r.second.lhs->name());
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,32]\ninput C f64[16,32]\ninput D f64[16,32]\n"
        "output E f64[16,32]\noutput F f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}[E^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}+C^{f64,g}_{tx,a};];"
        "B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+C^{f64,g}_{tx,a};];\n",
        "tensor_concat_to_fuse_operators(block=0)"};
  }

 private:
  Outcome<ConcatSite> resolve(const leir::Program& p, const Site& s) const override {
    const std::string c = std::string(name()) + ".";
    Outcome<size_t> i = graph::top_block(p, s, name());
    STEPTP_TRY(i);
    // 1. A next block.
    if (*i + 1 >= p.blocks.size())
      return infeasible(c + "no_next_block", "block {} is the last block", *i);
    const leir::Block& a = p.blocks[*i];
    const leir::Block& b = p.blocks[*i + 1];
    // 2. One computing statement each.
    for (const leir::Block* blk : {&a, &b}) {
      if (blk->body.size() != 1 || !blk->body[0].is_stmt())
        return infeasible(c + "not_single_statement",
                          "blocks {} and {} must hold one statement each", *i, *i + 1);
      if (blk->body[0].stmt->rhs->kind() == ExprKind::kAccess)
        return infeasible(c + "copy", "{} is a plain copy", leir::print(*blk->body[0].stmt));
    }
    // 3. The same iteration space.
    if (!graph::same_header_shape(a.loops, b.loops))
      return infeasible(c + "header_mismatch", "blocks {} and {} have different loop headers", *i,
                        *i + 1);
    surgery::NameAllocator names(p);
    ConcatSite r{*i, *a.body[0].stmt, *graph::rename_header_to(b, a.loops, names).body[0].stmt, {}};
    const std::string& ex = r.first.lhs->name();
    const std::string& fx = r.second.lhs->name();
    // 4. Independent.
    if (ex == fx || analysis::mentions_tensor(r.second.rhs, ex) ||
        analysis::mentions_tensor(r.first.rhs, fx))
      return infeasible(c + "dependent", "blocks {} and {} depend on each other through {} or {}",
                        *i, *i + 1, ex, fx);
    // 5. Outputs of one shape and dtype.
    if (r.first.lhs->dtype() != r.second.lhs->dtype() ||
        r.first.lhs->indices().size() != r.second.lhs->indices().size())
      return infeasible(c + "output_mismatch", "{} and {} are not written alike",
                        leir::print(r.first.lhs), leir::print(r.second.lhs));
    for (size_t k = 0; k < r.first.lhs->indices().size(); ++k)
      if (!leir::equal(r.first.lhs->indices()[k], r.second.lhs->indices()[k]))
        return infeasible(c + "output_mismatch", "{} and {} are not written alike",
                          leir::print(r.first.lhs), leir::print(r.second.lhs));
    // 6. One operator tree.
    for (const leir::Stmt* st : {&r.first, &r.second}) {
      bool other_self = false;
      leir::for_each_expr(st->rhs, [&](const ExprRef& e) {
        if (e->kind() != ExprKind::kAccess) return;
        for (const ExprRef& ix : e->indices())
          other_self = other_self || analysis::mentions_tensor(ix, st->lhs->name());
        other_self = other_self || (e->name() == st->lhs->name() && !leir::equal(e, st->lhs));
      });
      if (other_self)
        return infeasible(c + "self_reference", "{} reads {} other than as its accumulator",
                          leir::print(*st), st->lhs->name());
    }
    if (!match(r.first.rhs, r.second.rhs, r.first, r.second, false, r.fusion))
      return infeasible(c + r.fusion.code, "the two statements differ at {}", r.fusion.detail);
    if (r.fusion.pairs.empty())
      return infeasible(c + "identical_computations",
                        "blocks {} and {} compute the same values; nothing to stack", *i, *i + 1);
    // 7. A stacked accumulation starts from the identity.
    if (r.fusion.self) {
      std::vector<leir::Block> earlier(p.blocks.begin(), p.blocks.begin() + long(*i));
      bool written = p.find_decl(ex) && p.find_decl(ex)->role != leir::TensorRole::kOutput;
      written = written || (p.find_decl(fx) && p.find_decl(fx)->role != leir::TensorRole::kOutput);
      leir::for_each_stmt(earlier, [&](const leir::Stmt& st, const leir::StmtContext&) {
        written = written || st.lhs->name() == ex || st.lhs->name() == fx;
      });
      if (written)
        return infeasible(c + "continued_accumulation",
                          "{} or {} already holds values before block {}", ex, fx, *i);
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_tensor_concat_to_fuse_operators() {
  return std::make_unique<TensorConcatToFuseOperators>();
}

}  // namespace steptp::strategy
