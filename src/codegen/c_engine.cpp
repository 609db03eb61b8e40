#include "codegen/c_engine.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "codegen/c_expr.h"
#include "codegen/lowering_facts.h"
#include "leir/wellformed.h"
#include "support/saturating.h"

namespace steptp::codegen {
namespace {

using leir::DType;

template <typename T>
void put(T v, std::byte* dst) {
  std::memcpy(dst, &v, sizeof(T));
}
template <typename T>
T get(const std::byte* src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  return v;
}

uint16_t f16_bits(double v) {
  double r = leir::round_to_dtype(v, DType::kF16);
  if (std::isnan(r)) return 0x7e00;
  uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  double a = std::fabs(r);
  if (a > 65504.0) return static_cast<uint16_t>(sign | 0x7c00);
  if (a < 6.103515625e-05)
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(a * 16777216.0));
  int e = 0;
  double m = std::frexp(a, &e);
  return static_cast<uint16_t>(sign | ((e + 14) << 10) |
                               static_cast<uint16_t>((m * 2.0 - 1.0) * 1024.0));
}

double f16_value(uint16_t h) {
  double s = (h & 0x8000) ? -1.0 : 1.0;
  int ex = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (ex == 0) return s * std::ldexp(static_cast<double>(man), -24);
  if (ex == 31)
    return man ? std::numeric_limits<double>::quiet_NaN()
               : s * std::numeric_limits<double>::infinity();
  return s * std::ldexp(1024.0 + man, ex - 25);
}

uint16_t bf16_bits(double v) {
  double r = leir::round_to_dtype(v, DType::kBF16);
  if (std::isnan(r)) return 0x7fc0;
  float f = static_cast<float>(r);
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}

double bf16_value(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

void store_native(double v, DType t, std::byte* dst) {
  double r = leir::round_to_dtype(v, t);
  switch (t) {
    case DType::kF64:
      put<double>(r, dst);
      return;
    case DType::kF32:
      put<float>(static_cast<float>(r), dst);
      return;
    case DType::kF16:
      put<uint16_t>(f16_bits(v), dst);
      return;
    case DType::kBF16:
      put<uint16_t>(bf16_bits(v), dst);
      return;
    case DType::kI8:
      put<int8_t>(static_cast<int8_t>(r), dst);
      return;
    case DType::kI16:
      put<int16_t>(static_cast<int16_t>(r), dst);
      return;
    case DType::kI32:
      put<int32_t>(static_cast<int32_t>(r), dst);
      return;
    case DType::kI64:
      put<int64_t>(r >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max()
                                              : static_cast<int64_t>(r),
                   dst);
      return;
    case DType::kU8:
      put<uint8_t>(static_cast<uint8_t>(r), dst);
      return;
    case DType::kU16:
      put<uint16_t>(static_cast<uint16_t>(r), dst);
      return;
    case DType::kU32:
      put<uint32_t>(static_cast<uint32_t>(r), dst);
      return;
    case DType::kU64:
      put<uint64_t>(r >= 1.8446744073709552e19 ? std::numeric_limits<uint64_t>::max()
                                               : static_cast<uint64_t>(r),
                    dst);
      return;
    case DType::kBool:
      put<uint8_t>(r != 0.0 ? 1 : 0, dst);
      return;
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      break;
  }
  STEPTP_CHECK(false, "store_native of a non-executable dtype");
}

double load_native(DType t, const std::byte* src) {
  switch (t) {
    case DType::kF64:
      return get<double>(src);
    case DType::kF32:
      return get<float>(src);
    case DType::kF16:
      return f16_value(get<uint16_t>(src));
    case DType::kBF16:
      return bf16_value(get<uint16_t>(src));
    case DType::kI8:
      return get<int8_t>(src);
    case DType::kI16:
      return get<int16_t>(src);
    case DType::kI32:
      return get<int32_t>(src);
    case DType::kI64:
      return static_cast<double>(get<int64_t>(src));
    case DType::kU8:
    case DType::kBool:
      return get<uint8_t>(src);
    case DType::kU16:
      return get<uint16_t>(src);
    case DType::kU32:
      return get<uint32_t>(src);
    case DType::kU64:
      return static_cast<double>(get<uint64_t>(src));
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      break;
  }
  STEPTP_CHECK(false, "load_native of a non-executable dtype");
  return 0.0;
}

int64_t static_work(const leir::Program& program) {
  int64_t total = 0;
  for (const leir::Block& b : program.blocks) total = saturating_add(total, executions_from(b, 0));
  return total;
}

Result<CompiledKernel> CompiledKernel::build(const leir::Program& program,
                                             const CEngineOptions& options) {
  STEPTP_TRY(leir::check_well_formed(program));
  Result<CSource> src = emit_c(program, options.emit);
  if (!src.ok()) return std::move(src).error();
  int64_t work = static_work(program);
  if (work > options.work_budget)
    return Error::make("budget_exceeded",
                       fmt::format("the program executes {} statements, over the work budget {}",
                                   work, options.work_budget));
  int64_t bytes = 0;
  for (const leir::TensorInfo& t : src->table.tensors)
    bytes += saturating_mul(leir::element_count(t.shape), dtype_bytes(t.dtype));
  if (bytes > options.memory_budget_bytes)
    return Error::make("budget_exceeded",
                       fmt::format("the program's tensors need {} bytes, over the memory budget {}",
                                   bytes, options.memory_budget_bytes));
  Result<BuildResult> built = build_shared_object(src->code, options.compiler);
  if (!built.ok()) return std::move(built).error();
  CompiledKernel k;
  k.program_ = program;
  k.table_ = src->table;
  k.source_ = std::move(src->code);
  k.key_ = built->key;
  k.cache_hit_ = built->cache_hit;
  k.threads_ = options.threads;
  k.library_ = built->library;
  k.kernel_ = reinterpret_cast<void (*)(void**)>(k.library_->symbol("steptp_kernel"));
  k.set_threads_ = reinterpret_cast<void (*)(int)>(k.library_->symbol("steptp_set_threads"));
  auto count = reinterpret_cast<int (*)()>(k.library_->symbol("steptp_num_buffers"));
  if (!k.kernel_ || !k.set_threads_ || !count ||
      count() != static_cast<int>(k.table_.tensors.size()))
    return Error::make("load_error",
                       fmt::format("{} does not export the steptp kernel ABI", k.library_->path()));
  return k;
}

void CompiledKernel::set_threads(int threads) const {
  if (threads > 0) set_threads_(threads);
}

void advise_huge_pages(void* p, size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without it the pages stay 4 KiB
#else
  (void)p;
  (void)bytes;
#endif
}

KernelBuffers CompiledKernel::allocate() const {
  KernelBuffers b;
  b.storage_.resize(table_.tensors.size());
  for (size_t i = 0; i < table_.tensors.size(); ++i) {
    const leir::TensorInfo& t = table_.tensors[i];
    size_t n = static_cast<size_t>(leir::element_count(t.shape));
    b.storage_[i].assign(n * static_cast<size_t>(dtype_bytes(t.dtype)), std::byte{0});
  }
  for (auto& s : b.storage_) b.pointers_.push_back(s.data());
  return b;
}

template <class Value>
KernelBuffers CompiledKernel::filled(const Value& value) const {
  KernelBuffers b = allocate();
  for (size_t i = 0; i < table_.tensors.size(); ++i) {
    const leir::TensorInfo& t = table_.tensors[i];
    if (t.role == leir::TensorRole::kOutput || t.role == leir::TensorRole::kIntermediate) continue;
    const int64_t n = leir::element_count(t.shape);
    const size_t bytes = static_cast<size_t>(dtype_bytes(t.dtype));
    for (int64_t k = 0; k < n; ++k)
      store_native(value(i, t, k), t.dtype, b.storage_[i].data() + static_cast<size_t>(k) * bytes);
  }
  return b;
}

KernelBuffers CompiledKernel::prepare_generated(const ElementSource& value) const {
  return filled([&](size_t, const leir::TensorInfo& t, int64_t k) { return value(t, k); });
}

Result<KernelBuffers> CompiledKernel::prepare(const std::vector<leir::TensorData>& inputs) const {
  // Every value is checked against its declaration before any buffer is allocated.
  std::vector<const leir::TensorData*> given(table_.tensors.size(), nullptr);
  for (size_t i = 0; i < table_.tensors.size(); ++i) {
    const leir::TensorInfo& t = table_.tensors[i];
    if (t.role == leir::TensorRole::kOutput || t.role == leir::TensorRole::kIntermediate) continue;
    const size_t n = static_cast<size_t>(leir::element_count(t.shape));
    for (const leir::TensorData& d : inputs)
      if (d.name == t.name) given[i] = &d;
    if (!given[i])
      return Error::make("bad_input", fmt::format("no value given for {} '{}'",
                                                  leir::tensor_role_name(t.role), t.name));
    if (given[i]->dtype != t.dtype || given[i]->shape != t.shape || given[i]->values.size() != n)
      return Error::make("bad_input",
                         fmt::format("value of '{}' does not match its declaration (dtype {}, "
                                     "{} elements expected)",
                                     t.name, leir::dtype_name(t.dtype), n));
  }
  return filled([&](size_t i, const leir::TensorInfo&, int64_t k) {
    return given[i]->values[static_cast<size_t>(k)];
  });
}

void CompiledKernel::execute(KernelBuffers& buffers) const {
  STEPTP_CHECK(buffers.pointers_.size() == table_.tensors.size(), "buffers of another kernel");
  set_threads(threads_);
  kernel_(buffers.pointers_.data());
}

std::vector<leir::TensorData> CompiledKernel::outputs(const KernelBuffers& buffers) const {
  std::vector<leir::TensorData> out;
  for (size_t i = 0; i < table_.tensors.size(); ++i) {
    const leir::TensorInfo& t = table_.tensors[i];
    if (t.role != leir::TensorRole::kOutput) continue;
    leir::TensorData d{t.name, t.dtype, t.shape, {}};
    size_t n = static_cast<size_t>(leir::element_count(t.shape));
    int bytes = dtype_bytes(t.dtype);
    d.values.resize(n);
    for (size_t k = 0; k < n; ++k)
      d.values[k] =
          load_native(t.dtype, buffers.storage_[i].data() + k * static_cast<size_t>(bytes));
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<leir::TensorData>> CompiledKernel::run(
    const std::vector<leir::TensorData>& inputs) const {
  Result<KernelBuffers> b = prepare(inputs);
  if (!b.ok()) return std::move(b).error();
  execute(*b);
  return outputs(*b);
}

Result<std::vector<leir::TensorData>> run_compiled(const leir::Program& program,
                                                   const std::vector<leir::TensorData>& inputs,
                                                   const CEngineOptions& options) {
  Result<CompiledKernel> k = CompiledKernel::build(program, options);
  if (!k.ok()) return std::move(k).error();
  return k->run(inputs);
}

}  // namespace steptp::codegen
