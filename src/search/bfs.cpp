// search/bfs.cpp — breadth-first search: a queue of verified nodes, each expanded once.
#include <deque>

#include "search/algorithms.h"

namespace steptp::search {

void run_bfs(Engine& engine) {
  const int k = engine.options().proposals;
  std::deque<int> queue = {0};
  while (!queue.empty() && !engine.exhausted()) {
    int id = queue.front();
    queue.pop_front();
    if (!engine.expandable(id)) continue;
    for (int c : engine.expand(id, k)) queue.push_back(c);
  }
}

}  // namespace steptp::search
