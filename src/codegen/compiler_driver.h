// codegen/compiler_driver.h — turns C source into a loaded shared object, through a
// content-addressed cache: the key is a hash of the source, the compiler and its flags, so a
// second build of the same program loads the cached .so without running the compiler.
//
// Cache writes are atomic (compile to a temporary name, then rename). A compiler failure is a
// Result error of category "compile_error" carrying the first lines of the compiler's stderr.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/error.h"

namespace steptp::codegen {

// The flags of CompilerOptions::flags (commented there); -DSTP_WIDE_VECTORS is among them when
// the machine running this process has AVX-512 F, VL, DQ and BW (the kernels run where they are
// compiled, and -march=native already ties them to it).
std::vector<std::string> default_compiler_flags();
bool machine_has_wide_vectors();

struct CompilerOptions {
  std::string compiler;  // empty: $STEPTP_CC, else "cc"
  // -mno-avx512f: GCC 12 miscompiles AVX-512 masked if-conversion of guarded loads under
  // -march=native (tests/unit/codegen: tiled_guarded_padding); AVX2 keeps the vectorisation.
  // -fno-math-errno: the kernels never read errno, and without it every sqrt keeps a scalar
  // call for the errno of a negative argument, so a loop that takes a square root does not
  // vectorize (measured: 2.9 ns an element against 0.9). Results are unchanged: sqrt is
  // correctly rounded either way, and the other libm calls return the same values.
  // -fno-trapping-math: a floating-point comparison may raise the invalid flag on a NaN, so
  // with trapping math GCC refuses to if-convert a select on one (x < 0 ? 0 : x, stp_max,
  // if_then_else, stp_exp's clamp) and leaves the whole loop scalar. Nothing reads the flags,
  // and no value changes.
  // -DSTP_WIDE_VECTORS (default_compiler_flags, only on a machine with AVX-512): the C
  // emitter's vectorized reductions of lane-wise arithmetic (is_wide_vector_reduction) and
  // rows kept in registers (kWideTileVectors) are compiled for 512-bit vectors in functions
  // that enable AVX-512 for themselves, despite -mno-avx512f.
  std::vector<std::string> flags = default_compiler_flags();
  std::vector<std::string> extra_flags;  // appended after `flags` (part of the cache key)
  std::string cache_dir;  // empty: $STEPTP_CACHE_DIR, $XDG_CACHE_HOME/steptp/kernels,
                          // else ~/.cache/steptp/kernels
};

std::string resolve_cache_dir(const CompilerOptions& options);
std::string resolve_compiler(const CompilerOptions& options);

// A dlopen'ed shared object; dlclose'd when the last reference goes.
class SharedObject {
 public:
  ~SharedObject();
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  void* symbol(const char* name) const;  // nullptr when absent
  const std::string& path() const { return path_; }

  // Errors: "load_error" (dlopen failure).
  static Result<std::shared_ptr<SharedObject>> open(const std::string& path);

 private:
  SharedObject(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

struct BuildResult {
  std::shared_ptr<SharedObject> library;
  std::string key;  // 32 hex digits
  bool cache_hit = false;
};

// Errors: "compile_error", "io_error" (cache directory), "load_error".
Result<BuildResult> build_shared_object(const std::string& source, const CompilerOptions& options);

// The cache key of a source under these options (hex), without building.
std::string cache_key(const std::string& source, const CompilerOptions& options);

// How many times this process has run the compiler (for tests of the cache).
int64_t compiler_invocation_count();

}  // namespace steptp::codegen
