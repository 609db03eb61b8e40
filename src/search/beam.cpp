// search/beam.cpp — beam search with elitism over verified, measured programs.
#include <algorithm>

#include "search/algorithms.h"

namespace steptp::search {

void run_beam(Engine& engine) {
  const int k = engine.options().proposals;
  const size_t width = static_cast<size_t>(engine.options().beam_width);
  std::vector<int> beam = {0};
  while (!engine.exhausted()) {
    std::vector<int> pool = beam;
    bool any_expandable = false;
    for (int id : beam) {
      if (engine.exhausted()) break;
      if (!engine.expandable(id)) continue;
      any_expandable = true;
      for (int c : engine.expand(id, k)) pool.push_back(c);
    }
    if (!any_expandable) break;
    // Fastest first; ties go to the older node so the order is deterministic. Node ids are
    // unique (the engine de-duplicates programs), so the beam never holds a program twice.
    std::stable_sort(pool.begin(), pool.end(), [&](int a, int b) {
      if (engine.node(a).speedup != engine.node(b).speedup)
        return engine.node(a).speedup > engine.node(b).speedup;
      return a < b;
    });
    // A dead node may stay in the beam (it is among the best programs); it is skipped above.
    pool.resize(std::min(pool.size(), width));
    beam = pool;
  }
}

}  // namespace steptp::search
