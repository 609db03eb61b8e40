// strategy/math/online_softmax.cpp — the max and sum-of-exp passes of softmax, log_softmax or
// logsumexp become one pass of two prefix recurrences; the normalising block reads their last
// elements, so the reduced tensors are never materialised.
//
//   before: …[D_{tx}=max(D_{tx},A_{tx,a});];…[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];
//           B^{16}_{tx=0}L^{64}_{a=0}[C_{tx,a}=exp(A_{tx,a}-D_{tx})/E_{tx};];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),A_{tx,a});
//             G_{tx,a}=if_then_else(a-1<0,0,G_{tx,a-1}*exp(F_{tx,a-1}-F_{tx,a}))+exp(A_{tx,a}-F_{tx,a});];
//           B^{16}_{tx=0}L^{64}_{a=0}[C_{tx,a}=exp(A_{tx,a}-F_{tx,63})/G_{tx,63};];
//
// Preconditions: 1–4. those of the online pair (see normal_loop_summation_on_exp_…);
// 5. O and S are intermediates (declared_tensor); 6. a later block reads S (no_normaliser).
// Values: as for the online sum; every later read of O/S reads the identical final element.
#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/math/online_patterns.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::ExprRef;

class OnlineSoftmax final : public ResolvedStrategy<online::SoftmaxPair> {
 public:
  std::string_view name() const override { return "online_softmax"; }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "compute softmax's max and normaliser in one online pass read by the normalising block";
  }

  std::vector<Site> sites(const leir::Program& p) const override { return top_level_sites(p); }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const online::SoftmaxPair& m) const override {
    surgery::NameAllocator names(p);
    std::string mn = names.fresh_tensor();
    online::Recurrence r = online::make_recurrence(p, m, mn, names.fresh_tensor());
    leir::Block fused{r.header->loops, {}};
    for (leir::Stmt& st : online::recurrence_stmts(r)) fused.body.push_back(leir::Item::of(st));
    leir::Program out = online::replace_reads(
        p, m.max_block + 2, m.max_out->name(),
        [&](const std::vector<ExprRef>& idx) { return online::last_max(r, idx); });
    out = online::replace_reads(
        out, m.max_block + 2, m.sum_out->name(),
        [&](const std::vector<ExprRef>& idx) { return online::last_sum(r, idx); });
    out.blocks.erase(out.blocks.begin() + long(m.max_block),
                     out.blocks.begin() + long(m.max_block) + 2);
    out.blocks.insert(out.blocks.begin() + long(m.max_block), std::move(fused));
    return out;
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const online::SoftmaxPair& m) const override {
    surgery::NameAllocator names(p);
    std::string mn = names.fresh_tensor();
    online::Recurrence r = online::make_recurrence(p, m, mn, names.fresh_tensor());
    return fmt::format(
        "blocks {} and {} make two passes over loop '{}' ({} steps) for the max {} and the sum of "
        "exp {} that normalise {}. One online pass replaces both: {} is the running max and {} "
        "the running sum, rescaled by exp(old max - new max) when the max grows{}. The later "
        "blocks read {}[..,{}] and {}[..,{}] instead of {} and {}, which are no longer stored",
        m.max_block, m.max_block + 1, online::reduce_var(r), online::extent(r), m.max_out->name(),
        m.sum_out->name(), leir::print(m.x), r.max_name, r.sum_name,
        r.guard_neg_inf ? " (a prefix that is still -inf contributes 0)" : "", r.max_name,
        online::extent(r) - 1, r.sum_name, online::extent(r) - 1, m.max_out->name(),
        m.sum_out->name());
  }

 private:
  std::string code() const { return std::string(name()) + "."; }

  Outcome<online::SoftmaxPair> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<BlockPath> path = s.block();
    STEPTP_TRY(path);
    if (!path->is_top_level())
      return infeasible(code() + "no_such_block", "block {} is not a top-level block",
                        path->to_string());
    Outcome<online::SoftmaxPair> m = online::match_softmax_pair(p, path->top, code());
    STEPTP_TRY(m);
    // 5. The reduced tensors can disappear only if nobody outside the program sees them.
    for (const ExprRef& t : {m->max_out, m->sum_out})
      if (p.find_decl(t->name()) != nullptr)
        return infeasible(code() + "declared_tensor",
                          "{} is a declared tensor, so it must still be written", t->name());
    // 6. Something normalises with the sum.
    if (!online::used_outside(p, m->sum_out->name(), 0, m->max_block + 1))
      return infeasible(code() + "no_normaliser", "no block after {} reads the sum {}",
                        m->max_block + 1, m->sum_out->name());
    return m;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_online_softmax() { return std::make_unique<OnlineSoftmax>(); }

}  // namespace steptp::strategy
