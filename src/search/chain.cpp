// search/chain.cpp — chain search: one proposal per policy call, follow every verified step.
#include "search/algorithms.h"

namespace steptp::search {

void run_chain(Engine& engine) {
  int current = 0;
  while (!engine.exhausted() && engine.expandable(current)) {
    std::vector<int> children = engine.expand(current, 1);
    // A rejected proposal leaves us here; the policy will not propose the same step again, and
    // a node it has nothing more for becomes dead, which ends the chain.
    if (!children.empty()) current = children.front();
  }
}

}  // namespace steptp::search
