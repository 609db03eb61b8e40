// interp/executor.cpp — runs a CompiledProgram: loop nests, chunked expression evaluation,
// stores with dtype rounding, and the dynamic safety checks (bounds where not proven
// statically, initialization through per-element written maps, dynamic race tracking, output
// coverage). It follows compiler.cpp's decisions and never looks at the IR.
//
// Evaluation is by chunks: a node computes up to kChunk lanes (consecutive iterations of the
// innermost loop) at once, so the dispatch cost is paid once per chunk, not per iteration.
// if_then_else evaluates each branch only on the lanes that take it (masks), so an untaken
// branch never reads, faults or counts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "interp/compiled_program.h"
#include "leir/interval.h"
#include "leir/tensor_data.h"
#include "support/kernel_math.h"

namespace steptp::interp {
namespace {

constexpr int64_t kNobody = -1;
constexpr int64_t kManyReaders = -2;

double py_floor_div(double a, double b) {
  if (b == 0.0) return std::floor(a / b);
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0.0) return std::copysign(0.0, a / b);
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

double py_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// NaN-propagating and symmetric, so max(X,e) and max(e,X) agree bit for bit.
inline double vmax(double a, double b) { return (a != a || b != b) ? a + b : (a < b ? b : a); }
inline double vmin(double a, double b) { return (a != a || b != b) ? a + b : (b < a ? b : a); }

bool compare(leir::CompareOp op, double a, double b) {
  switch (op) {
    case leir::CompareOp::kLt:
      return a < b;
    case leir::CompareOp::kLe:
      return a <= b;
    case leir::CompareOp::kGt:
      return a > b;
    case leir::CompareOp::kGe:
      return a >= b;
    case leir::CompareOp::kEq:
      return a == b;
    case leir::CompareOp::kNe:
      return a != b;
  }
  return false;
}

std::string tuple_text(const std::vector<int64_t>& idx) {
  return fmt::format("[{}]", fmt::join(idx, ","));
}

class Executor {
 public:
  explicit Executor(const CompiledProgram& cp)
      : cp_(cp),
        checks_(cp.options.check_safety),
        vars_(static_cast<size_t>(cp.num_slots) + 1, 0),
        scratch_(cp.values.size() * kChunk),
        masks_(cp.values.size() * 2 * kChunk) {
    for (size_t i = 0; i < cp.values.size(); ++i)
      if (cp.values[i].op == ValueOp::kConst)
        std::fill_n(&scratch_[i * kChunk], kChunk, cp.values[i].value);
  }

  Result<std::vector<leir::TensorData>> run(const std::vector<leir::TensorData>& inputs) {
    STEPTP_TRY(bind_inputs(inputs));
    for (size_t b = 0; b < cp_.blocks.size(); ++b) {
      top_ = &cp_.blocks[b];
      thread_mult_.clear();
      uint64_t m = 1;
      for (auto it = top_->parallel_loops.rbegin(); it != top_->parallel_loops.rend(); ++it) {
        thread_mult_.insert(thread_mult_.begin(), m);
        m *= static_cast<uint64_t>(it->extent);
      }
      for (int t : top_->tracked_tensors) {
        std::fill(writer_[t].begin(), writer_[t].end(), kNobody);
        std::fill(reader_[t].begin(), reader_[t].end(), kNobody);
      }
      if (!run_block(top_->block, 0)) return std::move(*error_);
    }
    std::vector<leir::TensorData> outputs;
    for (size_t t = 0; t < cp_.table.tensors.size(); ++t) {
      const leir::TensorInfo& info = cp_.table.tensors[t];
      if (info.role != leir::TensorRole::kOutput) continue;
      if (checks_ && written_count_[t] != cp_.sizes[t]) {
        int64_t first = std::find(written_[t].begin(), written_[t].end(), 0) - written_[t].begin();
        return Error::make(
            "incomplete_output",
            fmt::format("output {} is incomplete: element {} is never written "
                        "({} of {} elements written)",
                        info.name, tuple_text(unravel(t, first)), written_count_[t], cp_.sizes[t]));
      }
      outputs.push_back(leir::TensorData{info.name, info.dtype, info.shape, std::move(data_[t])});
    }
    return outputs;
  }

 private:
  Result<void> bind_inputs(const std::vector<leir::TensorData>& inputs) {
    size_t n = cp_.table.tensors.size();
    data_.resize(n);
    base_.assign(n, nullptr);
    written_.resize(n);
    written_count_.assign(n, 0);
    writer_.resize(n);
    reader_.resize(n);
    std::vector<bool> bound(n, false);
    for (const leir::TensorData& in : inputs) {
      const leir::TensorInfo* info = cp_.table.find(in.name);
      if (info == nullptr || info->role == leir::TensorRole::kOutput ||
          info->role == leir::TensorRole::kIntermediate)
        return Error::make("bad_input",
                           fmt::format("{} is not a declared input, param or const", in.name));
      size_t t = static_cast<size_t>(info - cp_.table.tensors.data());
      if (bound[t]) return Error::make("bad_input", fmt::format("{} is given twice", in.name));
      if (in.shape != info->shape || in.dtype != info->dtype ||
          static_cast<int64_t>(in.values.size()) != cp_.sizes[t])
        return Error::make(
            "bad_input",
            fmt::format("{} is declared {}{} but was given {}{} with {} values", in.name,
                        leir::dtype_name(info->dtype), tuple_text(info->shape),
                        leir::dtype_name(in.dtype), tuple_text(in.shape), in.values.size()));
      // Inputs are never written (compile rejects that), so they are read in place.
      base_[t] = const_cast<double*>(in.values.data());
      bound[t] = true;
      written_count_[t] = cp_.sizes[t];
    }
    for (size_t t = 0; t < n; ++t) {
      const leir::TensorInfo& info = cp_.table.tensors[t];
      bool computed =
          info.role == leir::TensorRole::kOutput || info.role == leir::TensorRole::kIntermediate;
      if (!computed && !bound[t])
        return Error::make("bad_input", fmt::format("missing {} {}",
                                                    leir::tensor_role_name(info.role), info.name));
      if (computed) {
        data_[t].assign(static_cast<size_t>(cp_.sizes[t]), 0.0);
        base_[t] = data_[t].data();
        written_[t].assign(static_cast<size_t>(cp_.sizes[t]), 0);
      }
    }
    for (const TopBlock& tb : cp_.blocks)
      for (int t : tb.tracked_tensors) {
        writer_[t].assign(static_cast<size_t>(cp_.sizes[t]), kNobody);
        reader_[t].assign(static_cast<size_t>(cp_.sizes[t]), kNobody);
      }
    return ok();
  }

  // ---- loops ----

  bool run_block(const CompiledBlock& b, size_t level) {
    if (level == b.loops.size()) {
      for (int item : b.items) {
        if (item >= 0) {
          if (!exec_stmt(cp_.stmts[item], 1)) return false;
        } else if (!run_block(b.nested[static_cast<size_t>(-1 - item)], 0)) {
          return false;
        }
      }
      return true;
    }
    const CompiledLoop& l = b.loops[level];
    int64_t& v = vars_[l.slot];
    if (b.chunked && level + 1 == b.loops.size()) {
      lane_slot_ = l.slot;
      for (int64_t c0 = 0; c0 < l.extent; c0 += kChunk) {
        v = c0;
        int n = static_cast<int>(std::min<int64_t>(kChunk, l.extent - c0));
        for (int item : b.items)
          if (!exec_stmt(cp_.stmts[item], n)) return false;
      }
      lane_slot_ = -1;
      return true;
    }
    for (int64_t i = 0; i < l.extent; ++i) {
      v = i;
      if (!run_block(b, level + 1)) return false;
    }
    return true;
  }

  // ---- errors ----

  bool fail(std::string category, std::string what) {
    const CompiledStmt& s = *stmt_;
    error_ = Error::make(std::move(category), fmt::format("block {}, statement {} `{}`: {}",
                                                          s.top_block, s.ordinal, s.text, what));
    return false;
  }

  std::vector<int64_t> unravel(size_t t, int64_t addr) const {
    std::vector<int64_t> idx;
    for (int64_t s : cp_.strides[t]) {
      idx.push_back(s == 0 ? 0 : addr / s);
      addr = s == 0 ? addr : addr % s;
    }
    return idx;
  }

  // ---- addresses ----

  int64_t var(int slot, int lane) const { return vars_[slot] + (slot == lane_slot_ ? lane : 0); }

  int64_t affine_start(const Access& a) const {
    int64_t addr = a.base;
    for (const auto& [slot, c] : a.terms) addr += c * vars_[slot];
    return addr;
  }

  int64_t lane_stride(const Access& a) const {
    if (lane_slot_ < 0) return 0;
    for (const auto& [slot, c] : a.terms)
      if (slot == lane_slot_) return c;
    return 0;
  }

  bool eval_index(int node, int lane, int64_t& out) {
    const IndexNode& n = cp_.indices[node];
    int64_t a = 0, b = 0;
    switch (n.kind) {
      case IndexNode::Kind::kConst:
        out = n.value;
        return true;
      case IndexNode::Kind::kVar:
        out = var(n.slot, lane);
        return true;
      case IndexNode::Kind::kLoad: {
        double v = 0;
        if (!read_one(cp_.accesses[n.access], lane, v)) return false;
        if (!(std::fabs(v) < 1e15))
          return fail("out_of_bounds", fmt::format("index value {} is not a usable integer", v));
        out = static_cast<int64_t>(std::trunc(v));
        return true;
      }
      case IndexNode::Kind::kNeg:
        if (!eval_index(n.a, lane, a)) return false;
        out = -a;
        return true;
      case IndexNode::Kind::kAdd:
      case IndexNode::Kind::kSub:
      case IndexNode::Kind::kMul:
      case IndexNode::Kind::kFloorDiv:
      case IndexNode::Kind::kMod:
        break;
    }
    if (!eval_index(n.a, lane, a) || !eval_index(n.b, lane, b)) return false;
    switch (n.kind) {
      case IndexNode::Kind::kAdd:
        out = leir::sat_add(a, b);
        return true;
      case IndexNode::Kind::kSub:
        out = leir::sat_add(a, -b);
        return true;
      case IndexNode::Kind::kMul:
        out = leir::sat_mul(a, b);
        return true;
      case IndexNode::Kind::kFloorDiv:
      case IndexNode::Kind::kMod:
        if (b == 0) return fail("out_of_bounds", "index division by zero");
        out = n.kind == IndexNode::Kind::kMod ? leir::floor_mod(a, b) : leir::floor_div(a, b);
        return true;
      case IndexNode::Kind::kConst:
      case IndexNode::Kind::kVar:
      case IndexNode::Kind::kLoad:
      case IndexNode::Kind::kNeg:
        break;
    }
    return true;
  }

  // The element address of `a` at `lane`, bounds-checked unless proven in bounds.
  bool address(const Access& a, int lane, int64_t& addr) {
    if (a.affine && a.static_in_bounds) {
      addr = affine_start(a) + lane_stride(a) * lane;
      return true;
    }
    const auto& shape = cp_.table.tensors[a.tensor].shape;
    const auto& strides = cp_.strides[a.tensor];
    // Local, not a member: a non-affine dimension may gather through another access,
    // whose own address() would overwrite the indices collected so far.
    std::vector<int64_t> idx(a.dims.size());
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const DimIndex& di = a.dims[d];
      int64_t v = di.constant;
      if (di.affine) {
        for (const auto& [slot, c] : di.terms)
          v = leir::sat_add(v, leir::sat_mul(c, var(slot, lane)));
      } else if (!eval_index(di.node, lane, v)) {
        return false;
      }
      idx[d] = v;
    }
    addr = 0;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      if (idx[d] < 0 || idx[d] >= shape[d])
        return fail(
            "out_of_bounds",
            fmt::format("{} of {}{} is out of bounds for shape {}", a.is_write ? "write" : "read",
                        cp_.table.tensors[a.tensor].name, tuple_text(idx), tuple_text(shape)));
      addr += idx[d] * strides[d];
    }
    return true;
  }

  int64_t thread_id(int lane) const {
    uint64_t id = 0;
    for (size_t k = 0; k < top_->parallel_loops.size(); ++k)
      id += static_cast<uint64_t>(var(top_->parallel_loops[k].slot, lane)) * thread_mult_[k];
    return static_cast<int64_t>(id & 0x3fffffffffffffffULL);
  }

  bool race_error(const Access& a, int64_t addr, int64_t me, int64_t other, bool other_wrote) {
    return fail("race", fmt::format("iterations {} and {} of the parallel loops both touch {}{} "
                                    "({} it, the other {} it)",
                                    other, me, cp_.table.tensors[a.tensor].name,
                                    tuple_text(unravel(a.tensor, addr)),
                                    a.is_write ? "this one writes" : "this one reads",
                                    other_wrote ? "writes" : "reads"));
  }

  bool track(const Access& a, int64_t addr, int lane) {
    int64_t me = thread_id(lane);
    int64_t& w = writer_[a.tensor][addr];
    int64_t& r = reader_[a.tensor][addr];
    if (w != kNobody && w != me) return race_error(a, addr, me, w, true);
    if (a.is_write) {
      if (r != kNobody && r != me)
        return race_error(a, addr, me, r == kManyReaders ? -1 : r, false);
      w = me;
    } else {
      r = (r == kNobody || r == me) ? me : kManyReaders;
    }
    return true;
  }

  // One element read with every check (used by gathers and the slow paths).
  bool read_at(const Access& a, int lane, int64_t addr, double& out) {
    const auto& written = written_[a.tensor];
    if (!written.empty() && written_count_[a.tensor] != cp_.sizes[a.tensor] && !written[addr]) {
      if (a.has_identity) {
        out = a.identity;
        return true;
      }
      if (checks_)
        return fail("uninitialized_read", fmt::format("reads {}{}, which was never written",
                                                      cp_.table.tensors[a.tensor].name,
                                                      tuple_text(unravel(a.tensor, addr))));
    }
    if (checks_ && a.track_race && !track(a, addr, lane)) return false;
    out = base_[a.tensor][addr];
    return true;
  }

  bool read_one(const Access& a, int lane, double& out) {
    int64_t addr = 0;
    return address(a, lane, addr) && read_at(a, lane, addr, out);
  }

  // ---- values ----

  const double* load(const ValueNode& node, double* buf, int n, const uint8_t* mask) {
    const Access& a = cp_.accesses[node.access];
    const double* data = base_[a.tensor];
    bool complete = written_[a.tensor].empty() || written_count_[a.tensor] == cp_.sizes[a.tensor];
    if (a.affine && a.static_in_bounds && complete && !(a.track_race && checks_) &&
        mask == nullptr) {
      int64_t start = affine_start(a);
      int64_t stride = lane_stride(a);
      if (stride == 1) return data + start;
      for (int i = 0; i < n; ++i) buf[i] = data[start + stride * i];
      return buf;
    }
    for (int i = 0; i < n; ++i) {
      if (mask != nullptr && !mask[i]) {
        buf[i] = 0.0;
        continue;
      }
      int64_t addr = 0;
      if (!address(a, i, addr) || !read_at(a, i, addr, buf[i])) return nullptr;
    }
    return buf;
  }

  const double* eval(int id, int n, const uint8_t* mask) {
    const ValueNode& node = cp_.values[id];
    double* out = &scratch_[static_cast<size_t>(id) * kChunk];
    auto unary = [&](auto f) -> const double* {
      const double* x = eval(node.args[0], n, mask);
      if (x == nullptr) return nullptr;
      for (int i = 0; i < n; ++i) out[i] = f(x[i]);
      return out;
    };
    auto binary = [&](auto f) -> const double* {
      const double* x = eval(node.args[0], n, mask);
      if (x == nullptr) return nullptr;
      const double* y = eval(node.args[1], n, mask);
      if (y == nullptr) return nullptr;
      for (int i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
      return out;
    };
    switch (node.op) {
      case ValueOp::kConst:
        return out;
      case ValueOp::kVar: {
        int64_t base = vars_[node.slot];
        if (node.slot == lane_slot_) {
          for (int i = 0; i < n; ++i) out[i] = static_cast<double>(base + i);
        } else {
          std::fill_n(out, n, static_cast<double>(base));
        }
        return out;
      }
      case ValueOp::kLoad:
        return load(node, out, n, mask);
      case ValueOp::kNeg:
        return unary([](double x) { return -x; });
      case ValueOp::kAdd:
        return binary([](double x, double y) { return x + y; });
      case ValueOp::kSub:
        return binary([](double x, double y) { return x - y; });
      case ValueOp::kMul:
        return binary([](double x, double y) { return x * y; });
      case ValueOp::kDiv:
        return binary([](double x, double y) { return x / y; });
      case ValueOp::kFloorDiv:
        return binary(py_floor_div);
      case ValueOp::kMod:
        return binary(py_mod);
      case ValueOp::kPow:
        return binary([](double x, double y) { return std::pow(x, y); });
      case ValueOp::kAnd:
        return binary([](double x, double y) { return (x != 0 && y != 0) ? 1.0 : 0.0; });
      case ValueOp::kOr:
        return binary([](double x, double y) { return (x != 0 || y != 0) ? 1.0 : 0.0; });
      case ValueOp::kMax:
        return binary(vmax);
      case ValueOp::kMin:
        return binary(vmin);
      case ValueOp::kExp:
        return unary([](double x) { return stp_exp(x); });  // as the C kernels
      case ValueOp::kLog:
        return unary([](double x) { return stp_log(x); });  // as the C kernels
      case ValueOp::kSqrt:
        return unary([](double x) { return std::sqrt(x); });
      case ValueOp::kAbs:
        return unary([](double x) { return std::fabs(x); });
      case ValueOp::kErf:
        return unary([](double x) { return std::erf(x); });
      case ValueOp::kCompare: {
        const double* x = eval(node.args[0], n, mask);
        if (x == nullptr) return nullptr;
        std::fill_n(out, n, 1.0);
        for (size_t k = 0; k < node.compares.size(); ++k) {
          const double* y = eval(node.args[k + 1], n, mask);
          if (y == nullptr) return nullptr;
          for (int i = 0; i < n; ++i)
            if (!compare(node.compares[k], x[i], y[i])) out[i] = 0.0;
          x = y;
        }
        return out;
      }
      case ValueOp::kSelect:
        return select(node, id, out, n, mask);
    }
    return nullptr;
  }

  const double* select(const ValueNode& node, int id, double* out, int n, const uint8_t* mask) {
    const double* c = eval(node.args[0], n, mask);
    if (c == nullptr) return nullptr;
    uint8_t* tmask = &masks_[static_cast<size_t>(id) * 2 * kChunk];
    uint8_t* fmask = tmask + kChunk;
    int taken = 0, active = 0;
    for (int i = 0; i < n; ++i) {
      bool on = mask == nullptr || mask[i];
      bool t = c[i] != 0.0;
      tmask[i] = on && t;
      fmask[i] = on && !t;
      active += on;
      taken += on && t;
    }
    if (taken == active) return eval(node.args[1], n, mask);
    if (taken == 0) return eval(node.args[2], n, mask);
    const double* t = eval(node.args[1], n, tmask);
    if (t == nullptr) return nullptr;
    const double* f = eval(node.args[2], n, fmask);
    if (f == nullptr) return nullptr;
    for (int i = 0; i < n; ++i) out[i] = tmask[i] ? t[i] : f[i];
    return out;
  }

  // ---- statements ----

  void mark_written(int t, int64_t addr) {
    auto& w = written_[t];
    if (!w.empty() && !w[addr]) {
      w[addr] = 1;
      ++written_count_[t];
    }
  }

  bool exec_stmt(const CompiledStmt& s, int n) {
    stmt_ = &s;
    const Access& lhs = cp_.accesses[s.lhs];
    if (n > 1 && s.fold != Fold::kNone && lane_stride(lhs) == 0) return exec_fold(s, lhs, n);
    const double* v = eval(s.rhs, n, nullptr);
    if (v == nullptr) return false;
    int t = lhs.tensor;
    double* data = base_[t];
    bool f64 = s.dtype == leir::DType::kF64;
    bool complete = written_count_[t] == cp_.sizes[t];
    if (lhs.affine && lhs.static_in_bounds && !(lhs.track_race && checks_)) {
      int64_t start = affine_start(lhs);
      int64_t stride = lane_stride(lhs);
      if (complete && f64) {
        for (int i = 0; i < n; ++i) data[start + stride * i] = v[i];
      } else if (!written_[t].empty()) {
        uint8_t* w = written_[t].data();
        int64_t fresh = 0;
        for (int i = 0; i < n; ++i) {
          int64_t addr = start + stride * i;
          data[addr] = f64 ? v[i] : leir::round_to_dtype(v[i], s.dtype);
          fresh += w[addr] == 0;  // branch-free bookkeeping of first writes
          w[addr] = 1;
        }
        written_count_[t] += fresh;
      } else {
        for (int i = 0; i < n; ++i) data[start + stride * i] = leir::round_to_dtype(v[i], s.dtype);
      }
      return true;
    }
    for (int i = 0; i < n; ++i) {
      int64_t addr = 0;
      if (!address(lhs, i, addr)) return false;
      if (checks_ && lhs.track_race && !track(lhs, addr, i)) return false;
      data[addr] = f64 ? v[i] : leir::round_to_dtype(v[i], s.dtype);
      mark_written(t, addr);
    }
    return true;
  }

  // `X = X op e` with X fixed over the chunk: evaluate e for the chunk, then fold in order.
  bool exec_fold(const CompiledStmt& s, const Access& lhs, int n) {
    const double* e = eval(s.fold_operand, n, nullptr);
    if (e == nullptr) return false;
    int64_t addr = 0;
    if (!address(lhs, 0, addr)) return false;
    int t = lhs.tensor;
    double x = base_[t][addr];
    if (!written_[t].empty() && !written_[t][addr]) x = cp_.accesses[self_read(s)].identity;
    leir::DType dt = s.dtype;
    auto run = [&](auto op) {
      if (dt == leir::DType::kF64) {
        for (int i = 0; i < n; ++i) x = op(x, e[i]);
      } else {
        for (int i = 0; i < n; ++i) x = leir::round_to_dtype(op(x, e[i]), dt);
      }
    };
    switch (s.fold) {
      case Fold::kAdd:
        run([](double a, double b) { return a + b; });
        break;
      case Fold::kSubRight:
        run([](double a, double b) { return a - b; });
        break;
      case Fold::kMul:
        run([](double a, double b) { return a * b; });
        break;
      case Fold::kMax:
        run(vmax);
        break;
      case Fold::kMin:
        run(vmin);
        break;
      case Fold::kDivInto:
        run([](double a, double b) { return b / a; });
        break;
      case Fold::kFloorDivInto:
        run([](double a, double b) { return py_floor_div(b, a); });
        break;
      case Fold::kModInto:
        run([](double a, double b) { return py_mod(b, a); });
        break;
      case Fold::kNone:
        break;
    }
    base_[t][addr] = x;
    mark_written(t, addr);
    return true;
  }

  int self_read(const CompiledStmt& s) const {
    // The fold's self-read is the identity-carrying load among the RHS root's arguments.
    for (int arg : cp_.values[s.rhs].args) {
      const ValueNode& v = cp_.values[arg];
      if (v.op == ValueOp::kLoad && cp_.accesses[v.access].has_identity) return v.access;
    }
    STEPTP_CHECK(false, "a fold statement without its self-read");
  }

  const CompiledProgram& cp_;
  bool checks_;
  std::vector<int64_t> vars_;
  std::vector<double> scratch_;
  std::vector<uint8_t> masks_;
  std::vector<std::vector<double>> data_;  // outputs and intermediates
  std::vector<double*> base_;              // every tensor's values (inputs: the caller's)
  std::vector<std::vector<uint8_t>> written_;
  std::vector<int64_t> written_count_;
  std::vector<std::vector<int64_t>> writer_, reader_;
  std::vector<uint64_t> thread_mult_;
  const TopBlock* top_ = nullptr;
  const CompiledStmt* stmt_ = nullptr;
  int lane_slot_ = -1;
  std::optional<Error> error_;
};

}  // namespace

Result<std::vector<leir::TensorData>> execute(const CompiledProgram& cp,
                                              const std::vector<leir::TensorData>& inputs,
                                              RunStats* stats) {
  Executor ex(cp);
  auto out = ex.run(inputs);
  if (out.ok() && stats != nullptr) stats->statement_executions = cp.statement_executions;
  return out;
}

}  // namespace steptp::interp
