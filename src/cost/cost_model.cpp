// cost/cost_model.cpp — the static cost estimate (see cost_model.h for what it models).
//
//   cost = Σ_statements executions(stmt) · per_iteration(stmt) / lanes(stmt) / threads(block)
//        + Σ_global intermediates 2 · elements                  (written once, read once)
//        + Σ_blocks Σ_large tensors it touches elements · (1 read, 2 written) / threads(block)
//          (memory traffic; see memory_traffic)
//        + Σ_statements Σ_large tensors the elements its loops fetch again after the first pass
//          (see restreamed_elements)
//
// per_iteration = 1 + Σ_accesses access_cost + Σ_calls call_cost + chain
//   access_cost: 0.1 when the innermost loop variable does not occur in the subscript (stays in
//   a register), 0.25 when it occurs in one subscript that only extent-1 dimensions follow
//   (unit stride; see stride_of) or the tensor fits in L1, otherwise (strided: a cache line
//   per element) 1.0 when the tensor fits in L2 or when the inner loop's lines (at most 512)
//   are reused by the next loop out, which walks them with unit stride, and 4.0 when each of
//   those lines comes from memory;
//   call_cost: what one call takes on its own (see library_call_cost): a power with an
//   exponent other than 0, 1, 2 (libm pow) 67, and it keeps the loop scalar (no libm vector
//   variant is declared for pow). exp is the kernels' own straight-line stp_exp
//   (support/kernel_math.h), 28; log and erf are libm's with their libmvec vector variants
//   declared (stp_vlog, stp_erf; codegen/c_emitter.cpp), 15 and 28; all three vectorize;
//   sqrt is one instruction under -fno-math-errno (which the C backend passes) and vectorizes: 1;
//   chain: 3 when the innermost loop carries an accumulation from one iteration to the next
//   (each iteration waits for the previous add: the latency, not the throughput, bounds it);
//   in reduction lanes 3 · min(1, vector_width / lanes): 16 lanes are 4 independent vector
//   accumulators, 4 lanes are still one chain of vector adds. A V reduction loop shorter than
//   vector_width is no reduction lanes at all: priced as the plain loop it measures like.
//   Register-tiled reduction lanes (the C backend jams small independent loops around a lane
//   reduction into separate accumulators, codegen::find_lane_jam): an access shared by the
//   jammed copies is charged once per copy it actually has, and the accumulators count as
//   independent chains.
//   Every run of a lane-reduction loop also costs 4 per accumulator (load it, reduce the lanes
//   into it, store it): a run is the V loop, or the V loop and the loops collapsed with it.
//   A jam that needs more vector registers than there are (LaneJam::spilled) adds 1.5 per
//   spilled register per iteration of the jam (a store and a reload on an accumulator chain).
//   Rows kept in vector registers (the C backend holds the elements a sum updates across the
//   loops that reduce into them, codegen::find_stationary_tile): the destination's read and
//   write cost nothing, and an access shared by the jammed rows is charged once per copy.
// The innermost loop is the innermost one with more than one iteration.
// lanes: what the C compiler runs side by side in the innermost loop —
//   - a vectorized (V) loop of independent iterations or of reduction lanes (loop_vectorization),
//   - or any innermost loop that -O3 vectorizes by itself: independent iterations, unit-stride
//     or invariant accesses, no libm calls, at least `vector_width` iterations;
//   both at most vector_width, and only when every access is contiguous and nothing calls libm.
#include "cost/cost_model.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "analysis/access.h"
#include "analysis/dependence.h"
#include "codegen/c_emitter.h"
#include "codegen/lowering_facts.h"
#include "leir/interval.h"
#include "leir/tensor_table.h"
#include "leir/visit.h"

namespace steptp::cost {
namespace {

enum class Stride { kInvariant, kUnit, kStrided };

constexpr double kChainLatencyCost = 3.0;
constexpr double kStridedFromMemoryCost = 4.0;
constexpr double kLaneRunCost = 4.0;
// A register a lane jam spills (codegen::LaneJam::spilled) is stored and reloaded once per
// iteration of the jam, and the accumulator chain it holds waits for the store to forward.
// Measured on a 128x512x1024 GEMM (1 thread): a 4 x 4 jam (16 accumulators, 8 spilled)
// 7.8-8.2 ms against 2 x 4 (none spilled) 4.7-6.6 ms; priced 3.7e7 against 2.6e7 with 1.5.
constexpr double kSpilledRegisterCost = 1.5;
constexpr int64_t kL1Lines = 512;  // 32 KiB of 64-byte lines

// The stride of `access` along the innermost loop variable `inner`: unit when only one
// subscript mentions it, with coefficient ±1, and either it is the last subscript or every
// dimension after it has extent 1 (shape known): X[c,0] of an [n,1] tensor walks memory with
// stride 1 just like X[0,c] of a [1,n] one.
Stride stride_of(const leir::Expr& access, const std::string& inner,
                 const std::vector<int64_t>* shape) {
  const auto& idx = access.indices();
  std::vector<size_t> mentioning;
  for (size_t i = 0; i < idx.size(); ++i)
    if (analysis::mentions_var(idx[i], inner)) mentioning.push_back(i);
  if (mentioning.empty()) return Stride::kInvariant;
  if (mentioning.size() > 1) return Stride::kStrided;
  const size_t at = mentioning.front();
  // A coefficient other than ±1 (c-3*f along f) skips elements: GCC assembles its vectors
  // element by element.
  if (std::optional<leir::AffineForm> form = leir::affine_form(*idx[at])) {
    auto coef = form->coefs.find(inner);
    if (coef != form->coefs.end() && coef->second != 1 && coef->second != -1)
      return Stride::kStrided;
  }
  if (at + 1 == idx.size()) return Stride::kUnit;
  if (!shape || shape->size() != idx.size()) return Stride::kStrided;
  for (size_t k = at + 1; k < shape->size(); ++k)
    if ((*shape)[k] != 1) return Stride::kStrided;
  return Stride::kUnit;
}

const std::vector<int64_t>* shape_of(const leir::Program& p, const std::string& tensor,
                                     const std::vector<int64_t>* inferred) {
  if (const leir::TensorDecl* d = p.find_decl(tensor)) return &d->shape;
  return inferred;
}

// Threads that can work on a top-level block: the leading P/B loops the C backend runs in
// parallel (independent ones, collapsed), capped by the thread count; one where the block is
// too small for the C backend to open a parallel region (codegen::kMinParallelWork).
double parallel_factor(const leir::Block& b, int threads) {
  if (threads <= 1 || codegen::executions_from(b, 0) < codegen::kMinParallelWork) return 1;
  double iterations = 1;
  for (const leir::Loop& l : b.loops) {
    if (l.kind != leir::LoopKind::kParallel && l.kind != leir::LoopKind::kBound) break;
    if (!analysis::is_independent_loop(b, l.var)) break;
    iterations *= static_cast<double>(l.extent);
  }
  return std::clamp(iterations, 1.0, static_cast<double>(threads));
}

// One call's cost in units, and whether it keeps its loop scalar. Measured (1 thread, AMD EPYC,
// glibc 2.36, -O3 -fno-math-errno; a pass over 1.8 M doubles in [0.5, 1.5] minus the same pass
// copying, at 0.21 ns a unit): pow(x, 3.0) 14.1 ns, sqrt 0.3 ns once vectorized, stp_exp 1.5 ns
// and stp_log 2.3 ns vectorized (4 lanes: 28 and 44 units a call before the lanes divide;
// libm's exp and log took 5.5 and 4.9 ns). erf took 9.2 ns as a scalar libm call; through
// libmvec's 4-lane variant (a GELU pass 1.5 against 7.3 ns an element) it costs what stp_exp
// does. log goes through libmvec's variants too where the C backend can (stp_vlog,
// codegen/c_emitter.cpp): 0.80 ns past the copy against 1.97 for stp_log, so 15 units.
// Pricing every call at 4 (the earlier figure) made a step that removes a libm call look no
// better than one that saves a load.
struct CallCost {
  double units = 0;
  bool scalar = false;  // a libm call without vector variants: GCC keeps its loop scalar
};

CallCost library_call_cost(const leir::Expr& e) {
  if (e.kind() == leir::ExprKind::kBinary && e.binary_op() == leir::BinaryOp::kPow) {
    const leir::Expr& exponent = *e.rhs();
    // GCC turns pow(x, 2.0) into x*x (exactly rounded either way); other exponents call pow.
    if (exponent.kind() == leir::ExprKind::kNumber &&
        (exponent.number_value() == 0 || exponent.number_value() == 1 ||
         exponent.number_value() == 2))
      return {};
    return {67, true};
  }
  if (e.kind() != leir::ExprKind::kCall) return {};
  switch (e.function()) {
    case leir::Function::kExp:
      return {28, false};
    case leir::Function::kLog:
      return {15, false};
    case leir::Function::kErf:
      return {28, false};
    case leir::Function::kSqrt:
      return {1, false};
    default:
      return {};
  }
}

// Every top-level block streams each tensor it touches that does not fit in L2 between memory
// and the cores (per thread share): kTrafficPerElement per element read, twice that when the
// block writes it (the line is read for ownership, then written back). Once per block when the
// slice one iteration of the block's header touches fits in L2 (the parts of a fused block then
// hand it over in cache), else once per body item (statement or nested block) touching it: a
// block fused under a batch loop whose slices are megabytes still streams them per part.
// Intermediates the C backend keeps in local arrays (codegen::plan_local_arrays) never leave the
// cache. Calibration (1 thread): a pass over 1.8 M doubles that reads one tensor and writes
// another takes 1.15 ms, where the per-statement terms give it 0.69 M units and a convolution
// estimated at 23 M units takes 4.9 ms (0.21 ns a unit): the 4.8 M missing units are 0.9 per
// element moved (3 per element).
constexpr double kTrafficPerElement = 1.0;

double memory_traffic(const leir::Program& p, const leir::TensorTable& table,
                      const CostModelOptions& options) {
  const double l2 = static_cast<double>(options.l2_elements);
  // Only tensors past L2 move; most programs have no scope-s/l intermediate to plan locals for
  // (this runs for every step the cost policy ranks, so the common case stays cheap).
  std::set<std::string> large;
  bool any_scoped = false;
  for (const leir::TensorInfo& t : table.tensors) {
    if (static_cast<double>(leir::element_count(t.shape)) > l2) large.insert(t.name);
    any_scoped = any_scoped ||
                 (t.role == leir::TensorRole::kIntermediate && t.scope != leir::Scope::kGlobal);
  }
  if (large.empty()) return 0;
  std::map<std::string, codegen::LocalArrayPlan> locals;
  if (any_scoped)
    locals = codegen::plan_local_arrays(p, table, codegen::plan_identity_inits(p, table),
                                        options.cache_elements);
  double traffic = 0;
  for (const leir::Block& b : p.blocks) {
    struct Use {
      bool written = false;  // by the current part
      double once = 1;       // 2 when any part writes it
      double per_part = 0;   // Σ over the parts touching it of 1 (read) or 2 (written)
      double slice = 0;      // elements one header iteration touches
    };
    std::map<std::string, Use> uses;
    for (const leir::Item& item : b.body) {
      std::set<std::string> in_part;
      auto note = [&](const leir::ExprRef& e, bool write) {
        if (e->kind() != leir::ExprKind::kAccess || !large.count(e->name()) ||
            locals.count(e->name()))
          return;
        auto [it, fresh] = uses.try_emplace(e->name());
        Use& u = it->second;
        if (fresh) {
          // Header loops whose variable is a whole subscript of the tensor divide it.
          u.slice = static_cast<double>(leir::element_count(table.find(e->name())->shape));
          for (const leir::Loop& l : b.loops)
            for (const leir::ExprRef& i : e->indices())
              if (i->kind() == leir::ExprKind::kIndexVar && i->name() == l.var) {
                u.slice /= static_cast<double>(l.extent);
                break;
              }
        }
        if (in_part.insert(e->name()).second) u.written = false;
        u.written = u.written || write;
      };
      std::vector<leir::Block> part{leir::Block{{}, {item}}};
      leir::for_each_stmt(part, [&](const leir::Stmt& s, const leir::StmtContext&) {
        note(s.lhs, true);
        leir::for_each_expr(s.lhs, [&](const leir::ExprRef& e) {
          if (e != s.lhs) note(e, false);
        });
        leir::for_each_expr(s.rhs, [&](const leir::ExprRef& e) { note(e, false); });
      });
      for (const std::string& name : in_part) {
        Use& u = uses.at(name);
        if (u.written) u.once = 2;
        u.per_part += u.written ? 2 : 1;
      }
    }
    double block_traffic = 0;
    for (const auto& [tensor, u] : uses) {
      const double elements = static_cast<double>(leir::element_count(table.find(tensor)->shape));
      block_traffic += kTrafficPerElement * elements * (u.slice <= l2 ? u.once : u.per_part);
    }
    traffic += block_traffic / parallel_factor(b, options.threads);
  }
  return traffic;
}

// How many more times than once a statement streams a tensor past L2 through its loops: the
// outermost loop level whose one iteration touches at most `l2` elements of the access holds
// them in cache across its inner loops; every iteration of that level and of the loops outside
// it fetches its own footprint again. A matrix product's 4x4 output tile streams the 512x1024
// weight once per 4 rows of the input (32 passes), a 2x8 tile once per 2 rows (64 passes):
// measured 6.4 against 10.2 ms, about 0.23 ns per element fetched again.
double restreamed_elements(const leir::Expr& access, const std::vector<const leir::Loop*>& loops,
                           const std::vector<int64_t>& shape, double l2) {
  const auto& idx = access.indices();
  if (idx.size() != shape.size()) return 0;
  const double elements = static_cast<double>(leir::element_count(shape));
  leir::VarRanges ranges;
  for (const leir::Loop* l : loops) ranges[l->var] = {0, l->extent - 1};
  double iterations = 1;  // of the loops fixed so far
  for (size_t k = 0; k <= loops.size(); ++k) {
    if (k > 0) {
      ranges[loops[k - 1]->var] = {0, 0};
      iterations *= static_cast<double>(loops[k - 1]->extent);
    }
    double footprint = 1;
    for (size_t d = 0; d < idx.size(); ++d) {
      std::optional<leir::Interval> r = leir::index_interval(*idx[d], ranges);
      double width = r ? static_cast<double>(r->hi - r->lo + 1) : static_cast<double>(shape[d]);
      footprint *= std::min(width, static_cast<double>(shape[d]));
    }
    if (footprint <= l2) return std::max(0.0, iterations * footprint - elements);
  }
  return 0;
}

// The shape the tensor table inferred for `name`, or nullptr.
const std::vector<int64_t>* inferred_shape(const Result<leir::TensorTable>& table,
                                           const std::string& name) {
  if (!table.ok()) return nullptr;
  const leir::TensorInfo* t = table->find(name);
  return t ? &t->shape : nullptr;
}

// The cost of one access per execution by its stride along the innermost iterating loop; a
// strided access clears `contiguous`.
double access_cost(const leir::Expr& e, Stride st, int64_t elements,
                   const std::vector<int64_t>* shape, const leir::Loop* inner,
                   const leir::Loop* next_out, const CostModelOptions& options, bool& contiguous) {
  const bool small = elements <= options.cache_elements;
  switch (st) {
    case Stride::kInvariant:
      return 0.1;
    case Stride::kUnit:
      return 0.25;
    case Stride::kStrided: {
      contiguous = false;
      const double cost = small                             ? 0.25
                          : elements <= options.l2_elements ? 1.0
                                                            : kStridedFromMemoryCost;
      // The lines one run of the inner loop fetches stay in L1 and serve the next
      // iterations of the loop outside it when that loop walks them with unit stride (a
      // channel reduction F[n,c,h,w] with c innermost and w next): measured no slower than
      // the unit-stride order, so no line comes from memory more than once.
      if (cost > 1.0 && next_out && inner->extent <= kL1Lines &&
          stride_of(e, next_out->var, shape) == Stride::kUnit)
        return 1.0;
      return cost;
    }
  }
  return 0;
}

// Large tensors a statement fetches from memory again and again, priced per element (per
// tensor, its worst access; memory_traffic charges the first pass).
double restream_cost(const leir::Program& p, const leir::Stmt& s, const leir::StmtContext& ctx,
                     const Result<leir::TensorTable>& table, const CostModelOptions& options) {
  std::map<std::string, double> restreamed;
  auto note_restream = [&](const leir::ExprRef& e) {
    if (e->kind() != leir::ExprKind::kAccess) return;
    const std::vector<int64_t>* shape = shape_of(p, e->name(), inferred_shape(table, e->name()));
    if (!shape || static_cast<double>(leir::element_count(*shape)) <=
                      static_cast<double>(options.l2_elements))
      return;
    double again =
        restreamed_elements(*e, ctx.loops, *shape, static_cast<double>(options.l2_elements));
    double& worst = restreamed[e->name()];
    worst = std::max(worst, again);
  };
  leir::for_each_expr(s.lhs, note_restream);
  leir::for_each_expr(s.rhs, note_restream);
  double cost = 0;
  for (const auto& [tensor, again] : restreamed) cost += kTrafficPerElement * again;
  return cost;
}

// The blocks' costs over their parallelism, plus the memory traffic of global intermediates
// (written to and read back from memory) and of the first pass over every tensor.
double program_cost(const leir::Program& p, const std::vector<double>& block_cost,
                    const Result<leir::TensorTable>& table, const CostModelOptions& options) {
  double total = 0;
  for (size_t b = 0; b < p.blocks.size(); ++b)
    total += block_cost[b] / parallel_factor(p.blocks[b], options.threads);

  // Global intermediates are written to and read back from memory.
  if (table.ok()) {
    for (const leir::TensorInfo& t : table->tensors)
      if (t.role == leir::TensorRole::kIntermediate && t.scope == leir::Scope::kGlobal)
        total += 2.0 * static_cast<double>(leir::element_count(t.shape));
    total += memory_traffic(p, *table, options);
  }
  return total;
}

}  // namespace

double estimated_cost(const leir::Program& p, const CostModelOptions& options) {
  Result<leir::TensorTable> table = leir::infer_tensor_table(p);

  std::vector<double> block_cost(p.blocks.size(), 0.0);
  auto cost_of = [&](const leir::Stmt& s, const leir::StmtContext& ctx) {
    double executions = 1;
    for (const leir::Loop* l : ctx.loops) executions *= static_cast<double>(l->extent);
    // The innermost loop that actually iterates: a loop of extent 1 compiles to nothing.
    const leir::Loop* inner = nullptr;
    const leir::Loop* next_out = nullptr;  // the iterating loop right outside `inner`
    for (const leir::Loop* l : ctx.loops)
      if (l->extent > 1) {
        next_out = inner;
        inner = l;
      }
    double per = 1.0;
    bool all_contiguous = true;
    bool calls_libm = false;
    // Register-tiled reduction lanes (codegen::find_lane_jam): the jammed copies of an access
    // that does not mention a jammed loop are one load, shared by the accumulators.
    std::optional<codegen::LaneJam> jam;
    std::optional<codegen::StationaryTile> tile;  // rows kept in vector registers
    if (ctx.nest && inner && &ctx.nest->loops.back() == inner) {
      jam = codegen::find_lane_jam(*ctx.nest);
      if (options.wide_vectors && table.ok() && codegen::is_wide_vector_reduction(*ctx.nest))
        if (std::optional<codegen::LaneJam> wide =
                codegen::find_explicit_wide_lane_jam(*ctx.nest, *table))
          jam = wide;
      if (!jam && table.ok()) tile = codegen::find_stationary_tile(*ctx.nest, *table);
    }
    const std::vector<size_t> no_jammed_loops;
    const std::vector<size_t>& jammed = jam ? jam->jammed : tile ? tile->jammed : no_jammed_loops;
    const double accumulators = static_cast<double>(jam    ? jam->accumulators
                                                    : tile ? tile->rows
                                                           : 1);
    auto shared_by = [&](const leir::Expr& access) {
      double copies = 1;
      for (size_t k : jammed)
        for (const leir::ExprRef& i : access.indices())
          if (analysis::mentions_var(i, ctx.nest->loops[k].var)) {
            copies *= static_cast<double>(ctx.nest->loops[k].extent);
            break;
          }
      return accumulators / copies;
    };
    auto charge = [&](const leir::ExprRef& e) {
      const CallCost call = library_call_cost(*e);
      per += call.units;
      calls_libm = calls_libm || call.scalar;
      if (e->kind() != leir::ExprKind::kAccess) return;
      if (tile && leir::equal(e, s.lhs)) return;  // a register
      const std::vector<int64_t>* shape = shape_of(p, e->name(), inferred_shape(table, e->name()));
      Stride st = inner ? stride_of(*e, inner->var, shape) : Stride::kInvariant;
      const int64_t elements = shape ? leir::element_count(*shape) : int64_t{1} << 20;
      const double cost =
          access_cost(*e, st, elements, shape, inner, next_out, options, all_contiguous);
      per += cost / shared_by(*e);
    };
    leir::for_each_expr(s.lhs, charge);
    leir::for_each_expr(s.rhs, charge);

    block_cost[ctx.top_block] += restream_cost(p, s, ctx, table, options);

    double lanes = 1;
    if (inner) {
      const leir::Block* nest = ctx.nest;
      bool innermost_of_nest = nest && !nest->loops.empty() && &nest->loops.back() == inner;
      bool independent = nest && analysis::is_independent_loop(*nest, inner->var);
      bool carries_accumulation = !independent && analysis::match_accumulation(s) &&
                                  !analysis::mentions_var(s.lhs, inner->var);
      // A reduction shorter than one vector gains nothing from lanes: an average pooling's
      // 3-tap window as a lane reduction, jammed over 10 outputs, ran 63 ms against 51 ms as
      // scalar code (a 2-double add, a scalar one and the shuffles to combine them for every
      // 3 elements); it is priced as the scalar chain it still is.
      bool reduction_lanes = inner->kind == leir::LoopKind::kVectorized && innermost_of_nest &&
                             !independent && inner->extent >= options.vector_width &&
                             analysis::reduction_lane_accumulation(*nest, nest->loops.size() - 1);
      // A jam's spilled registers: a store and a reload per jam iteration (kSpilledRegisterCost).
      if (jam) per += kSpilledRegisterCost * static_cast<double>(jam->spilled) / accumulators;
      // Lanes hide the latency once there are enough of them: 16 lanes are four independent
      // vector accumulators, 4 lanes still one chain of vector adds.
      // Jammed accumulators are independent chains too.
      if (carries_accumulation) {
        double chains =
            static_cast<double>(inner->extent) * static_cast<double>(jam ? jam->accumulators : 1);
        per += reduction_lanes ? kChainLatencyCost * std::min(1.0, options.vector_width / chains)
                               : kChainLatencyCost;
      }
      double width = std::max(1, options.vector_width);
      if (all_contiguous && !calls_libm) {
        if (inner->kind == leir::LoopKind::kVectorized && (independent || reduction_lanes))
          lanes = std::min(width, static_cast<double>(inner->extent));
        else if (independent && innermost_of_nest && inner->extent >= options.vector_width)
          lanes = width;
      }
      if (inner->kind == leir::LoopKind::kUnrolled) per *= 0.9;
      // Each run of a lane reduction loads its accumulator, reduces the lanes into it and
      // stores it: once per run of the SIMD loop, which jamming makes longer.
      if (reduction_lanes) {
        double run = 1;
        if (jam) {
          for (size_t k : jam->collapsed) run *= static_cast<double>(ctx.nest->loops[k].extent);
        } else {
          run = static_cast<double>(inner->extent);
        }
        block_cost[ctx.top_block] += executions / run * kLaneRunCost;
      }
    }
    block_cost[ctx.top_block] += executions * per / lanes;
  };
  leir::for_each_stmt(p.blocks, cost_of);

  return program_cost(p, block_cost, table, options);
}

}  // namespace steptp::cost
