// strategy/math/flashattention_wo_tiling.cpp — softmax(S)·V without materialising the
// probabilities: per query row, one pass over the keys keeps the running max, the running sum and
// (in a nested loop over the head dimension) the rescaled running output; a copy block divides.
//
//   before: [M_{r}=max(M_{r},S_{r,k})] [Z_{r}=Z_{r}+exp(S_{r,k}-M_{r})]
//           [P_{r,k}=exp(S_{r,k}-M_{r})/Z_{r}] [O_{r,h}=O_{r,h}+P_{r,k}*V_{k,h}]   (r = the rows)
//   after:  R^{..}L^{n}_{k=0}[m_{r,k}=max(if_then_else(k-1<0,-inf,m_{r,k-1}),S_{r,k});
//             F_{r,k}=if_then_else(k-1<0,0,F_{r,k-1}*exp(m_{r,k-1}-m_{r,k}))+exp(S_{r,k}-m_{r,k});
//             L^{H}_{g=0}[G_{r,g,k}=if_then_else(k-1<0,0,G_{r,g,k-1}*exp(m_{r,k-1}-m_{r,k}))
//                                   +exp(S_{r,k}-m_{r,k})*V_{k,g};];];
//           R^{..}L^{H}_{h=0}[O_{r,h}=G_{r,h,n-1}/F_{r,n-1};];
//
// Preconditions: 1–4. the online pair (online_patterns.h) at the site's block; 5. the next block
// is the normaliser P=exp(X-O)/S over the same loops, indexed by all of them (no_normaliser,
// irregular_output, declared_tensor); 6. the block after it is R=R+P*V reducing over the softmax
// axis (no_matmul, matmul_reduction, matmul_mismatch, continued_accumulation); 7. the matmul has
// a head loop (no_head_loop); 8. O, S and P are read nowhere else (used_elsewhere).
// Values: G_{..,k} = sum_{j<=k} exp(x_j - m_k)·V_j, so G_{n-1}/F_{n-1} = sum_j P_j·V_j.
#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/math/online_patterns.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprRef;

struct FlashSite {
  online::SoftmaxPair pair;
  online::Matmul mm;
};

class FlashattentionWoTiling final : public ResolvedStrategy<FlashSite> {
 public:
  std::string_view name() const override { return "flashattention_wo_tiling"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "fuse softmax and the P·V matmul into one online pass with a rescaled accumulator";
  }

  std::vector<Site> sites(const leir::Program& p) const override { return top_level_sites(p); }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const FlashSite& m) const override {
    surgery::NameAllocator names(p);
    std::string mn = names.fresh_tensor();
    std::string fn = names.fresh_tensor();
    std::string acc = names.fresh_tensor();
    online::Recurrence r = online::make_recurrence(p, m.pair, mn, fn);
    std::vector<std::string> head;
    for (size_t i = 0; i < online::head_loop_count(p, m.mm); ++i)
      head.push_back(names.fresh_loop_var());
    size_t b = m.pair.max_block;
    return online::build_flash(p, r, m.mm, b, b + 3, acc, head);
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const FlashSite& m) const override {
    surgery::NameAllocator names(p);
    std::string mn = names.fresh_tensor();
    std::string fn = names.fresh_tensor();
    std::string acc = names.fresh_tensor();
    size_t b = m.pair.max_block;
    const leir::Loop& k = p.blocks[b].loops[m.pair.reduce];
    const std::string v = leir::print(m.mm.v);  // V may be an expression, not only a read
    return fmt::format(
        "blocks {}-{} compute softmax of {} over loop '{}' ({} keys) and multiply it by {} into "
        "{}. One pass per row replaces the four blocks: {} keeps the running max, {} the running "
        "sum and, in a nested loop over the head dimension, {} the running product with {}; both "
        "sums are rescaled by exp(old max - new max) when the max grows. A copy block divides {} "
        "by {} at the last key ({}={}), giving exactly softmax·{}",
        b, b + 3, leir::print(m.pair.x), k.var, k.extent, leir::print(m.mm.v), m.mm.out->name(), mn,
        fn, acc, v, acc, fn, k.var, k.extent - 1, v);
  }

 private:
  std::string code() const { return std::string(name()) + "."; }

  Outcome<FlashSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<BlockPath> path = s.block();
    STEPTP_TRY(path);
    if (!path->is_top_level())
      return infeasible(code() + "no_such_block", "block {} is not a top-level block",
                        path->to_string());
    size_t b = path->top;
    Outcome<online::SoftmaxPair> pair = online::match_softmax_pair(p, b, code());
    STEPTP_TRY(pair);
    // 5. The normaliser.
    ExprRef want =
        Expr::binary(leir::BinaryOp::kDiv,
                     Expr::call(leir::Function::kExp,
                                {Expr::binary(leir::BinaryOp::kSub, pair->x, pair->max_out)}),
                     pair->sum_out);
    Outcome<ExprRef> prob = online::match_normaliser(p, b + 2, p.blocks[b], want, code());
    STEPTP_TRY(prob);
    // 6. The matmul.
    const std::string& k = p.blocks[b].loops[pair->reduce].var;
    Outcome<online::Matmul> mm = online::match_pv_matmul(p, b + 3, *prob, k, code());
    STEPTP_TRY(mm);
    // 7. A head dimension to accumulate over.
    if (online::head_loop_count(p, *mm) == 0)
      return infeasible(code() + "no_head_loop", "the matmul in block {} has no head loop", b + 3);
    // 8. Nothing else needs the tensors that disappear.
    for (const std::string& t : {pair->max_out->name(), pair->sum_out->name(), (*prob)->name()})
      if (p.find_decl(t) != nullptr || online::used_outside(p, t, b, b + 3))
        return infeasible(code() + "used_elsewhere",
                          "{} is used outside blocks {}-{}, so it must still be stored", t, b,
                          b + 3);
    return FlashSite{*pair, *mm};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_flashattention_wo_tiling() {
  return std::make_unique<FlashattentionWoTiling>();
}

}  // namespace steptp::strategy
