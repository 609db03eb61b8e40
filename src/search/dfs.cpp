// search/dfs.cpp — depth-first search: a stack of verified nodes, each expanded once.
#include <algorithm>

#include "search/algorithms.h"

namespace steptp::search {

void run_dfs(Engine& engine) {
  const int k = engine.options().proposals;
  std::vector<int> stack = {0};
  while (!stack.empty() && !engine.exhausted()) {
    int id = stack.back();
    stack.pop_back();
    if (!engine.expandable(id)) continue;
    std::vector<int> children = engine.expand(id, k);
    // Reverse, so the first proposal's child is explored first.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
}

}  // namespace steptp::search
