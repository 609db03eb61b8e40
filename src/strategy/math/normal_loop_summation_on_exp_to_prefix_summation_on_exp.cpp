// strategy/math/normal_loop_summation_on_exp_to_prefix_summation_on_exp.cpp — fuses a max
// reduction and the sum of exp shifted by it into one pass of two prefix recurrences (the
// online log-sum-exp), then copies the last elements back into the reduced tensors.
//
//   before: B^{16}_{tx=0}L^{64}_{a=0}[D_{tx}=max(D_{tx},A_{tx,a});];
//           B^{16}_{tx=0}L^{64}_{a=0}[E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx});];
//   after:  B^{16}_{tx=0}L^{64}_{a=0}[F_{tx,a}=max(if_then_else(a-1<0,-inf,F_{tx,a-1}),A_{tx,a});
//             G_{tx,a}=if_then_else(a-1<0,0,G_{tx,a-1}*exp(F_{tx,a-1}-F_{tx,a}))+exp(A_{tx,a}-F_{tx,a});];
//           B^{16}_{tx=0}[D_{tx}=F_{tx,63};E_{tx}=G_{tx,63};];
//
// Preconditions (online_patterns.h, match_softmax_pair): 1. a single max reduction O=max(O,X)
// (not_max_reduction); 2. O indexed by distinct loops (irregular_output) with one serial
// reduction loop (reduction_loops); 3. the next block sums exp(X-O) into S over the same loops
// (no_exp_sum); 4. O and S are written nowhere else (continued_accumulation).
// Values: G_k = sum_{j<=k} exp(x_j - F_k) by induction, so G_{n-1} = S; F is exact. When X may be
// -inf the sum is guarded with if_then_else(F_k==-inf,0,...) so all -inf prefixes add nothing.
#include <fmt/format.h>

#include "leir/printer.h"
#include "strategy/math/online_patterns.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::ExprRef;

class NormalLoopSummationOnExpToPrefixSummationOnExp final
    : public ResolvedStrategy<online::SoftmaxPair> {
 public:
  std::string_view name() const override {
    return "normal_loop_summation_on_exp_to_prefix_summation_on_exp";
  }
  Category category() const override { return Category::kMath; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "fuse a max and a sum of exp(x-max) into one pass of running max and rescaled sum";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      if (online::match_softmax_pair(p, i, code()).ok())
        out.push_back(Site(std::string(name())).set_block(BlockPath{i, {}}));
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const online::SoftmaxPair& m) const override {
    surgery::NameAllocator names(p);
    std::string mn = names.fresh_tensor();
    online::Recurrence r = online::make_recurrence(p, m, mn, names.fresh_tensor());
    leir::Block fused{r.header->loops, {}};
    for (leir::Stmt& st : online::recurrence_stmts(r)) fused.body.push_back(leir::Item::of(st));
    leir::Block copy;
    for (size_t i = 0; i < r.header->loops.size(); ++i)
      if (i != r.reduce) copy.loops.push_back(r.header->loops[i]);
    if (copy.loops.empty()) copy.loops.push_back(leir::Loop{leir::LoopKind::kBound, 1, "tx"});
    const std::vector<ExprRef>& idx = m.max_out->indices();
    copy.body.push_back(leir::Item::of(leir::Stmt{m.max_out, online::last_max(r, idx)}));
    copy.body.push_back(leir::Item::of(leir::Stmt{m.sum_out, online::last_sum(r, idx)}));
    leir::Program out = p;
    out.blocks.erase(out.blocks.begin() + long(m.max_block),
                     out.blocks.begin() + long(m.max_block) + 2);
    out.blocks.insert(out.blocks.begin() + long(m.max_block), {std::move(fused), std::move(copy)});
    return out;
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const online::SoftmaxPair& m) const override {
    surgery::NameAllocator names(p);
    std::string mn = names.fresh_tensor();
    online::Recurrence r = online::make_recurrence(p, m, mn, names.fresh_tensor());
    return fmt::format(
        "blocks {} and {} both walk loop '{}' ({} steps): the first takes the max {} of {}, the "
        "second sums exp({}-{}) into {}. One pass suffices: {} keeps the running max and {} the "
        "running sum, rescaled by exp(old max - new max) whenever the max grows{}. After step "
        "{}={} they hold exactly {} and {}, which a copy block writes back",
        m.max_block, m.max_block + 1, online::reduce_var(r), online::extent(r), m.max_out->name(),
        leir::print(m.x), leir::print(m.x), m.max_out->name(), m.sum_out->name(), r.max_name,
        r.sum_name, r.guard_neg_inf ? " (a prefix that is still -inf contributes 0)" : "",
        online::reduce_var(r), online::extent(r) - 1, m.max_out->name(), m.sum_out->name());
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
    return online::match_softmax_pair(p, path->top, code());
  }
};

}  // namespace

std::unique_ptr<Strategy> make_normal_loop_summation_on_exp_to_prefix_summation_on_exp() {
  return std::make_unique<NormalLoopSummationOnExpToPrefixSummationOnExp>();
}

}  // namespace steptp::strategy
