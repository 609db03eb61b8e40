// search/greedy.cpp — greedy search: best of k proposals per step, only ever moving forward.
#include "search/algorithms.h"

namespace steptp::search {

void run_greedy(Engine& engine) {
  const int k = engine.options().proposals;
  int current = 0;
  while (!engine.exhausted() && engine.expandable(current)) {
    std::vector<int> children = engine.expand(current, k);
    int best = -1;
    for (int c : children)
      if (best < 0 || engine.node(c).speedup > engine.node(best).speedup) best = c;
    // Unlike the reference, a slower child never replaces the current node: we ask the current
    // node again for proposals it has not made yet.
    if (best >= 0 && engine.node(best).speedup > engine.node(current).speedup) current = best;
  }
}

}  // namespace steptp::search
