// strategy/math/normal_matmul_to_prefix_matmul_based_on_online_softmax.cpp — after
// online_softmax, the normalising block and the P·V matmul become a running (prefix) matmul
// nested in the online block: Acc_{..,h,k} = Acc_{..,h,k-1}·exp(m_{k-1}-m_k) +
// exp(x_k-m_k)·V_{k,h}, followed by a copy block O = Acc_{..,h,n-1}/F_{n-1}. (The reference has no
// code for it; this is its CoT's description: flashattention_wo_tiling on a program whose softmax
// is already online.)
//
//   before: R^{..}L^{n}_{k=0}[m_{r,k}=…;F_{r,k}=…;];
//   R^{..}L^{n}_{k=0}[P_{r,k}=exp(S_{r,k}-m_{r,n-1})/F_{r,n-1};];
//           …[O_{r,h}=O_{r,h}+P_{r,k}*V_{k,h};];
//   after:  R^{..}L^{n}_{k=0}[m_{r,k}=…;F_{r,k}=…;L^{H}_{g=0}[G_{r,g,k}=if_then_else(k-1<0,0,
//             G_{r,g,k-1}*exp(m_{r,k-1}-m_{r,k}))+exp(S_{r,k}-m_{r,k})*V_{k,g};];];
//           R^{..}L^{H}_{h=0}[O_{r,h}=G_{r,h,n-1}/F_{r,n-1};];
//
// Preconditions: 1. the site's block is exactly the online recurrence online_softmax builds
// (not_online_block); 2. the next block is P=exp(X-m_{..,n-1})/F_{..,n-1} over the same loops
// (no_normaliser, irregular_output, declared_tensor); 3. then R=R+P*V reduces over the softmax
// axis (no_matmul, matmul_reduction, matmul_mismatch, continued_accumulation); 4. the matmul has
// a head loop (no_head_loop); 5. m, F and P are read nowhere else (used_elsewhere).
// Values: Acc_{..,n-1} = sum_j exp(x_j - m_{n-1})·V_j and F_{n-1} = sum_j exp(x_j - m_{n-1}).
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

struct PrefixMatmulSite {
  online::Recurrence rec;
  online::Matmul mm;
  size_t block = 0;
};

class NormalMatmulToPrefixMatmul final : public ResolvedStrategy<PrefixMatmulSite> {
 public:
  std::string_view name() const override {
    return "normal_matmul_to_prefix_matmul_based_on_online_softmax";
  }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "turn softmax-normalise-then-matmul into a running matmul inside the online softmax "
           "pass";
  }

  std::vector<Site> sites(const leir::Program& p) const override { return top_level_sites(p); }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const PrefixMatmulSite& m) const override {
    surgery::NameAllocator names(p);
    std::string acc = names.fresh_tensor();
    std::vector<std::string> head;
    for (size_t i = 0; i < online::head_loop_count(p, m.mm); ++i)
      head.push_back(names.fresh_loop_var());
    return online::build_flash(p, m.rec, m.mm, m.block, m.block + 2, acc, head);
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const PrefixMatmulSite& m) const override {
    std::string acc = surgery::NameAllocator(p).fresh_tensor();
    return fmt::format(
        "block {} already keeps the running max {} and sum {} over loop '{}' ({} steps); block "
        "{} divides by the final sum and block {} multiplies the result by {} into {}. The "
        "matmul can run inside the online pass instead: a nested loop over the head dimension "
        "keeps the running product {} and rescales it by exp(old max - new max) like the sum, "
        "so one division by {} at step {}={} gives {} without storing the probabilities",
        m.block, m.rec.max_name, m.rec.sum_name, online::reduce_var(m.rec), online::extent(m.rec),
        m.block + 1, m.block + 2, leir::print(m.mm.v), m.mm.out->name(), acc, m.rec.sum_name,
        online::reduce_var(m.rec), online::extent(m.rec) - 1, m.mm.out->name());
  }

 private:
  std::string code() const { return std::string(name()) + "."; }

  Outcome<PrefixMatmulSite> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<BlockPath> path = s.block();
    STEPTP_TRY(path);
    if (!path->is_top_level() || path->top >= p.blocks.size())
      return infeasible(code() + "no_such_block", "there is no top-level block {}",
                        path->to_string());
    size_t b = path->top;
    // 1. The online recurrence.
    std::optional<online::Recurrence> rec = online::match_recurrence_block(p, b);
    if (!rec)
      return infeasible(code() + "not_online_block",
                        "block {} is not a running max and rescaled running sum (apply "
                        "online_softmax first)",
                        b);
    // 2. The normaliser reading the last elements.
    const std::vector<ExprRef>& i = rec->max_out->indices();
    ExprRef want = Expr::binary(
        leir::BinaryOp::kDiv,
        Expr::call(leir::Function::kExp,
                   {Expr::binary(leir::BinaryOp::kSub, rec->x, online::last_max(*rec, i))}),
        online::last_sum(*rec, i));
    Outcome<ExprRef> prob = online::match_normaliser(p, b + 1, p.blocks[b], want, code());
    STEPTP_TRY(prob);
    // 3. The matmul.
    Outcome<online::Matmul> mm =
        online::match_pv_matmul(p, b + 2, *prob, online::reduce_var(*rec), code());
    STEPTP_TRY(mm);
    // 4. A head dimension.
    if (online::head_loop_count(p, *mm) == 0)
      return infeasible(code() + "no_head_loop", "the matmul in block {} has no head loop", b + 2);
    // 5. Nothing else reads what disappears.
    for (const std::string& t : {rec->max_name, rec->sum_name, (*prob)->name()})
      if (p.find_decl(t) != nullptr || online::used_outside(p, t, b, b + 2))
        return infeasible(code() + "used_elsewhere",
                          "{} is used outside blocks {}-{}, so it must still be stored", t, b,
                          b + 2);
    return PrefixMatmulSite{*rec, *mm, b};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_normal_matmul_to_prefix_matmul_based_on_online_softmax() {
  return std::make_unique<NormalMatmulToPrefixMatmul>();
}

}  // namespace steptp::strategy
