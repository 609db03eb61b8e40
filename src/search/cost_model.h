// search/cost_model.h — a cheap static estimate of how long a program's compiled C runs on the
// CPU, used only to RANK candidate steps (the engine always measures what it keeps).
//
// Not a simulator: it counts statement executions weighted by memory-access kinds, divides by
// SIMD width for vectorized contiguous inner loops and by the thread count for parallel loops,
// and charges global intermediates for their traffic. Units are arbitrary.
#pragma once

#include "leir/ir.h"

namespace steptp::search {

struct CostModelOptions {
  int threads = 1;          // the thread count the candidates will be measured with
  int vector_width = 4;     // doubles per SIMD register (AVX2)
  int64_t cache_elements = 4096;       // a tensor this small is assumed to stay in L1
  int64_t l2_elements = 131072;        // ... and this small in L2 (1 MiB of f64)
};

// Estimated cost; lower is better. Deterministic.
double estimated_cost(const leir::Program& p, const CostModelOptions& options = {});

}  // namespace steptp::search
