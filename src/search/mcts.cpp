// search/mcts.cpp — Monte-Carlo tree search over verified programs.
//
// Selection: from the root, stop at the first node that may take more children (progressive
// widening: a node with v visits may have up to ceil(widen_c · v^widen_alpha) children, and it
// must be expandable); otherwise descend to the open child with the best UCT score
//   Q(child) / Q* + uct_c · sqrt(ln(visits(node)) / visits(child))
// where Q is the backed-up reward (max or mean of the speedups in the child's subtree) and Q*
// the best speedup found so far, so the exploration constant does not depend on the scale of
// the speedups. Expansion asks the policy for `proposals` (≥ 2 by default) next programs, so a
// node gets several children at once, and again later when its visits grow. Simulation is the
// measurement itself (a verified child's reward is its measured speedup; there is no rollout).
// Backup adds the reward to every node on the path: visits += 1, sum += r, max = max(max, r).
// A node is closed when it cannot be expanded and all its children are closed; the search
// stops when the root is closed or the budget is spent.
#include <cmath>
#include <limits>

#include "search/algorithms.h"

namespace steptp::search {
namespace {

class Mcts {
 public:
  explicit Mcts(Engine& engine) : engine_(engine), closed_(1, false) {}

  void run() {
    while (!engine_.exhausted() && !closed_[0]) iterate();
  }

 private:
  double q(const Node& n) const {
    return engine_.options().backup == Backup::kMax ? n.value_max
                                                    : n.value_sum / std::max(1, n.visits);
  }

  bool may_widen(const Node& n) const {
    if (!engine_.expandable(n.id)) return false;
    const SearchOptions& o = engine_.options();
    double allowed = std::ceil(o.widen_c * std::pow(std::max(1, n.visits), o.widen_alpha));
    return static_cast<double>(n.children.size()) < allowed;
  }

  bool is_closed(int id) {
    if (closed_[static_cast<size_t>(id)]) return true;
    const Node& n = engine_.node(id);
    if (engine_.expandable(id)) return false;
    for (int c : n.children)
      if (!closed_[static_cast<size_t>(c)]) return false;
    closed_[static_cast<size_t>(id)] = true;
    return true;
  }

  int select_child(const Node& n) {
    const double best_q = std::max(1e-12, engine_.node(engine_.best()).speedup);
    const double log_n = std::log(std::max(1, n.visits));
    int chosen = -1;
    double chosen_score = -std::numeric_limits<double>::infinity();
    for (int c : n.children) {
      if (is_closed(c)) continue;
      const Node& child = engine_.node(c);
      double score = q(child) / best_q +
                     engine_.options().uct_c * std::sqrt(log_n / std::max(1, child.visits));
      if (score > chosen_score) {  // strict: ties keep the older child (deterministic)
        chosen = c;
        chosen_score = score;
      }
    }
    return chosen;
  }

  void backup(const std::vector<int>& path, double reward) {
    for (int id : path) {
      Node& n = engine_.node(id);
      ++n.visits;
      n.value_sum += reward;
      n.value_max = std::max(n.value_max, reward);
    }
  }

  void iterate() {
    std::vector<int> path = {0};
    int id = 0;
    while (!may_widen(engine_.node(id))) {
      int next = select_child(engine_.node(id));
      if (next < 0) {
        // Every child is closed: widen here if the node still can take children, else close it
        // (its ancestors close in turn when their last open child closes).
        if (engine_.expandable(id)) break;
        closed_[static_cast<size_t>(id)] = true;
        return;
      }
      id = next;
      path.push_back(id);
    }
    std::vector<int> children = engine_.expand(id, engine_.options().proposals);
    closed_.resize(engine_.size(), false);
    if (children.empty()) {
      // Every proposal was rejected (or there were none): count the visit with the node's own
      // reward, so that widening and UCT move on instead of asking the same node forever.
      backup(path, engine_.node(id).speedup);
      is_closed(id);
      return;
    }
    for (int c : children) {
      Node& child = engine_.node(c);
      child.visits = 1;
      child.value_sum = child.speedup;
      child.value_max = child.speedup;
      backup(path, child.speedup);
    }
  }

  Engine& engine_;
  std::vector<bool> closed_;
};

}  // namespace

void run_mcts(Engine& engine) { Mcts(engine).run(); }

}  // namespace steptp::search
