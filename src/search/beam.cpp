// search/beam.cpp — beam search over verified, measured programs.
//
// The beam moves to the best children of each round even when they are slower than their
// parents: a schedule often passes through a neutral or slightly slower step (a fusion that only
// pays once its intermediate moves to local memory) before the gain, and a beam that kept its
// parents would never leave the plateau. The fastest program seen is the engine's answer, so
// moving on loses nothing. A round without any new child keeps the beam and asks it again.
//
// Children are ranked by measured speedup times the policy's promise (engine.h, Proposal): a
// step whose gain comes only with the step after it (an inline that lets a factorization remove
// a pow) measures no faster than its siblings, and ranked by measurement alone it would be
// dropped before its follow-up is ever proposed. The promise lasts one round: the follow-up's
// own program is ranked by what it measures.
#include <algorithm>

#include "search/algorithms.h"

namespace steptp::search {

void run_beam(Engine& engine) {
  const int k = engine.options().proposals;
  const size_t width = static_cast<size_t>(engine.options().beam_width);
  std::vector<int> beam = {0};
  while (!engine.exhausted()) {
    std::vector<int> children;
    bool any_expandable = false;
    for (int id : beam) {
      if (engine.exhausted()) break;
      if (!engine.expandable(id)) continue;
      any_expandable = true;
      for (int c : engine.expand(id, k)) children.push_back(c);
    }
    if (!any_expandable) break;
    if (children.empty()) continue;  // every proposal failed: ask the same beam again
    // Most promising first; ties go to the older node so the order is deterministic. Node ids
    // are unique (the engine de-duplicates programs), so the beam never holds a program twice.
    auto prospect = [&](int id) { return engine.node(id).speedup * engine.node(id).promise; };
    std::stable_sort(children.begin(), children.end(), [&](int a, int b) {
      if (prospect(a) != prospect(b)) return prospect(a) > prospect(b);
      return a < b;
    });
    children.resize(std::min(children.size(), width));
    beam = children;
  }
}

}  // namespace steptp::search
