// strategy/math/normal_loop_max_to_prefix_max.cpp — turns a max reduction into a prefix (scan)
// over its reduction loop, then reads the last element.
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[F^{f64,g}_{tx,a}=max(if_then_else(a-1<0,-inf,
//             F^{f64,g}_{tx,a-1}),A^{f64,g}_{tx,a});];B^{16}_{tx=0}[D^{f64,g}_{tx}=F^{f64,g}_{tx,63};];
//
// Preconditions: 1. a top-level block holding one statement O=max(O,X) (not_max_reduction);
// 2. O's subscript is distinct loop variables (irregular_output); 3. exactly one loop of the
// header is absent from it, the reduction loop, and it is serial (reduction_loops);
// 4. no earlier block writes O, so the max starts from -inf (continued_accumulation).
// Values are identical: max is exact and the scan visits the same elements in the same order.
#include <fmt/format.h>

#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

struct MaxSite {
  size_t block = 0;
  leir::Stmt stmt;
  size_t reduce = 0;  // position of the reduction loop in the header
};

class NormalLoopMaxToPrefixMax final : public ResolvedStrategy<MaxSite> {
 public:
  std::string_view name() const override { return "normal_loop_max_to_prefix_max"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "turn a max reduction into a running (prefix) max along its reduction loop";
  }

  std::vector<Site> sites(const leir::Program& p) const override { return top_level_sites(p); }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const MaxSite& m) const override {
    const leir::Block& b = p.blocks[m.block];
    const leir::Loop& k = b.loops[m.reduce];
    const ExprRef& out = m.stmt.lhs;
    std::string prefix = surgery::NameAllocator(p).fresh_tensor();
    auto at = [&](ExprRef last) {
      std::vector<ExprRef> idx = out->indices();
      idx.push_back(std::move(last));
      return Expr::access(prefix, out->dtype(), out->scope(), std::move(idx));
    };
    ExprRef kv = Expr::index_var(k.var);
    ExprRef previous = Expr::binary(leir::BinaryOp::kSub, kv, Expr::integer(1));
    ExprRef guard = Expr::call(leir::Function::kIfThenElse,
                               {Expr::compare({previous, Expr::integer(0)}, {leir::CompareOp::kLt}),
                                Expr::neg(Expr::inf()), at(previous)});
    ExprRef x = m.stmt.rhs->args()[1];
    leir::Block scan{
        b.loops,
        {leir::Item::of(leir::Stmt{at(kv), Expr::call(leir::Function::kMax, {guard, x})})}};
    leir::Block copy;
    for (size_t i = 0; i < b.loops.size(); ++i)
      if (i != m.reduce) copy.loops.push_back(b.loops[i]);
    if (copy.loops.empty()) copy.loops.push_back(leir::Loop{leir::LoopKind::kBound, 1, "tx"});
    copy.body.push_back(leir::Item::of(leir::Stmt{out, at(Expr::integer(k.extent - 1))}));
    return surgery::replace_top_block(p, m.block, {std::move(scan), std::move(copy)});
  }

  std::string describe(const leir::Program& p, const Site& /*s*/, const MaxSite& m) const override {
    const leir::Loop& k = p.blocks[m.block].loops[m.reduce];
    return fmt::format(
        "block {} reduces {} with max over loop '{}' ({} steps). A new prefix tensor {} keeps the "
        "running max after each step, starting from -inf through a guarded read of step {}-1; "
        "the value after the last step ({}={}) is then copied into {}. max is exact, so every "
        "value is unchanged",
        m.block, leir::print(m.stmt.lhs), k.var, k.extent, surgery::NameAllocator(p).fresh_tensor(),
        k.var, k.var, k.extent - 1, m.stmt.lhs->name());
  }

 private:
  Outcome<MaxSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<BlockPath> path = s.block();
    STEPTP_TRY(path);
    const std::string c = std::string(name()) + ".";
    if (!path->is_top_level() || path->top >= p.blocks.size())
      return infeasible(c + "no_such_block", "there is no top-level block {}", path->to_string());
    const leir::Block& b = p.blocks[path->top];
    // 1. One statement O=max(O,X).
    if (b.body.size() != 1 || !b.body[0].is_stmt())
      return infeasible(c + "not_max_reduction", "block {} does not hold exactly one statement",
                        path->top);
    const leir::Stmt& st = *b.body[0].stmt;
    if (st.rhs->kind() != ExprKind::kCall || st.rhs->function() != leir::Function::kMax ||
        !leir::equal(st.rhs->args()[0], st.lhs))
      return infeasible(c + "not_max_reduction", "block {} computes {}, not {}=max({},...)",
                        path->top, leir::print(st.rhs), st.lhs->name(), st.lhs->name());
    // 2. The output subscript is distinct loop variables.
    std::vector<std::string> used;
    for (const ExprRef& i : st.lhs->indices()) {
      if (i->kind() != ExprKind::kIndexVar ||
          std::find(used.begin(), used.end(), i->name()) != used.end())
        return infeasible(c + "irregular_output", "{} is not indexed by distinct loop variables",
                          leir::print(st.lhs));
      used.push_back(i->name());
    }
    // 3. Exactly one reduction loop, serial.
    std::vector<size_t> reduce;
    for (size_t i = 0; i < b.loops.size(); ++i)
      if (std::find(used.begin(), used.end(), b.loops[i].var) == used.end()) reduce.push_back(i);
    if (reduce.size() != 1 || b.loops[reduce[0]].kind != leir::LoopKind::kSerial)
      return infeasible(c + "reduction_loops",
                        "block {} reduces over {} loops; a prefix needs exactly one serial loop",
                        path->top, reduce.size());
    // 4. The max starts from -inf: O is not a known input and no earlier block writes it.
    const leir::TensorDecl* decl = p.find_decl(st.lhs->name());
    bool written = decl != nullptr && decl->role != leir::TensorRole::kOutput;
    std::vector<leir::Block> earlier(p.blocks.begin(), p.blocks.begin() + long(path->top));
    leir::for_each_stmt(earlier, [&](const leir::Stmt& e, const leir::StmtContext&) {
      written = written || e.lhs->name() == st.lhs->name();
    });
    if (written)
      return infeasible(c + "continued_accumulation",
                        "{} already holds values before block {}, so its max does not start "
                        "from -inf",
                        st.lhs->name(), path->top);
    return MaxSite{path->top, st, reduce[0]};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_normal_loop_max_to_prefix_max() {
  return std::make_unique<NormalLoopMaxToPrefixMax>();
}

}  // namespace steptp::strategy
