// search/engine.cpp — expansion of one node: policy call, de-duplication, verification,
// measurement, budget and failure accounting.
#include "search/engine.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace steptp::search {

Engine::Engine(Policy& policy, Evaluator& evaluator, SearchOptions options, std::string method)
    : policy_(policy), evaluator_(evaluator), options_(options), method_(std::move(method)) {}

Result<std::unique_ptr<Engine>> Engine::create(leir::Program initial, Policy& policy,
                                               Evaluator& evaluator, SearchOptions options,
                                               std::string method) {
  STEPTP_CHECK(options.proposals >= 1 && options.beam_width >= 1, "bad search options");
  Result<double> time = evaluator.measure(initial);
  if (!time.ok())
    return Error::make(time.error().category,
                       "the initial program cannot be measured: " + time.error().message);
  if (!(*time > 0))
    return Error::make("measure_error", "the initial program measured a non-positive time");
  std::unique_ptr<Engine> engine(new Engine(policy, evaluator, options, std::move(method)));
  Node root;
  root.program = std::move(initial);
  root.time_ms = *time;
  root.speedup = 1.0;
  root.visits = 1;
  root.value_sum = 1.0;
  root.value_max = 1.0;
  engine->by_hash_[leir::hash_value(root.program)].push_back(0);
  engine->seen_.push_back(root.program);
  engine->nodes_.push_back(std::move(root));
  return engine;
}

bool Engine::exhausted() const {
  return stats_.policy_calls >= options_.budget.policy_calls ||
         stats_.candidates >= options_.budget.candidates;
}

bool Engine::expandable(int id) const {
  const Node& n = node(id);
  return !n.dead && n.depth < options_.budget.max_depth;
}

bool Engine::seen(const leir::Program& p) const {
  auto it = by_hash_.find(leir::hash_value(p));
  if (it == by_hash_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](int i) { return seen_[static_cast<size_t>(i)] == p; });
}

void Engine::remember(const leir::Program& p) {
  by_hash_[leir::hash_value(p)].push_back(static_cast<int>(seen_.size()));
  seen_.push_back(p);
}

void Engine::fail(int parent, const std::string& step, const std::string& reason) {
  ++stats_.failures[reason];
  node(parent).failures.push_back(step + ": " + reason);
}

std::vector<int> Engine::expand(int id, int n) {
  if (exhausted() || !expandable(id)) return {};
  ++stats_.policy_calls;
  ++node(id).expansions;
  std::vector<Proposal> proposals;
  {
    // The request refers into the node; copy what the policy needs so that adding children
    // (which may reallocate nodes_) cannot invalidate it.
    const Node& current = node(id);
    PolicyRequest request{current.program, nodes_.front().program, current.trace,    current.depth,
                          current.speedup, current.tried,          current.failures, n,
                          method_};
    for (int c : current.children)
      if (node(c).speedup <= current.speedup && !node(c).trace.empty())
        request.no_gain.insert(node(c).trace.back());
    proposals = policy_.propose(request);
  }
  Event event;
  event.node = id;
  event.proposals = static_cast<int>(proposals.size());
  stats_.proposals += event.proposals;
  if (proposals.empty()) node(id).dead = true;

  for (Proposal& proposal : proposals) {
    node(id).tried.insert(proposal.step);
    if (!proposal.program.ok()) {
      fail(id, proposal.step, proposal.program.error().category);
      continue;
    }
    leir::Program candidate = std::move(proposal.program).value();
    if (candidate == node(id).program) {
      fail(id, proposal.step, "unchanged");
      continue;
    }
    if (seen(candidate)) {
      fail(id, proposal.step, "duplicate");
      continue;
    }
    if (stats_.candidates >= options_.budget.candidates) break;
    ++stats_.candidates;
    remember(candidate);
    Verdict verdict = evaluator_.verify(candidate);
    if (!verdict.equivalent()) {
      fail(id, proposal.step, verdict.status);
      continue;
    }
    Result<double> time = evaluator_.measure(candidate);
    if (!time.ok()) {
      fail(id, proposal.step, time.error().category);
      continue;
    }
    if (!(*time > 0)) {
      fail(id, proposal.step, "measure_error");
      continue;
    }
    ++stats_.accepted;
    Node child;
    child.id = static_cast<int>(nodes_.size());
    child.parent = id;
    child.depth = node(id).depth + 1;
    child.program = std::move(candidate);
    child.trace = node(id).trace;
    child.trace.push_back(proposal.step);
    child.time_ms = *time;
    child.speedup = baseline_ms() / *time;
    // A policy's promise only ever raises a child's rank (and a broken one is ignored).
    child.promise = std::isfinite(proposal.promise) && proposal.promise > 1 ? proposal.promise : 1;
    child.claim = proposal.claim;
    nodes_.push_back(std::move(child));
    const Node& added = nodes_.back();
    node(id).children.push_back(added.id);
    event.children.push_back(added.id);
    if (added.speedup > node(best_).speedup) best_ = added.id;
  }
  events_.push_back(std::move(event));
  if (on_expand_) on_expand_(*this);
  return events_.back().children;
}

}  // namespace steptp::search
