// search/policies.cpp — enumerate, random and cost policies over the strategy registry.
#include "search/policies.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include "strategy/registry.h"
#include "strategy/surgery.h"

namespace steptp::search {
namespace {

constexpr double kLookAheadStepPenalty = 0.01;

// Swapping the operands of a commutative + or * gives the compiler the same computation (IEEE
// addition and multiplication are commutative, and GCC orders operands canonically), so its
// measured speedup is noise. It can only matter by enabling an algebraic rewrite that matches one
// operand order, so the cost policy offers it after every other step instead of spending the
// candidate budget on it (7 of 19 candidates of a beam search on Matmul_with_small_K_dimension).
bool compiles_to_the_same_code(const strategy::Site& site) {
  return site.strategy() == "expression_reorder";
}

// The loops of a block and of the blocks nested in it.
size_t loop_count(const leir::Block& block) {
  size_t n = block.loops.size();
  for (const leir::Item& item : block.body)
    if (item.is_block()) n += loop_count(*item.block);
  return n;
}

// The top-level blocks of `after` that differ from `before`, as [first, end): everything between
// the longest common prefix and the longest common suffix of the two block lists (a fusion or
// an inlining changes the count, so both ends are matched).
std::pair<size_t, size_t> changed_top_level_blocks(const leir::Program& before,
                                                   const leir::Program& after) {
  const size_t n = before.blocks.size(), m = after.blocks.size();
  size_t prefix = 0;
  while (prefix < n && prefix < m && before.blocks[prefix] == after.blocks[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix &&
         before.blocks[n - 1 - suffix] == after.blocks[m - 1 - suffix])
    ++suffix;
  return {prefix, m - suffix};
}

}  // namespace

std::vector<strategy::Site> feasible_steps(const leir::Program& p) {
  std::vector<strategy::Site> out;
  for (const strategy::Strategy* s : strategy::all_strategies())
    for (strategy::Site& site : strategy::feasible_sites(*s, p)) out.push_back(std::move(site));
  return out;
}

Result<leir::Program> apply_step(const leir::Program& p, const strategy::Site& site) {
  const strategy::Strategy* s = strategy::find_strategy(site.strategy());
  if (s == nullptr) return Error::make("bad_site", "no strategy named '" + site.strategy() + "'");
  strategy::Outcome<leir::Program> next = s->apply(p, site);
  if (!next.ok()) return Error::make("infeasible", next.infeasible().render());
  return std::move(next).value();
}

Result<leir::Program> apply_step_text(const leir::Program& p, std::string_view step) {
  Result<strategy::Site> site = strategy::parse_site(step);
  if (!site.ok()) return Error::make("bad_site", site.error().render());
  if (const strategy::Strategy* s = strategy::find_strategy(site->strategy()))
    if (strategy::Check known = strategy::known_parameters(*s, p, *site); !known)
      return Error::make("infeasible", known.infeasible().render());
  return apply_step(p, *site);
}

Result<leir::Program> replay(const leir::Program& initial, const std::vector<std::string>& steps) {
  leir::Program p = initial;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].rfind("llm:", 0) == 0)
      return Error::make("not_replayable",
                         "step " + std::to_string(i + 1) + " is a model answer, not a site");
    Result<leir::Program> next = apply_step_text(p, steps[i]);
    if (!next.ok())
      return Error::make(next.error().category, "step " + std::to_string(i + 1) + " (" + steps[i] +
                                                    "): " + next.error().message);
    p = std::move(next).value();
  }
  return p;
}

// ---- enumerate ---------------------------------------------------------------------------------

const std::vector<strategy::Site>& EnumeratePolicy::ranked_steps(const leir::Program& p) {
  size_t key = leir::hash_value(p);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, feasible_steps(p)).first;
  return it->second;
}

std::vector<Proposal> EnumeratePolicy::take(const PolicyRequest& request,
                                            const std::vector<strategy::Site>& steps) {
  std::vector<Proposal> out;
  for (const strategy::Site& site : steps) {
    if (static_cast<int>(out.size()) >= request.n) break;
    std::string text = site.to_string();
    if (request.tried.count(text)) continue;
    out.emplace_back(text, apply_step(request.program, site));
    out.back().promise = promise_of(request.program, text);
  }
  return out;
}

double EnumeratePolicy::promise_of(const leir::Program&, const std::string&) const { return 1.0; }

std::vector<Proposal> EnumeratePolicy::propose(const PolicyRequest& request) {
  return take(request, ranked_steps(request.program));
}

// ---- random ------------------------------------------------------------------------------------

const std::vector<strategy::Site>& RandomPolicy::ranked_steps(const leir::Program& p) {
  size_t key = leir::hash_value(p);
  auto it = shuffled_.find(key);
  if (it != shuffled_.end()) return it->second;
  std::vector<strategy::Site> steps = EnumeratePolicy::ranked_steps(p);
  // Our own Fisher–Yates over mt19937_64 (std::shuffle's algorithm is unspecified, so its order
  // would differ between standard libraries).
  std::mt19937_64 rng(seed_ ^ (static_cast<uint64_t>(key) * 0x9e3779b97f4a7c15ULL));
  for (size_t i = steps.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng() % i);
    std::swap(steps[i - 1], steps[j]);
  }
  return shuffled_.emplace(key, std::move(steps)).first->second;
}

// ---- cost --------------------------------------------------------------------------------------

namespace {
// A step's idea: its strategy and the block it acts on ("loop_reorder@2"), "" for a step that
// names no block.
std::string idea_of(const strategy::Site& site) {
  strategy::Outcome<strategy::BlockPath> block = site.block();
  if (!block.ok()) return site.strategy();
  return site.strategy() + "@" + block->to_string();
}
}  // namespace

std::vector<Proposal> CostPolicy::propose(const PolicyRequest& request) {
  const std::vector<strategy::Site>& ranked = ranked_steps(request.program);
  if (request.no_gain.empty()) return take(request, ranked);
  std::set<std::string> misjudged;
  for (const strategy::Site& site : ranked)
    if (request.no_gain.count(site.to_string())) misjudged.insert(idea_of(site));
  std::vector<strategy::Site> reordered;
  reordered.reserve(ranked.size());
  for (const strategy::Site& site : ranked)
    if (!misjudged.count(idea_of(site))) reordered.push_back(site);
  for (const strategy::Site& site : ranked)
    if (misjudged.count(idea_of(site))) reordered.push_back(site);
  return take(request, reordered);
}

namespace {

// The cheapest program that lanes reach from `q` (q itself included): one loop_vectorization
// step, or — since lanes take at most 16 iterations — a split of a block's innermost loop by
// 16 followed by one. Each look-ahead move adds kLookAheadStepPenalty of the current
// program's cost (a fixed amount, so that a step which merely lowers the cost does not also
// lower the penalty and look as if it enabled lanes), so the step which brings lanes one move
// closer (e.g. the split itself) outranks steps that only leave the same lanes reachable.
// The look-ahead vectorizes only top-level blocks [first, end) of q (see below).
double best_after_lanes(const leir::Program& q, double cost_of_q, size_t first, size_t end,
                        double move_penalty, const CostModelOptions& options) {
  const strategy::Strategy* lanes = strategy::find_strategy("loop_vectorization");
  const strategy::Strategy* split = strategy::find_strategy("loop_split");
  auto in_scope = [&](size_t top) { return top >= first && top < end; };
  double best = cost_of_q;
  if (lanes == nullptr) return best;
  // sites() is cheap and over-approximates; apply() checks legality, so sites outside the
  // scope are dropped before any analysis.
  auto vectorize = [&](const leir::Program& r, int moves) {
    for (const strategy::Site& follow : lanes->sites(r)) {
      strategy::Outcome<strategy::BlockPath> path = follow.block();
      if (!path.ok() || !in_scope(path->top)) continue;
      strategy::Outcome<leir::Program> after = lanes->apply(r, follow);
      if (after.ok()) best = std::min(best, estimated_cost(*after, options) + moves * move_penalty);
    }
  };
  vectorize(q, 1);
  if (split == nullptr) return best;
  for (const strategy::Site& cut : split->sites(q)) {
    strategy::Outcome<int64_t> factor = cut.integer("factor");
    strategy::Outcome<std::string> loop = cut.name("loop");
    strategy::Outcome<strategy::BlockPath> path = cut.block();
    if (!factor.ok() || *factor != strategy::kMaxVectorLanes || !loop.ok() || !path.ok() ||
        !in_scope(path->top))
      continue;
    const leir::Block* b = strategy::surgery::find_block(q, *path);
    if (b == nullptr || b->loops.empty() || b->loops.back().var != *loop) continue;
    strategy::Outcome<leir::Program> after = split->apply(q, cut);
    if (after.ok()) vectorize(*after, 2);
  }
  return best;
}

// The cheapest program one factorization reaches from `q` in its top-level blocks [first,
// end) (q itself included), one look-ahead move. Only compute_inline steps look this far: an
// inline that brings a producer's term into its consumer's expression is what lets the
// factorization rewrite both. MinGPTNewGelu's 0.5x(1 + tanh(c(x + 0.044715 x^3))) needs x^3
// inlined before factorization turns x + 0.044715 x^3 into x(8943 x^2 + 200000)/200000, whose
// square GCC computes as a product instead of calling libm's pow (a loop with pow stays
// scalar): 18 -> 2 ms. Inlining the argument into the tanh is the cheaper single step, and
// after it x^3 can only join the whole tanh expression, whose factorization keeps the pow.
// The inline's own program is no faster, so its proposal carries the predicted gain as a
// promise, which keeps it in the beam for the round that takes the factorization
// (docs/search.md, "Look-ahead for inlines").
double best_after_factoring(const leir::Program& q, double cost_of_q, size_t first, size_t end,
                            double move_penalty, const CostModelOptions& options) {
  const strategy::Strategy* factor = strategy::find_strategy("factorization");
  double best = cost_of_q;
  if (factor == nullptr) return best;
  for (const strategy::Site& site : factor->sites(q)) {
    strategy::Outcome<strategy::BlockPath> path = site.block();
    if (!path.ok() || path->top < first || path->top >= end) continue;
    strategy::Outcome<leir::Program> after = factor->apply(q, site);
    if (after.ok()) best = std::min(best, estimated_cost(*after, options) + move_penalty);
  }
  return best;
}

}  // namespace

const std::vector<strategy::Site>& CostPolicy::ranked_steps(const leir::Program& p) {
  size_t key = leir::hash_value(p);
  auto it = ranked_.find(key);
  if (it != ranked_.end()) return it->second;
  const std::vector<strategy::Site>& steps = EnumeratePolicy::ranked_steps(p);
  const double cost_now = estimated_cost(p, options_);
  const double move_penalty = kLookAheadStepPenalty * cost_now;
  const strategy::Strategy* lanes = strategy::find_strategy("loop_vectorization");
  // A step ENABLES lanes when one vectorization gains more after it than it gains now; only then
  // does the look-ahead count (any other improving step would otherwise borrow the gain of the
  // vectorization it merely leaves available, and outrank it). Likewise for factoring.
  const double lanes_gain_now =
      cost_now - best_after_lanes(p, cost_now, 0, p.blocks.size(), move_penalty, options_);
  std::optional<double> factoring_gain_now;  // computed for the first compute_inline step
  std::vector<double> cost(steps.size());
  std::vector<size_t> loops(steps.size(), std::numeric_limits<size_t>::max());
  std::map<std::string, double> promises;
  for (size_t i = 0; i < steps.size(); ++i) {
    Result<leir::Program> next = apply_step(p, steps[i]);
    // A step that does not apply goes last; the engine will record why.
    if (!next.ok()) {
      cost[i] = std::numeric_limits<double>::max();
      continue;
    }
    cost[i] = estimated_cost(*next, options_);
    loops[i] = 0;
    for (const leir::Block& b : next->blocks) loops[i] += loop_count(b);
    // Only the top-level blocks the step rewrote can gain lanes they could not gain before: the
    // others are unchanged, so their lanes are in lanes_gain_now already, and the comparison
    // below is the same with or without them (block costs add up). Looking ahead in every block
    // of every step's program made one ranking of a 14-block program take 94 s (now 6 s).
    const auto [first, end] = changed_top_level_blocks(p, *next);
    const double plain = cost[i];
    if (steps[i].strategy() == "compute_inline") {
      if (!factoring_gain_now)
        factoring_gain_now = cost_now - best_after_factoring(p, cost_now, 0, p.blocks.size(),
                                                             move_penalty, options_);
      double factored = best_after_factoring(*next, plain, first, end, move_penalty, options_);
      if (plain - factored > *factoring_gain_now + 1e-9 * cost_now) cost[i] = factored;
    }
    const double after_factoring = cost[i];
    if (lanes != nullptr && steps[i].strategy() != lanes->name()) {
      double with_lanes = best_after_lanes(*next, plain, first, end, move_penalty, options_);
      if (plain - with_lanes > lanes_gain_now + 1e-9 * cost_now)
        cost[i] = std::min(cost[i], with_lanes);
    }
    // Only the factoring look-ahead makes a promise: it is the case measured to need one (the
    // inline's own program is no faster; see the beam). Splits that enable lanes are left to
    // measurement, as before.
    if (after_factoring < plain && cost[i] == after_factoring && after_factoring > 0)
      promises[steps[i].to_string()] = plain / after_factoring;
  }
  std::vector<size_t> order(steps.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Equal estimates (to 9 digits of the current cost) go to the program with fewer loops: the
  // model sees no difference, and the simpler nest is the one the hardware is kinder to. A tile
  // of (c, d) by (2, 16) and a split of d by 16 give the same lanes over a long reduction, but
  // the tile interleaves two rows of every stream and ran LayerNorm's sums at half the speed of
  // the split (36 against 18.5 ms over 268 MB); the registry lists tiles before splits. The
  // estimates are rounded to a fixed quantum so that the comparison stays a strict weak order.
  const double quantum = std::max(cost_now, 1.0) * 1e-9;
  for (double& c : cost)
    if (c != std::numeric_limits<double>::max()) c = std::round(c / quantum);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (cost[a] != cost[b]) return cost[a] < cost[b];
    return loops[a] < loops[b];
  });
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t i) { return !compiles_to_the_same_code(steps[i]); });
  std::vector<strategy::Site> ranked;
  ranked.reserve(order.size());
  for (size_t i : order) ranked.push_back(steps[i]);
  promises_[key] = std::move(promises);
  return ranked_.emplace(key, std::move(ranked)).first->second;
}

double CostPolicy::promise_of(const leir::Program& p, const std::string& step) const {
  auto program = promises_.find(leir::hash_value(p));
  if (program == promises_.end()) return 1.0;
  auto it = program->second.find(step);
  return it == program->second.end() ? 1.0 : it->second;
}

}  // namespace steptp::search
