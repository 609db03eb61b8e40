// cost/cost_model.h — a cheap static estimate of how long a program's compiled C runs on the
// CPU, used only to RANK candidate steps (the engine always measures what it keeps).
//
// Not a simulator: it counts statement executions weighted by memory-access kinds, divides by
// SIMD width for vectorized contiguous inner loops and by the thread count for parallel loops,
// and charges global intermediates for their traffic. Units are arbitrary.
#pragma once

#include "leir/ir.h"

namespace steptp::cost {

struct CostModelOptions {
  int threads = 1;                // the thread count the candidates will be measured with
  int vector_width = 4;           // doubles per SIMD register (AVX2)
  int64_t cache_elements = 4096;  // a tensor this small is assumed to stay in L1
  int64_t l2_elements = 131072;   // ... and this small in L2 (1 MiB of f64)
  // The C backend's 512-bit versions are what runs (codegen::machine_has_wide_vectors): lane
  // jams that qualify are then chosen for AVX-512's registers and written in explicit 8-double
  // vectors (codegen::is_explicit_wide_lane_jam), and priced as such.
  bool wide_vectors = false;
};

// Estimated cost; lower is better. Deterministic.
double estimated_cost(const leir::Program& p, const CostModelOptions& options = {});

}  // namespace steptp::cost
