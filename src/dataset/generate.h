// dataset/generate.h — candidate generation for one work unit: import the graph, enumerate the
// sites of every registered strategy, build the compositions (math after inlining, inverse
// strategies after their forward partner, dead-code elimination after injected dead code,
// random multi-step chains), verify every candidate and keep the equivalent ones as records.
//
// Pure with respect to its inputs: the same unit, program and options give the same result on
// any thread. It never writes files; the pipeline does.
#pragma once

#include <cstdint>

#include "dataset/record.h"
#include "dataset/reduced_instance.h"
#include "dataset/workloads.h"
#include "leir/ir.h"
#include "verify/verify.h"

namespace steptp::dataset {

struct GenerateOptions {
  uint64_t seed = 0;
  int max_depth = 2;  // most steps before the recorded one (0: direct steps only)
  // Feasible sites verified per (state, strategy); 0 = all. Hard strategies get more: the easy
  // ones are capped hard by the filter anyway, so verifying many of them is wasted work.
  int max_sites_per_strategy = 6;
  int max_sites_easy = 2;     // the same for easy and very easy strategies
  int inline_states = 2;      // compute_inline results followed per inlining level
  int full_inline_steps = 8;  // most compute_inline steps to the fully inlined state
  int inverse_states = 2;     // forward results followed per inverse pair
  int chain_width = 2;        // random chains started from the imported program
  int verify_seeds = 2;
  // A non-small instance is used only if its imported program needs at most this many
  // statement executions per run (the verification-cost budget).
  int64_t instance_work_budget = 250'000;
  // Statement executions one unit may spend on verification (seeds × the state's static work
  // per candidate). A state that cannot afford all its sites verifies fewer per strategy (at
  // least one each); a later state (composition or chain step) is skipped once the unit has
  // spent this much. 0 = no limit.
  int64_t unit_work_budget = 60'000'000;
  bool with_lowered = false;  // add C / CUDA / TIR text of the transformed program
  // Set: every candidate is verified by the interpreter's safety checks and then by the values
  // of TVM's build (verify::Engine::kTvm, codegen::TvmEngine::run); a candidate TVM cannot
  // express is rejected as a compile error. Unset: the interpreter alone.
  verify::EngineFn tvm;
};

// The unit's own seed, derived from the global seed and its id.
uint64_t unit_seed(uint64_t seed, const std::string& unit_id);

// Imports unit.graph_path and generates from it.
UnitResult generate_unit(const WorkUnit& unit, const GenerateOptions& options);

// Generates from an already imported program (tests use this directly). `shapes` is stored in
// every record. With `reduced`, every candidate is verified on the reduced instance instead,
// replayed there as the same transformation (reduced_instance.h); a candidate whose replay
// fails or differs is counted ("reduced_infeasible:<strategy>", "reduced_differs:<strategy>")
// and not kept. `reduced->program` must be same_up_to_sizes with `initial`.
UnitResult generate_from_program(const WorkUnit& unit, const leir::Program& initial,
                                 const nlohmann::json& shapes, const GenerateOptions& options,
                                 const ReducedInstance* reduced = nullptr);

}  // namespace steptp::dataset
