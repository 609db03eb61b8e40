// search/algorithms.cpp — algorithm names and dispatch.
#include "search/algorithms.h"

namespace steptp::search {

std::string_view algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::kChain:
      return "chain";
    case Algorithm::kGreedy:
      return "greedy";
    case Algorithm::kBeam:
      return "beam";
    case Algorithm::kDfs:
      return "dfs";
    case Algorithm::kBfs:
      return "bfs";
    case Algorithm::kMcts:
      return "mcts";
  }
  return "?";
}

const std::vector<Algorithm>& all_algorithms() {
  static const std::vector<Algorithm> kAll = {Algorithm::kChain, Algorithm::kGreedy,
                                              Algorithm::kBeam,  Algorithm::kDfs,
                                              Algorithm::kBfs,   Algorithm::kMcts};
  return kAll;
}

std::optional<Algorithm> algorithm_from_name(std::string_view s) {
  for (Algorithm a : all_algorithms())
    if (algorithm_name(a) == s) return a;
  return std::nullopt;
}

void run(Algorithm a, Engine& engine) {
  switch (a) {
    case Algorithm::kChain:
      return run_chain(engine);
    case Algorithm::kGreedy:
      return run_greedy(engine);
    case Algorithm::kBeam:
      return run_beam(engine);
    case Algorithm::kDfs:
      return run_dfs(engine);
    case Algorithm::kBfs:
      return run_bfs(engine);
    case Algorithm::kMcts:
      return run_mcts(engine);
  }
}

}  // namespace steptp::search
