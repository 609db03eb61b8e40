// codegen/c_emitter.h — LEIR Program → one C translation unit for the CPU (OpenMP).
//
// ABI of the emitted unit:
//   void steptp_kernel(void** buffers);  buffers[i] is tensor i of the tensor table (declared
//                                         tensors in declaration order, then intermediates), in
//                                         the native storage type of c_storage_type().
//   int  steptp_num_buffers(void);        that count, for an ABI check at load time.
//   void steptp_set_threads(int n);       omp_set_num_threads in the kernel's OpenMP runtime.
// Emission never fails for a program whose tensor table can be inferred and whose dtypes are
// executable; it does not check bounds (the interpreter is the safety engine).
#pragma once

#include <string>

#include "codegen/lowering_facts.h"
#include "leir/ir.h"
#include "leir/tensor_table.h"
#include "support/error.h"

namespace steptp::codegen {

// Statements a top-level block executes per call below which its parallel loop runs without
// an OpenMP region: the region is opened once per call, and for a few microseconds of work
// waking a second thread costs about what it saves.
constexpr int64_t kMinParallelWork = int64_t{1} << 13;

struct CEmitOptions {
  bool openmp = true;  // false: no parallel/simd pragmas at all (a serial baseline)
  // Intermediates of scope s/l used by a single top-level block with at most this many
  // elements become arrays local to that block; larger ones use their table buffer.
  int64_t max_local_elements = 4096;
  // Streaming stores for assigned global tensors of at least this many bytes
  // (is_streaming_store_nest); tests lower it to exercise the path on small tensors.
  int64_t streaming_store_min_bytes = kStreamingStoreMinBytes;
  // Jam outer loops into one-row stationary tiles so that their rows share input loads
  // (jam_tile_channels); false emits the program's own nests.
  bool jam_tile_channels = true;
  // A top-level block's parallel loop opens an OpenMP region only when the block executes at
  // least this many statements per call (c_emitter.cpp says why); tests lower it to exercise
  // the regions on small programs.
  int64_t min_parallel_work = kMinParallelWork;
};

struct CSource {
  std::string code;
  leir::TensorTable table;  // buffer order of the ABI
};

// Errors: "ill_formed" (tensor table inference), "unsupported" (a dtype without native code).
Result<CSource> emit_c(const leir::Program& p, const CEmitOptions& options = {});

// The tensor table every backend uses, with each dtype checked to be executable.
// Errors: "ill_formed", "unsupported".
Result<leir::TensorTable> table_for_codegen(const leir::Program& p);

}  // namespace steptp::codegen
