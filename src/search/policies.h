// search/policies.h — the built-in policies that propose next programs as strategy steps
// (Site applied through the registry): enumerate, random and cost. The llm policy, which
// proposes whole programs from a model, is in llm_policy.h.
//
// Every policy is deterministic for a given state (and seed), never proposes a step in the
// request's `tried` set, and answers {} when it has nothing left for a state.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "search/cost_model.h"
#include "search/engine.h"
#include "strategy/strategy.h"

namespace steptp::search {

// Every feasible step of every registered strategy on p: registry order, then sites() order.
std::vector<strategy::Site> feasible_steps(const leir::Program& p);

// Applies a printed or parsed step through the registry ("infeasible" / "bad_site" errors).
Result<leir::Program> apply_step(const leir::Program& p, const strategy::Site& site);
Result<leir::Program> apply_step_text(const leir::Program& p, std::string_view step);

// Replays a trace (printed steps) from the initial program; fails at the first step that does
// not apply. Steps beginning with "llm:" cannot be replayed from text and are rejected.
Result<leir::Program> replay(const leir::Program& initial, const std::vector<std::string>& steps);

// enumerate: the feasible steps in registry order.
class EnumeratePolicy : public Policy {
 public:
  std::string_view name() const override { return "enumerate"; }
  std::vector<Proposal> propose(const PolicyRequest& request) override;

 protected:
  // The ordered candidate steps of a state (cached per program).
  virtual const std::vector<strategy::Site>& ranked_steps(const leir::Program& p);
  // The promise (Proposal::promise) of a step that ranked_steps(p) returned: 1 unless the
  // ranking foresaw the step's follow-up.
  virtual double promise_of(const leir::Program& p, const std::string& step) const;
  std::vector<Proposal> take(const PolicyRequest& request, const std::vector<strategy::Site>& s);
  std::map<size_t, std::vector<strategy::Site>> cache_;
};

// random: the feasible steps in a seeded random order (the order depends on the seed and the
// state only, so a run is reproducible).
class RandomPolicy final : public EnumeratePolicy {
 public:
  explicit RandomPolicy(uint64_t seed) : seed_(seed) {}
  std::string_view name() const override { return "random"; }

 protected:
  const std::vector<strategy::Site>& ranked_steps(const leir::Program& p) override;

 private:
  uint64_t seed_;
  std::map<size_t, std::vector<strategy::Site>> shuffled_;
};

// cost: the feasible steps ranked by the estimated cost of the program each produces
// (cost_model.h), cheapest first; ties keep registry order. Steps whose estimate is not lower
// than the current program's are still offered, after the improving ones; expression_reorder
// steps (the same code for the compiler) come after all others. A step is scored by
// the better of its own program and that program after one loop_vectorization: splitting a long
// loop gains nothing by itself but makes the vector lanes of the next step possible. A
// compute_inline step is also scored after one factorization; when that decides its rank, its
// proposal carries the predicted gain of the factorization as its promise.
class CostPolicy final : public EnumeratePolicy {
 public:
  explicit CostPolicy(CostModelOptions options) : options_(options) {}
  std::string_view name() const override { return "cost"; }

 protected:
  const std::vector<strategy::Site>& ranked_steps(const leir::Program& p) override;
  double promise_of(const leir::Program& p, const std::string& step) const override;

 public:
  // The ranking, except that once a step measured no faster than the state, the untried steps of
  // the same idea (strategy and block) go after every other idea's: the model misjudged that
  // idea here, and its next variants (another order of the same loops) would spend the budget
  // on the same mistake. Ideas whose steps did gain keep their rank (the tunings of a tile).
  std::vector<Proposal> propose(const PolicyRequest& request) override;

 private:
  CostModelOptions options_;
  std::map<size_t, std::vector<strategy::Site>> ranked_;
  std::map<size_t, std::map<std::string, double>> promises_;  // program hash → step → promise
};

}  // namespace steptp::search
