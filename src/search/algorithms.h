// search/algorithms.h — the six multi-step search algorithms over one Engine. Each decides only
// which node to expand next and how many proposals to ask for; the engine charges the budget,
// so all of them stop after the same number of policy calls / evaluated candidates.
//
// The best program of a run is always Engine::best(): the fastest verified node found anywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/engine.h"

namespace steptp::search {

enum class Algorithm { kChain, kGreedy, kBeam, kDfs, kBfs, kMcts };
std::string_view algorithm_name(Algorithm a);  // "chain" "greedy" "beam" "dfs" "bfs" "mcts"
std::optional<Algorithm> algorithm_from_name(std::string_view s);
const std::vector<Algorithm>& all_algorithms();

// chain: one proposal per call; moves to every verified child (even a slower one: the best is
// kept anyway); retries the same node when its proposal was rejected.
void run_chain(Engine& engine);
// greedy: k proposals per call; moves to the fastest child when it beats the current node,
// else asks the current node again (the policy never repeats a step it already proposed).
void run_greedy(Engine& engine);
// beam: every beam node is expanded with k proposals; the new beam is the best `beam_width`
// of the new children, even when they are slower than their parents (no elitism: plateaus are
// crossed; the best program seen stays the answer). A round without children asks again.
void run_beam(Engine& engine);
// dfs / bfs: each node expanded once with k proposals, children pushed in proposal order (dfs
// explores the first child first), bounded by max_depth and the budget.
void run_dfs(Engine& engine);
void run_bfs(Engine& engine);
// mcts: UCT over children with progressive widening; an expansion asks for k proposals, so a
// node gets several children (and is expanded again when its visits allow more), evaluation is
// the measurement itself, rewards (speedups) are backed up as max or mean (SearchOptions).
void run_mcts(Engine& engine);

void run(Algorithm a, Engine& engine);

}  // namespace steptp::search
