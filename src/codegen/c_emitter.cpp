#include "codegen/c_emitter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "codegen/c_expr.h"
#include "codegen/c_prelude.h"
#include "codegen/c_reduction_nests.h"
#include "codegen/channel_jam.h"
#include "codegen/code_writer.h"
#include "codegen/lowering_facts.h"
#include "leir/printer.h"
#include "leir/visit.h"

namespace steptp::codegen {
namespace {

using leir::LoopKind;

// A parallel loop inside a sequential one opens a parallel region on every iteration of the
// sequential loop; below this much work per region the fork/join costs more than it saves
// (a tiled loop's inner tile is typically 4-64 iterations), so it runs sequentially.
constexpr int64_t kMinWorkPerNestedRegion = int64_t{1} << 15;

// `jam` with its loop indices counted after the first `dropped` loops of its block.
LaneJam shifted(LaneJam jam, size_t dropped) {
  jam.first -= dropped;
  for (size_t& k : jam.hoisted) k -= dropped;
  for (size_t& k : jam.jammed) k -= dropped;
  for (size_t& k : jam.collapsed) k -= dropped;
  return jam;
}

leir::ExprRef affine_expr(const leir::AffineForm& f) {
  leir::ExprRef e = leir::Expr::integer(f.constant);
  for (const auto& [var, coef] : f.coefs)
    e = leir::Expr::binary(leir::BinaryOp::kAdd, e,
                           leir::Expr::binary(leir::BinaryOp::kMul, leir::Expr::integer(coef),
                                              leir::Expr::index_var(var)));
  return e;
}

// A guarded accumulation's innermost loop runs over its guard's range (guarded_loop_range) from
// this many iterations up. A shorter loop is better left to GCC, which unrolls it with the
// guard: computing the range of a convolution's 5 taps per output element doubled the time
// of naive conv_transposed_1D_dilated (33 -> 62 ms) where its 268-wide output loop gained
// 50 -> 6.8 ms.
constexpr int64_t kMinRangedExtent = 16;

bool body_has_only_statements(const leir::Block& b) {
  for (const leir::Item& i : b.body)
    if (!i.is_stmt()) return false;
  return true;
}

class CEmitter {
 public:
  CEmitter(const leir::Program& p, const leir::TensorTable& table, const CEmitOptions& o)
      : p_(p), table_(table), options_(o), expr_(table), inits_(plan_identity_inits(p, table)) {}

  std::string emit() {
    choose_local_arrays();
    const std::string prelude_text =
        c_kernel_prelude() +
        fmt::format("int steptp_num_buffers(void) {{ return {}; }}\n", table_.tensors.size());
    w_.open("void steptp_kernel(void** buffers) {");
    for (size_t i = 0; i < table_.tensors.size(); ++i) {
      const leir::TensorInfo& t = table_.tensors[i];
      if (local_.count(t.name)) continue;
      std::string ty = c_storage_type(t.dtype);
      w_.line(fmt::format("{0}* restrict {1} = ({0}*)buffers[{2}];", ty, c_tensor_name(t.name), i));
    }
    // Written-flags of the tracked tensors (see IdentityInit), zeroed on every run.
    for (const auto& [name, plan] : inits_)
      if (plan.mode == IdentityInit::kTracked)
        w_.line(fmt::format("uint8_t* restrict {} = (uint8_t*)calloc({}, 1);", flag_name(name),
                            std::max<int64_t>(1, leir::element_count(expr_.info(name).shape))));
    for (size_t b = 0; b < p_.blocks.size(); ++b) emit_top_block(b);
    for (const auto& [name, plan] : inits_)
      if (plan.mode == IdentityInit::kTracked) w_.line(fmt::format("free({});", flag_name(name)));
    w_.close();
    // Each region is defined before its first caller: nested regions are appended first.
    return prelude_text + regions_ + w_.take();
  }

 private:
  void choose_local_arrays() {
    local_ = plan_local_arrays(p_, table_, inits_, options_.max_local_elements);
    for (const auto& [name, plan] : local_)
      if (plan.depth > 0) expr_.store_as_slice(name, plan.fixed);
  }

  void emit_top_block(size_t b) {
    std::string text = leir::print(p_.blocks[b]);
    if (text.size() > 160) text = fmt::format("{}...", text.substr(0, 157));
    w_.line(fmt::format("/* block {}: {} */", b, text));
    w_.open("{");
    top_ = b;
    const leir::Block& block = p_.blocks[b];
    wide_ = options_.openmp && !block.loops.empty() &&
            lane_reduction_operator(block, block.loops.back()) && is_wide_vector_reduction(block);
    const bool wide_math = !wide_ && is_wide_elementwise_math(block);
    // log and erf are libmvec's functions (the prelude above).
    expr_.set_vector_math(calls_any(block, {leir::Function::kLog, leir::Function::kErf}) &&
                          reads_unconditionally(block) && !writes_tracked(block));
    region_count_ = 0;
    top_depth_ = 0;
    declared_.clear();
    declare_local_arrays();
    for (const auto& [name, plan] : inits_)
      if (plan.mode == IdentityInit::kPrefill && plan.first_block == b && !is_slice(name))
        emit_prefill(name, plan);
    std::string wide_definitions;
    if (has_wide_tile_version(block)) wide_definitions = definitions_with_wide_tiles();
    const size_t regions_before = regions_.size();
    function_prefix_ = wide_ ? "STP_WIDE " : wide_math ? "STP_WIDE_MATH " : "";
    emit_region(block, false, false, true);
    if (!wide_definitions.empty()) {
      std::string narrow = regions_.substr(regions_before);
      regions_.resize(regions_before);
      regions_ +=
          "#if defined(STP_WIDE_ENABLED)\n" + wide_definitions + "#else\n" + narrow + "#endif\n";
    }
    w_.close();
  }

  // The definitions of the current top-level block's functions built with 512-bit tiles
  // (kWideTileVectors), or "" when no stationary tile would use them. The caller emits the
  // block again with 256-bit ones and keeps the two under #if STP_WIDE_ENABLED: the source
  // stays the same on every machine, the compiler driver's flags pick the version. A block
  // with a select keeps one version (GCC 12's AVX-512 miscompilation, compiler_driver.h).
  std::string definitions_with_wide_tiles() {
    const size_t regions_before = regions_.size();
    const std::set<std::string> declared_before = declared_;
    Writer caller = std::move(w_);
    w_ = Writer{};  // takes the call, which the narrow version writes again
    tile_vectors_ = kWideTileVectors;
    wide_tile_emitted_ = false;
    function_prefix_ = wide_ ? "STP_WIDE " : "STP_WIDE_TILE ";
    emit_region(p_.blocks[top_], false, false, true);
    tile_vectors_ = kNarrowTileVectors;
    w_ = std::move(caller);
    declared_ = declared_before;
    region_count_ = 0;
    std::string definitions = regions_.substr(regions_before);
    regions_.resize(regions_before);
    return wide_tile_emitted_ ? definitions : std::string();
  }

  // Whether the block writes a tensor whose elements carry written-flags (their reads are
  // branches on the flag: emit_stmt).
  bool writes_tracked(const leir::Block& b) const {
    bool any = false;
    leir::for_each_stmt({b}, [&](const leir::Stmt& s, const leir::StmtContext&) {
      any = any || is_tracked(s.lhs->name());
    });
    return any;
  }

  bool is_slice(const std::string& tensor) const {
    auto it = local_.find(tensor);
    return it != local_.end() && it->second.depth > 0;
  }

  // Declares the local arrays of the current top-level block whose slice is fixed by the
  // header loops open now (top_depth_ of them); a slice is filled with its identity, if it has
  // one, each time it is declared: its elements are touched in this iteration only.
  void declare_local_arrays() {
    for (const auto& [name, plan] : local_) {
      if (plan.block != top_ || plan.depth > top_depth_ || declared_.count(name)) continue;
      declared_.insert(name);
      const leir::TensorInfo& t = expr_.info(name);
      std::string type = c_storage_type(t.dtype);
      w_.line(fmt::format("{} {}[{}];", type, c_tensor_name(name), plan.elements));
      auto init = inits_.find(name);
      if (plan.depth > 0 && init != inits_.end() && init->second.mode == IdentityInit::kPrefill) {
        leir::ExprRef any = leir::Expr::access(name, t.dtype, t.scope, {});
        w_.line(fmt::format(
            "for (int64_t k = 0; k < {}; ++k) {}[k] = {};", plan.elements, c_tensor_name(name),
            expr_.convert_for_store(any, c_identity_literal(init->second.identity))));
      }
    }
  }

  // Emits `b` as a call of a new static function whose tensor pointers are restrict-qualified
  // parameters, and defines that function. GCC honours `restrict` on parameters (also through
  // inlining) but not on the kernel's local pointer variables, nor on the pointers an OpenMP
  // parallel region receives through its outlined data block: without it every loop that
  // stores is vectorized only behind a run-time aliasing check, and a convolution ran at half
  // speed. The buffers are distinct allocations, so the qualifier holds. The loop variables open
  // around `b` are passed by value under their own names, so the body's text is unchanged.
  void emit_region(const leir::Block& b, bool inside_parallel, bool inside_serial, bool top_header,
                   const std::optional<LaneJam>& jam = std::nullopt) {
    w_.line(define_region(b, inside_parallel, inside_serial, top_header, jam));
  }

  // emit_region's function, defined; returns the text of its call.
  std::string define_region(const leir::Block& b, bool inside_parallel, bool inside_serial,
                            bool top_header, const std::optional<LaneJam>& jam) {
    std::vector<std::string> params;
    std::vector<std::string> args;
    for (const leir::TensorInfo& t : table_.tensors) {
      auto it = users_.find(t.name);
      if (it == users_.end() || !it->second.count(top_)) continue;
      if (is_slice(t.name) && !declared_.count(t.name)) continue;  // declared inside
      params.push_back(
          fmt::format("{}* restrict {}", c_storage_type(t.dtype), c_tensor_name(t.name)));
      args.push_back(c_tensor_name(t.name));
      if (is_tracked(t.name)) {
        params.push_back(fmt::format("uint8_t* restrict {}", flag_name(t.name)));
        args.push_back(flag_name(t.name));
      }
    }
    for (const std::string& v : open_vars_) {
      params.push_back(fmt::format("int64_t {}", v));
      args.push_back(v);
    }
    // stp_block<b> runs top-level block b; its parallel regions are stp_block<b>_region<k>.
    std::string name = region_count_ == 0
                           ? fmt::format("stp_block{}", top_)
                           : fmt::format("stp_block{}_region{}", top_, region_count_);
    ++region_count_;
    Writer caller = std::move(w_);
    w_ = Writer{};
    w_.open(fmt::format(
        "{}static void {}({}) {{", function_prefix_, name,
        params.empty() ? std::string("void") : fmt::format("{}", fmt::join(params, ", "))));
    std::set<std::string> declared_outside = declared_;
    emit_block(b, inside_parallel, inside_serial, top_header, jam);
    declared_ = std::move(declared_outside);
    w_.close();
    regions_ += w_.take();
    w_ = std::move(caller);
    return fmt::format("{}({});", name, fmt::join(args, ", "));
  }

  static std::string flag_name(const std::string& tensor) { return "w" + c_tensor_name(tensor); }

  bool is_tracked(const std::string& tensor) const {
    auto it = inits_.find(tensor);
    return it != inits_.end() && it->second.mode == IdentityInit::kTracked;
  }

  // Stores the identity over the whole tensor before the block of its first writer.
  void emit_prefill(const std::string& name, const TensorInitPlan& plan) {
    const leir::TensorInfo& t = expr_.info(name);
    int64_t n = leir::element_count(t.shape);
    leir::ExprRef any = leir::Expr::access(name, t.dtype, t.scope, {});
    w_.line(fmt::format("/* identity of {} before its accumulations */", name));
    w_.open("{");
    w_.line(fmt::format("const {} stp_id = {};", c_storage_type(t.dtype),
                        expr_.convert_for_store(any, c_identity_literal(plan.identity))));
    if (options_.openmp && n >= (1 << 15)) w_.line("#pragma omp parallel for schedule(static)");
    w_.line(
        fmt::format("for (int64_t k = 0; k < {}; ++k) {}[k] = stp_id;", n, c_tensor_name(name)));
    w_.close();
  }

  // One statement; a write of a tracked tensor also sets its flag, and its accumulation's
  // self-read of an unflagged element reads the identity.
  void emit_stmt(const leir::Stmt& s) {
    const std::string& x = s.lhs->name();
    if (!is_tracked(x)) {
      w_.line(fmt::format("{} = {};", expr_.element(s.lhs),
                          expr_.convert_for_store(s.lhs, expr_.value(s.rhs))));
      return;
    }
    std::string offset = expr_.offset(s.lhs);
    std::optional<double> id = accumulation_identity(s);
    if (id)
      expr_.substitute(s.lhs, fmt::format("({}[{}] ? {} : {})", flag_name(x), offset,
                                          expr_.load(s.lhs), c_identity_literal(*id)));
    std::string value = expr_.value(s.rhs);
    expr_.clear_substitution();
    w_.line(fmt::format("{} = {};", expr_.element(s.lhs), expr_.convert_for_store(s.lhs, value)));
    w_.line(fmt::format("{}[{}] = 1;", flag_name(x), offset));
  }

  // The OpenMP reduction operator of a vectorized innermost loop whose one statement accumulates
  // into an element that does not depend on the loop (loop_vectorization's reduction lanes), or
  // nothing: then the loop runs as written. Only f32/f64 destinations, whose C type is the
  // value's, and untracked tensors (no written-flags to keep) qualify.
  std::optional<std::string> lane_reduction_operator(const leir::Block& b,
                                                     const leir::Loop& l) const {
    if (b.loops.empty() || &b.loops.back() != &l) return std::nullopt;
    std::optional<analysis::Accumulation> acc =
        analysis::reduction_lane_accumulation(b, b.loops.size() - 1);
    if (!acc) return std::nullopt;
    const leir::Stmt& s = *b.body[0].stmt;
    if (is_tracked(s.lhs->name())) return std::nullopt;
    leir::DType t = expr_.info(s.lhs->name()).dtype;
    if (t != leir::DType::kF64 && t != leir::DType::kF32) return std::nullopt;
    switch (acc->op) {
      case analysis::AccumulateOp::kSum:
        return "+";
      case analysis::AccumulateOp::kProduct:
        return "*";
      case analysis::AccumulateOp::kMax:
        return "stp_maxr";
      case analysis::AccumulateOp::kMin:
        return "stp_minr";
      case analysis::AccumulateOp::kDivideBy:
        return std::nullopt;
    }
    return std::nullopt;
  }

  // Whether this emission is the 512-bit version of a wide reduction block (see
  // definitions_with_wide_tiles): its lane jams are chosen for and written in 8-double vectors.
  bool wide_jams() const { return wide_ && tile_vectors_.lanes == kWideTileVectors.lanes; }
  // The lane jam of `b`: in the 512-bit version, the one chosen for AVX-512's registers when it
  // can be written explicitly; otherwise the one every version shares.
  std::optional<LaneJam> lane_jam(const leir::Block& b) const {
    if (wide_jams())
      if (std::optional<LaneJam> wide = find_explicit_wide_lane_jam(b, table_)) return wide;
    return find_lane_jam(b);
  }

  // `inside_parallel`: an enclosing loop already runs in a parallel region; `inside_serial`: an
  // enclosing loop runs sequentially.
  // `top_header`: b's loops are (the rest of) a top-level block's header, counted in top_depth_.
  // `inherited_jam`: the lane jam found on the whole block a parallel loop was outlined from,
  // its loop indices counted in `b`. The region's block has lost the outer loops, so its
  // subscripts hold variables whose ranges the independence analysis no longer knows: found
  // again there, the jam would be missed, and the search's cost model (which looks at the
  // whole block) would price a jam the C does not have.
  void emit_block(const leir::Block& b, bool inside_parallel, bool inside_serial,
                  bool top_header = false,
                  const std::optional<LaneJam>& inherited_jam = std::nullopt) {
    size_t opened = 0;
    if (top_header) declare_local_arrays();
    bool parallel = inside_parallel;
    bool serial = inside_serial;
    std::optional<LaneJam> jam;
    std::optional<std::string> jam_op;
    if (options_.openmp && !b.loops.empty() &&
        (jam_op = lane_reduction_operator(b, b.loops.back())))
      jam = inherited_jam ? inherited_jam : lane_jam(b);
    // Tiles, streaming stores and guarded ranges each lower one statement whose tensor keeps
    // no written-flags.
    const leir::Stmt* single = single_untracked_stmt(b);
    std::optional<StationaryTile> tile;
    if (!jam && single) {
      tile = find_stationary_tile(b, table_, tile_vectors_);
      if (!tile && tile_vectors_.lanes != kNarrowTileVectors.lanes)
        tile = find_stationary_tile(b, table_);  // a row too short for the wide vectors
    }
    const size_t header_end = jam ? jam->first : tile ? tile->first : b.loops.size();
    std::optional<GuardedLoopRange> range;  // of the innermost loop (guarded_loop_range)
    const bool streams = !jam && !tile && single &&
                         is_streaming_store_nest(b, table_, options_.streaming_store_min_bytes);
    if (!jam && !tile && !streams) {
      if (std::optional<leir::Block> merged = merged_loops(b)) {
        emit_block(*merged, inside_parallel, inside_serial, top_header);
        return;
      }
    }
    for (size_t i = 0; i < header_end; ++i) {
      const leir::Loop& l = b.loops[i];
      if (streams && i + 1 == b.loops.size()) break;  // emit_streaming_stores writes it
      if (options_.openmp) {
        switch (l.kind) {
          case LoopKind::kBound:
          case LoopKind::kParallel:
            if (!parallel && analysis::is_independent_loop(b, l.var) &&
                executions_from(b, i) >=
                    (serial ? kMinWorkPerNestedRegion : options_.min_parallel_work)) {
              emit_parallel_loops(b, i, header_end, serial, top_header, jam);
              close_loops(opened, top_header);
              return;
            }
            break;
          case LoopKind::kVectorized:
            if (i + 1 == b.loops.size() && body_has_only_statements(b)) {
              if (analysis::is_independent_loop(b, l.var)) {
                w_.line("#pragma omp simd");
              } else if (std::optional<std::string> op = lane_reduction_operator(b, l)) {
                emit_lane_reduction(w_, expr_, b, l, *op);
                close_loops(opened, top_header);
                return;
              }
            }
            break;
          case LoopKind::kUnrolled:
            w_.line(fmt::format("#pragma GCC unroll {}", std::min<int64_t>(l.extent, 256)));
            break;
          case LoopKind::kSerial:
            break;
        }
      }
      if (i + 1 == b.loops.size() && l.extent >= kMinRangedExtent && single)
        range = guarded_loop_range(*single, l.var);
      w_.open(range ? ranged_for_header(l, *range) : for_header(l));
      open_vars_.push_back(c_var_name(l.var));
      ++opened;
      if (!parallel) serial = true;
      if (top_header) {
        ++top_depth_;
        declare_local_arrays();
      }
    }
    if (streams) {
      emit_streaming_stores(*single, b.loops.back());
      close_loops(opened, top_header);
      // Non-temporal stores are weakly ordered: fence them before this thread's part of the
      // block ends (the next block, or another thread after the barrier, reads them).
      w_.line("stp_stream_fence();");
      return;
    }
    emit_inside_header(b, jam, jam_op, tile, range, parallel, serial);
    close_loops(opened, top_header);
  }

  // What the header loops of emit_block's `b` hold: a register-tiled nest (an explicit 512-bit
  // lane jam, a lane jam, a stationary tile), a guarded statement over its range, or the body
  // as written.
  void emit_inside_header(const leir::Block& b, const std::optional<LaneJam>& jam,
                          const std::optional<std::string>& jam_op,
                          const std::optional<StationaryTile>& tile,
                          const std::optional<GuardedLoopRange>& range, bool parallel,
                          bool serial) {
    if (jam && wide_jams() && is_explicit_wide_lane_jam(b, table_, *jam)) {
      wide_tile_emitted_ = true;
      emit_wide_lane_jam(w_, expr_, b, *jam);
      return;
    }
    if (jam) {
      emit_lane_jam(w_, expr_, b, *jam, *jam_op);
      return;
    }
    if (tile) {
      if (tile->lanes != kStationaryLanes) wide_tile_emitted_ = true;
      emit_stationary_tile(w_, expr_, b, *tile);
      return;
    }
    if (range) {
      std::vector<std::string> tests;
      for (const leir::ExprRef& c : range->residual) tests.push_back(expr_.condition(c));
      if (!tests.empty()) w_.open(fmt::format("if ({}) {{", fmt::join(tests, " && ")));
      emit_stmt(range->stmt);
      if (!tests.empty()) w_.close();
      return;
    }
    for (const leir::Item& item : b.body) {
      if (item.is_stmt()) {
        emit_stmt(*item.stmt);
      } else {
        w_.open("{");
        emit_block(*item.block, parallel, serial);
        w_.close();
      }
    }
  }

  // The loop over the range its statement's guard allows (guarded_loop_range): from the
  // largest lower bound to the smallest upper one, clamped to [0, extent).
  std::string ranged_for_header(const leir::Loop& l, const GuardedLoopRange& r) const {
    std::string lo = "0";
    std::string hi = std::to_string(l.extent);
    auto index = [&](const leir::AffineForm& f) { return expr_.index(affine_expr(f)); };
    for (const GuardBound& b : r.bounds) {
      if (b.lower) {  // ceil(n/d) = -floor(-n/d)
        std::string v = b.divisor == 1 ? index(b.numerator)
                                       : fmt::format("-stp_floordiv_i({}, {})",
                                                     index(leir::negated(b.numerator)), b.divisor);
        lo = fmt::format("stp_max_i({}, {})", lo, v);
      } else {
        std::string v = b.divisor == 1
                            ? index(b.numerator)
                            : fmt::format("stp_floordiv_i({}, {})", index(b.numerator), b.divisor);
        hi = fmt::format("stp_min_i({}, {} + 1)", hi, v);
      }
    }
    std::string v = c_var_name(l.var);
    return fmt::format("for (int64_t {0} = {1}; {0} < {2}; ++{0}) {{", v, lo, hi);
  }

  // Loop `i` of `b` and the independent bound/parallel loops right after it (collapsed) as an
  // OpenMP parallel loop whose body is a region function (emit_region), behind a branch on the
  // thread count set by steptp_set_threads: a parallel region costs about 0.3 us even on one
  // thread (libgomp starts a team), which was most of the time of a small program's kernel, so
  // one thread runs the same loops without OpenMP.
  void emit_parallel_loops(const leir::Block& b, size_t i, size_t header_end, bool serial,
                           bool top_header, const std::optional<LaneJam>& jam) {
    size_t run = 1;
    while (i + run < header_end &&
           (b.loops[i + run].kind == LoopKind::kBound ||
            b.loops[i + run].kind == LoopKind::kParallel) &&
           analysis::is_independent_loop(b, b.loops[i + run].var))
      ++run;
    std::vector<std::string> headers;
    for (size_t k = 0; k < run; ++k) {
      headers.push_back(for_header(b.loops[i + k]));
      open_vars_.push_back(c_var_name(b.loops[i + k].var));
    }
    if (top_header) top_depth_ += run;
    leir::Block rest = b;
    rest.loops.erase(rest.loops.begin(), rest.loops.begin() + static_cast<long>(i + run));
    const std::string call =
        define_region(rest, true, serial, top_header,
                      jam ? std::optional<LaneJam>(shifted(*jam, i + run)) : std::nullopt);
    if (top_header) top_depth_ -= run;
    for (size_t k = 0; k < run; ++k) open_vars_.pop_back();
    auto loops_around_call = [&] {
      for (const std::string& h : headers) w_.open(h);
      w_.line(call);
      for (size_t k = 0; k < run; ++k) w_.close();
    };
    w_.open("if (stp_nthreads != 1) {");
    w_.line(run > 1 ? fmt::format("#pragma omp parallel for collapse({}) schedule(static)", run)
                    : std::string("#pragma omp parallel for schedule(static)"));
    loops_around_call();
    w_.reopen("} else {");
    loops_around_call();
    w_.close();
  }

  // Closes the innermost `n` loops emit_block opened.
  void close_loops(size_t n, bool top_header) {
    for (size_t i = 0; i < n; ++i) {
      w_.close();
      open_vars_.pop_back();
    }
    if (top_header) top_depth_ -= n;
  }

  // merged_innermost_loops where every offset `b` prints is the plain row-major one: no
  // local array of this top-level block (a slice leaves out subscripts) and no written-flags.
  std::optional<leir::Block> merged_loops(const leir::Block& b) const {
    for (const auto& [name, plan] : local_)
      if (plan.block == top_) return std::nullopt;
    bool plain = true;
    for (const leir::Item& item : b.body) {
      if (!item.is_stmt()) return std::nullopt;
      for (const leir::ExprRef& side : {item.stmt->lhs, item.stmt->rhs})
        leir::for_each_expr(side, [&](const leir::ExprRef& e) {
          if (e->kind() == leir::ExprKind::kAccess &&
              (local_.count(e->name()) || is_tracked(e->name())))
            plain = false;
        });
    }
    if (!plain) return std::nullopt;
    return merged_innermost_loops(b, table_);
  }

  // The body's statement when it is the only item and its tensor keeps no written-flags.
  const leir::Stmt* single_untracked_stmt(const leir::Block& b) const {
    if (b.body.size() != 1 || !b.body[0].is_stmt() || is_tracked(b.body[0].stmt->lhs->name()))
      return nullptr;
    return &*b.body[0].stmt;
  }

  // The innermost loop of a streaming-store nest (is_streaming_store_nest): the row is computed
  // into a local array exactly as the loop would store it (GCC vectorizes that loop as usual,
  // invariant operands hoisted), then streamed to the tensor with non-temporal stores. Writing
  // 4 elements at a time straight from the loop instead kept a per-row sqrt inside it (BatchNorm
  // 33 ms against 17).
  void emit_streaming_stores(const leir::Stmt& s, const leir::Loop& inner) {
    const std::string v = c_var_name(inner.var);
    w_.line(fmt::format("double stp_row[{}] __attribute__((aligned(32)));", inner.extent));
    w_.open(for_header(inner));
    open_vars_.push_back(v);
    w_.line(
        fmt::format("stp_row[{}] = {};", v, expr_.convert_for_store(s.lhs, expr_.value(s.rhs))));
    w_.close();
    w_.open("{");
    w_.line(fmt::format("const int64_t {} = 0;", v));
    w_.line(fmt::format("stp_stream_row(&{}, stp_row, {});", expr_.element(s.lhs), inner.extent));
    w_.close();
    open_vars_.pop_back();
  }

  const leir::Program& p_;
  const leir::TensorTable& table_;
  CEmitOptions options_;
  CExprPrinter expr_;
  std::map<std::string, TensorInitPlan> inits_;
  std::map<std::string, LocalArrayPlan> local_;  // intermediates kept in local arrays
  size_t top_depth_ = 0;            // header loops of the current top-level block open now
  std::set<std::string> declared_;  // local arrays declared in the current C scope
  std::map<std::string, std::set<size_t>> users_ = blocks_using(p_);
  size_t top_ = 0;               // the top-level block being emitted
  bool wide_ = false;            // its functions are STP_WIDE
  std::string function_prefix_;  // written before each of its function definitions
  TileVectors tile_vectors_ = kNarrowTileVectors;  // stationary tiles are built of these
  bool wide_tile_emitted_ = false;                 // a tile of kWideTileVectors was emitted
  std::vector<std::string> open_vars_;  // C names of the loop variables open at this point
  std::string regions_;                 // definitions of the region functions so far
  int region_count_ = 0;                // functions emitted for the current block
  Writer w_;
};

}  // namespace

Result<leir::TensorTable> table_for_codegen(const leir::Program& p) {
  Result<leir::TensorTable> table = leir::infer_tensor_table(p);
  if (!table.ok()) return table;
  for (const leir::TensorInfo& t : table->tensors)
    if (!leir::is_executable(t.dtype))
      return Error::make("unsupported", fmt::format("tensor '{}' has dtype {}, which code "
                                                    "generation does not support",
                                                    t.name, leir::dtype_name(t.dtype)));
  return table;
}

Result<CSource> emit_c(const leir::Program& p, const CEmitOptions& options) {
  Result<leir::TensorTable> table = table_for_codegen(p);
  if (!table.ok()) return std::move(table).error();
  CSource out;
  out.table = std::move(table).value();
  // The jammed program's table differs only in the shapes of the tensors it split (the same
  // elements in the same flat layout): the ABI stays the original table's.
  std::optional<ChannelJam> jam;
  if (options.jam_tile_channels) jam = jam_tile_channels(p, out.table);
  out.code = jam ? CEmitter(jam->program, jam->table, options).emit()
                 : CEmitter(p, out.table, options).emit();
  return out;
}

}  // namespace steptp::codegen
