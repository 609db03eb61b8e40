// codegen/c_engine.h — the compiled-C engine: emit C, build it through the kernel cache, load
// it, and run it on TensorData, mirroring interp::Interpreter (compile once, run many times).
//
// It is the fast engine, not the safety engine: the code has no dynamic bounds, race or
// initialization checks. Before building it refuses what the interpreter refuses statically
// (well-formedness, work and memory budgets); verification runs the interpreter for safety.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "codegen/c_emitter.h"
#include "codegen/compiler_driver.h"
#include "leir/ir.h"
#include "leir/tensor_data.h"
#include "leir/tensor_table.h"
#include "support/error.h"

namespace steptp::codegen {

struct CEngineOptions {
  CompilerOptions compiler;
  CEmitOptions emit;
  int threads = 0;  // OpenMP threads for every run; 0 keeps the runtime's default
  int64_t work_budget = 200'000'000'000;  // statement executions, from the loop extents
  int64_t memory_budget_bytes = 8LL << 30;
};

// madvise(MADV_HUGEPAGE) where the kernel has it; a no-op elsewhere.
void advise_huge_pages(void* p, size_t bytes) noexcept;

// Allocates on cache-line boundaries: malloc's 16-byte alignment makes every other 32-byte
// vector load of a row straddle two cache lines, which costs vectorized kernels up to a third
// of their speed and would make timings depend on where the allocator put each buffer.
// Buffers of 2 MiB or more start on 2 MiB boundaries and are advised as transparent huge pages:
// fewer page walks for large tensors (naive Average_Pooling_2D 84-93 -> 74 ms).
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  static constexpr size_t kHugePage = size_t{2} << 20;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes, kAlignment));
    void* p = ::operator new (bytes, std::align_val_t{kHugePage});
    advise_huge_pages(p, bytes);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePage)
      ::operator delete(p, kAlignment);
    else
      ::operator delete (p, std::align_val_t{kHugePage});
  }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept {
    return true;
  }
};

// Native buffers of every tensor of the table, in table order (the kernel ABI).
class KernelBuffers {
 public:
  std::vector<void*>& pointers() { return pointers_; }
  using Storage = std::vector<std::byte, CacheLineAllocator<std::byte>>;
  const std::vector<Storage>& storage() const { return storage_; }

 private:
  friend class CompiledKernel;
  std::vector<Storage> storage_;
  std::vector<void*> pointers_;
};

class CompiledKernel {
 public:
  // Errors: "ill_formed", "unsupported", "budget_exceeded", "compile_error", "io_error",
  // "load_error".
  static Result<CompiledKernel> build(const leir::Program& program,
                                      const CEngineOptions& options = {});

  // One TensorData per declared non-output tensor, matched by name with the declared dtype and
  // shape ("bad_input" otherwise). Returns the declared outputs in declaration order.
  Result<std::vector<leir::TensorData>> run(const std::vector<leir::TensorData>& inputs) const;

  // The pieces of run(), for timing: buffers are filled once, the kernel runs many times.
  Result<KernelBuffers> prepare(const std::vector<leir::TensorData>& inputs) const;
  // Buffers whose inputs are generated element by element in place (value(tensor, k)), so a
  // benchmark's inputs of several GB are never held twice, once as TensorData.
  using ElementSource = std::function<double(const leir::TensorInfo&, int64_t element)>;
  KernelBuffers prepare_generated(const ElementSource& value) const;
  void execute(KernelBuffers& buffers) const;
  void execute_raw(KernelBuffers& buffers) const { kernel_(buffers.pointers_.data()); }
  std::vector<leir::TensorData> outputs(const KernelBuffers& buffers) const;
  void set_threads(int threads) const;

  const leir::TensorTable& tensors() const { return table_; }
  const std::string& source() const { return source_; }
  const std::string& cache_key() const { return key_; }
  bool cache_hit() const { return cache_hit_; }
  int threads() const { return threads_; }

 private:
  CompiledKernel() = default;
  KernelBuffers allocate() const;  // every tensor's buffer, zeroed
  // Allocates, then stores value(i, t, k) as element k of every input and parameter t (table
  // index i). A template, not an ElementSource: verification fills through it too, and an
  // indirect call per element would cost it time on every run.
  template <class Value>
  KernelBuffers filled(const Value& value) const;
  leir::Program program_;
  leir::TensorTable table_;
  std::string source_;
  std::string key_;
  bool cache_hit_ = false;
  int threads_ = 0;
  std::shared_ptr<SharedObject> library_;
  void (*kernel_)(void**) = nullptr;
  void (*set_threads_)(int) = nullptr;
};

// Convenience: build (through the cache) and run once.
Result<std::vector<leir::TensorData>> run_compiled(const leir::Program& program,
                                                   const std::vector<leir::TensorData>& inputs,
                                                   const CEngineOptions& options = {});

// Statement executions of a program from its loop extents (saturating at INT64_MAX).
int64_t static_work(const leir::Program& program);

// Native storage conversions of one element (f16/bf16 as IEEE bit patterns).
void store_native(double v, leir::DType t, std::byte* dst);
double load_native(leir::DType t, const std::byte* src);

}  // namespace steptp::codegen
