// search/selection.h — what a run reports as its best program, decided after the search: the
// few fastest programs as measured during the search (the finalists) are measured again, in
// alternation, and the fastest of them is kept; then the baseline and the kept program are
// measured alternately in fresh rounds (the confirmation). A search ranks candidates by one
// noisy median each, so its first place is often a program that merely measured well once.
#pragma once

#include <optional>
#include <vector>

#include "search/engine.h"

namespace steptp::search {

struct Finalist {
  int id = 0;
  double search_speedup = 0;  // as measured during the search
  double median_ms = 0;       // median over the selection rounds (0 when a measurement failed)
};

// The baseline and the kept program measured again after the search, alternately, so that
// both see the same machine state (a shared machine drifts during a long search).
struct Confirmation {
  int rounds = 0;
  double baseline_ms = 0;  // median over the rounds
  double best_ms = 0;
  double speedup() const { return best_ms > 0 ? baseline_ms / best_ms : 0; }
};

struct Selection {
  int best = 0;  // the node the run reports as its best
  // The node the selection kept but the confirmation measured slower than the baseline (0:
  // none). The run then reports the initial program: it never hands back a program that its own
  // unbiased measurement found slower than the one it was given.
  int unconfirmed = 0;
  int rounds = 0;                   // selection rounds (0: a single finalist, nothing to select)
  std::vector<Finalist> finalists;  // in the search's order (fastest first)
  std::optional<Confirmation> confirmation;
};

// `finalists` ≥ 1 programs take part (the search's best first, then the next fastest accepted
// nodes); `rounds` selection rounds and then `rounds` confirmation rounds; a kept program whose
// confirmation median is slower than the baseline's becomes `unconfirmed` and `best` the
// initial program (node 0). rounds == 0 keeps the search's best unmeasured. A finalist whose
// measurement fails is out of the selection; a failed confirmation only drops the confirmation.
Selection select_best(const Engine& engine, Evaluator& evaluator, int finalists, int rounds);

}  // namespace steptp::search
