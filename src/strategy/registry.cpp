// strategy/registry.cpp — the explicit list of strategy factories, in the reference's order.
#include "strategy/registry.h"

#include <algorithm>

namespace steptp::strategy {

namespace {

using Factory = std::unique_ptr<Strategy> (*)();

// One line per implemented strategy, in the order of reference_strategy_names().
constexpr Factory kFactories[] = {
    make_operator_fusion,                                          // 0
    make_operator_fission,                                         // 1
    make_compute_inline,                                           // 2
    make_expression_splitting,                                     // 3
    make_tensor_concat_to_fuse_operators,                          // 4
    make_tensor_split_to_decouple_operators,                       // 5
    make_common_subexpression_elimination,                         // 6
    make_dead_code_elimination,                                    // 7
    make_expression_reorder,                                       // 8
    make_loop_reorder,                                             // 9
    make_loop_tiling,                                              // 10
    make_loop_split,                                               // 11
    make_loop_fusion,                                              // 12
    make_loop_unrolling,                                           // 13
    make_loop_parallelization,                                     // 14
    make_loop_vectorization,                                       // 15
    make_loop_binding,                                             // 16
    make_reduction_factorization,                                  // 17
    make_cache_read_write,                                         // 18
    make_layout_transformation,                                    // 19
    make_set_storage_scope,                                        // 20
    make_set_storage_layout,                                       // 21
    make_precompute_indices,                                       // 22
    make_factorization,                                            // 23
    make_expand_factorization,                                     // 24
    make_cancellation,                                             // 25
    make_expand_cancellation,                                      // 26
    make_apart,                                                    // 27
    make_together,                                                 // 28
    make_powsimp,                                                  // 29
    make_expand_powsimp,                                           // 30
    make_expand_log,                                               // 31
    make_logsimp,                                                  // 32
    make_collect,                                                  // 33
    make_expand_collect,                                           // 34
    make_partially_equivalent_then_correct,                        // 35
    make_normal_loop_max_to_prefix_max,                            // 36
    make_exponential_split,                                        // 37
    make_multiplicative_split,                                     // 38
    make_additive_split,                                           // 39
    make_normal_loop_summation_on_exp_to_prefix_summation_on_exp,  // 40
    make_online_softmax,                                           // 41
    make_flashattention_wo_tiling,                                 // 42
    make_normal_matmul_to_prefix_matmul_based_on_online_softmax,   // 43
};

struct Registry {
  std::vector<std::unique_ptr<Strategy>> owned;
  std::vector<const Strategy*> ordered;
};

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    for (Factory f : kFactories) reg.owned.push_back(f());
    // Sort by the reference index so that a factory line added anywhere lands in order.
    const auto& names = reference_strategy_names();
    auto index_of = [&](std::string_view n) {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == n) return i;
      STEPTP_CHECK(false, "strategy '" + std::string(n) + "' is not a reference strategy name");
      return names.size();
    };
    for (const auto& s : reg.owned) reg.ordered.push_back(s.get());
    std::stable_sort(reg.ordered.begin(), reg.ordered.end(),
                     [&](const Strategy* a, const Strategy* b) {
                       return index_of(a->name()) < index_of(b->name());
                     });
    for (size_t i = 1; i < reg.ordered.size(); ++i)
      STEPTP_CHECK(reg.ordered[i - 1]->name() != reg.ordered[i]->name(),
                   "strategy registered twice: " + std::string(reg.ordered[i]->name()));
    return reg;
  }();
  return r;
}

}  // namespace

const std::vector<const Strategy*>& all_strategies() { return registry().ordered; }

const Strategy* find_strategy(std::string_view name) {
  for (const Strategy* s : all_strategies())
    if (s->name() == name) return s;
  return nullptr;
}

const std::vector<std::string_view>& reference_strategy_names() {
  static const std::vector<std::string_view> kNames = {
      "operator_fusion",
      "operator_fission",
      "compute_inline",
      "expression_splitting",
      "tensor_concat_to_fuse_operators",
      "tensor_split_to_decouple_operators",
      "common_subexpression_elimination",
      "dead_code_elimination",
      "expression_reorder",
      "loop_reorder",
      "loop_tiling",
      "loop_split",
      "loop_fusion",
      "loop_unrolling",
      "loop_parallelization",
      "loop_vectorization",
      "loop_binding",
      "reduction_factorization",
      "cache_read_write",
      "layout_transformation",
      "set_storage_scope",
      "set_storage_layout",
      "precompute_indices",
      "factorization",
      "expand_factorization",
      "cancellation",
      "expand_cancellation",
      "apart",
      "together",
      "powsimp",
      "expand_powsimp",
      "expand_log",
      "logsimp",
      "collect",
      "expand_collect",
      "partially_equivalent_then_correct",
      "normal_loop_max_to_prefix_max",
      "exponential_split",
      "multiplicative_split",
      "additive_split",
      "normal_loop_summation_on_exp_to_prefix_summation_on_exp",
      "online_softmax",
      "flashattention_wo_tiling",
      "normal_matmul_to_prefix_matmul_based_on_online_softmax",
  };
  return kNames;
}

}  // namespace steptp::strategy
