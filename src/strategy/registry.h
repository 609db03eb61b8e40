// strategy/registry.h — every strategy, in the reference's index order (0..43), by name.
//
// The list is explicit: adding a strategy is one factory declaration and one line in
// registry.cpp. Callers (dataset, search, CLI) never include a concrete strategy's file.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "strategy/strategy.h"

namespace steptp::strategy {

// All registered strategies in a fixed order (the reference's strategy index order; strategies
// not implemented yet are simply absent). Built once; the pointers live for the whole program.
const std::vector<const Strategy*>& all_strategies();

// The strategy with this exact name, or nullptr.
const Strategy* find_strategy(std::string_view name);

// The reference's 44 strategy names in index order (implemented or not), for prompts and docs.
const std::vector<std::string_view>& reference_strategy_names();

// Factories, one per strategy file.
// graph (src/strategy/graph/)
std::unique_ptr<Strategy> make_operator_fusion();
std::unique_ptr<Strategy> make_operator_fission();
std::unique_ptr<Strategy> make_compute_inline();
std::unique_ptr<Strategy> make_expression_splitting();
std::unique_ptr<Strategy> make_tensor_concat_to_fuse_operators();
std::unique_ptr<Strategy> make_tensor_split_to_decouple_operators();
std::unique_ptr<Strategy> make_common_subexpression_elimination();
std::unique_ptr<Strategy> make_dead_code_elimination();
std::unique_ptr<Strategy> make_expression_reorder();
std::unique_ptr<Strategy> make_loop_reorder();
std::unique_ptr<Strategy> make_loop_tiling();
std::unique_ptr<Strategy> make_loop_split();
std::unique_ptr<Strategy> make_loop_fusion();
std::unique_ptr<Strategy> make_loop_unrolling();
std::unique_ptr<Strategy> make_loop_parallelization();
std::unique_ptr<Strategy> make_loop_vectorization();
std::unique_ptr<Strategy> make_loop_binding();
std::unique_ptr<Strategy> make_reduction_factorization();
// memory (src/strategy/memory/)
std::unique_ptr<Strategy> make_cache_read_write();
std::unique_ptr<Strategy> make_layout_transformation();
std::unique_ptr<Strategy> make_set_storage_scope();
std::unique_ptr<Strategy> make_set_storage_layout();
std::unique_ptr<Strategy> make_precompute_indices();
// math (src/strategy/math/)
std::unique_ptr<Strategy> make_factorization();
std::unique_ptr<Strategy> make_expand_factorization();
std::unique_ptr<Strategy> make_cancellation();
std::unique_ptr<Strategy> make_expand_cancellation();
std::unique_ptr<Strategy> make_apart();
std::unique_ptr<Strategy> make_together();
std::unique_ptr<Strategy> make_powsimp();
std::unique_ptr<Strategy> make_expand_powsimp();
std::unique_ptr<Strategy> make_expand_log();
std::unique_ptr<Strategy> make_logsimp();
std::unique_ptr<Strategy> make_collect();
std::unique_ptr<Strategy> make_expand_collect();
std::unique_ptr<Strategy> make_normal_loop_max_to_prefix_max();
std::unique_ptr<Strategy> make_partially_equivalent_then_correct();
std::unique_ptr<Strategy> make_exponential_split();
std::unique_ptr<Strategy> make_multiplicative_split();
std::unique_ptr<Strategy> make_additive_split();
std::unique_ptr<Strategy> make_normal_loop_summation_on_exp_to_prefix_summation_on_exp();
std::unique_ptr<Strategy> make_online_softmax();
std::unique_ptr<Strategy> make_flashattention_wo_tiling();
std::unique_ptr<Strategy> make_normal_matmul_to_prefix_matmul_based_on_online_softmax();

}  // namespace steptp::strategy
