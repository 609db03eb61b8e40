// codegen/cuda_emitter.h — LEIR Program → one CUDA C++ file (.cu): a __global__ kernel per
// top-level block, an identity-init kernel before a block whose accumulations write first, and
// optionally a host harness (main) that fills inputs deterministically, runs, times with
// cudaEvents, and prints a checksum.
//
// Mapping: a B loop named t{x,y,z}… → threadIdx, b{x,y,z}… → blockIdx (first two letters; loops
// sharing an axis are folded into one linear index); every axis is a grid-stride loop, so any
// extent is legal. Cross-thread accumulations use an atomicCAS loop; what cannot be done
// atomically runs the block as a single-thread kernel. It does not run or check the code.
#pragma once

#include <string>
#include <vector>

#include "leir/ir.h"
#include "leir/tensor_table.h"
#include "support/error.h"

namespace steptp::codegen {

struct CudaEmitOptions {
  bool harness = true;         // emit main() (argv: [repeats] [dump-file])
  std::string wrap_namespace;  // non-empty: the device code sits in this namespace (several
                               // programs in one file; requires harness == false)
};

struct CudaSource {
  std::string code;
  leir::TensorTable table;
  std::vector<std::string> notes;  // one line per decision worth knowing (serial fallbacks, ...)
};

// Errors: "ill_formed", "unsupported" (as emit_c).
Result<CudaSource> emit_cuda(const leir::Program& p, const CudaEmitOptions& options = {});

// The nvcc executable: $STEPTP_NVCC, /usr/local/cuda/bin/nvcc, or `nvcc` on PATH; "" if none.
std::string find_nvcc();

}  // namespace steptp::codegen
