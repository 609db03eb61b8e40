// search/selection.cpp — re-measure the finalists, keep the fastest, confirm it (selection.h).
#include "search/selection.h"

#include <algorithm>
#include <utility>

#include "codegen/timing.h"

namespace steptp::search {
namespace {

double median(std::vector<double> samples) {
  return codegen::summarize(std::move(samples)).median_ms;
}

// The search's best, then the other accepted nodes from the fastest down (ties: earlier node).
std::vector<int> finalist_ids(const Engine& engine, int finalists) {
  std::vector<int> others;
  for (size_t i = 1; i < engine.size(); ++i)
    if (static_cast<int>(i) != engine.best()) others.push_back(static_cast<int>(i));
  std::stable_sort(others.begin(), others.end(),
                   [&](int a, int b) { return engine.node(a).speedup > engine.node(b).speedup; });
  std::vector<int> ids = {engine.best()};
  for (int id : others) {
    if (static_cast<int>(ids.size()) >= finalists) break;
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

Selection select_best(const Engine& engine, Evaluator& evaluator, int finalists, int rounds) {
  Selection s;
  s.best = engine.best();
  if (s.best == 0 || rounds <= 0) return s;
  const std::vector<int> ids = finalist_ids(engine, std::max(1, finalists));
  for (int id : ids) s.finalists.push_back(Finalist{id, engine.node(id).speedup, 0});

  if (ids.size() > 1) {
    // Each round measures every finalist once, starting one further along each time, so that
    // no program always runs first (right after the previous program's caches and clocks).
    std::vector<std::vector<double>> samples(ids.size());
    std::vector<bool> failed(ids.size(), false);
    for (int r = 0; r < rounds; ++r) {
      for (size_t k = 0; k < ids.size(); ++k) {
        const size_t f = (k + static_cast<size_t>(r)) % ids.size();
        if (failed[f]) continue;
        Result<double> t = evaluator.measure(engine.node(ids[f]).program);
        if (t.ok())
          samples[f].push_back(*t);
        else
          failed[f] = true;
      }
    }
    s.rounds = rounds;
    std::optional<size_t> fastest;
    for (size_t f = 0; f < ids.size(); ++f) {
      if (failed[f] || samples[f].empty()) continue;
      s.finalists[f].median_ms = median(samples[f]);
      if (!fastest || s.finalists[f].median_ms < s.finalists[*fastest].median_ms) fastest = f;
    }
    if (fastest) s.best = ids[*fastest];
  }

  // Fresh rounds for the kept program: the samples that chose it favour it (the fastest of a few
  // noisy medians is optimistic), so they do not also report its speedup.
  const leir::Program& baseline = engine.node(0).program;
  const leir::Program& best = engine.node(s.best).program;
  std::vector<double> base, top;
  for (int r = 0; r < rounds; ++r) {
    Result<double> b = evaluator.measure(baseline);
    Result<double> t = evaluator.measure(best);
    if (!b.ok() || !t.ok()) break;
    base.push_back(*b);
    top.push_back(*t);
  }
  if (!base.empty()) {
    s.confirmation = Confirmation{static_cast<int>(base.size()), median(base), median(top)};
    if (s.confirmation->best_ms > s.confirmation->baseline_ms) {
      s.unconfirmed = s.best;
      s.best = 0;
    }
  }
  return s;
}

}  // namespace steptp::search
