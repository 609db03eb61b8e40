// codegen/lowering_facts.h — what every backend (C, CUDA, TIR) must know about a program before
// emitting it: which statements are accumulations and with which identity, which of them are the
// first write of their tensor (so the identity is stored first), and which loops are free of
// cross-iteration writes. Pure analysis of the IR; it emits no text.
//
// The accumulation rule mirrors the interpreter (leir_spec §2.3, plus the commuted forms): the
// LHS access as a positive term of a +/- chain → 0; as a factor of a * chain → 1; as the divisor
// of /, //, % → 1; as either argument of max → -inf, of min → +inf.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "leir/interval.h"
#include "leir/ir.h"
#include "leir/tensor_table.h"

namespace steptp::codegen {

// The identity of an accumulation statement, or nullopt for a plain store.
std::optional<double> accumulation_identity(const leir::Stmt& s);

// Facts about one statement, in program order.
struct StmtFacts {
  const leir::Stmt* stmt = nullptr;
  std::vector<const leir::Loop*> loops;  // enclosing loops, outermost first
  size_t top_block = 0;
  size_t ordinal = 0;
  std::optional<double> identity;  // accumulation identity
  bool first_write = false;        // no earlier statement writes this tensor
  bool init_before = false;        // identity is stored over the written region first
};

std::vector<StmtFacts> analyze_statements(const leir::Program& p);

// True when no two different iterations of `loop` (inside block `b`) write one element: every
// statement in the loop's scope (the rest of the header and the body) names the loop variable in
// its LHS subscript. A loop failing this is kept serial by the C backend.
bool loop_is_write_disjoint(const leir::Block& b, size_t loop_index);
bool body_is_write_disjoint(const std::vector<leir::Item>& body, const std::string& var);

// The loops (outermost first) over which the identity of `f` is stored: the enclosing loops
// whose variable occurs in the LHS subscript.
std::vector<const leir::Loop*> init_loops(const StmtFacts& f);

// How the C and CUDA backends give an accumulation its identity so that they agree with the
// interpreter exactly. The interpreter's rule: whenever an accumulation statement reads its own
// element and that element has never been written, it reads the identity (any such statement,
// not only the tensor's first writer). The backends decide per tensor, statically:
//   kNone     no accumulation can read an unwritten element: every accumulation of the tensor
//             runs in a top-level block after one whose statement writes the whole tensor;
//   kPrefill  every accumulation that may read an unwritten element has the same identity, and
//             it is storable (finite, or a float dtype): the whole tensor is filled with it
//             before the block of its first writer. An element nobody wrote then holds exactly
//             the identity; a written one holds its value — the interpreter's rule.
//   kTracked  otherwise (mixed identities, ±inf into an integer tensor): a written-flag per
//             element, set by every write; an accumulation's self-read of an unflagged element
//             reads the identity.
// A plain read of an unwritten element is an `uninitialized_read` in the interpreter; no
// backend needs to agree with it.
enum class IdentityInit { kNone, kPrefill, kTracked };

struct TensorInitPlan {
  IdentityInit mode = IdentityInit::kNone;
  double identity = 0.0;   // kPrefill
  size_t first_block = 0;  // top-level block of the tensor's first writer
};

// One entry per written tensor whose mode is not kNone.
std::map<std::string, TensorInitPlan> plan_identity_inits(const leir::Program& p,
                                                          const leir::TensorTable& table);

// An accumulation whose guard bounds its loop variable `var`:
//   X = X + if_then_else(cond, e, 0)   (either operand order; max(X, ...) with -inf, min with inf)
// An iteration whose guard is false leaves X as it was, so the loop can run over just the range
// the guard allows, without testing it per iteration (a transposed convolution's
// `0<=c-f*3<256`, an exclusive prefix sum's `c<=a`). `cond` is a conjunction (&) of comparison
// chains (< <= > >= ==); every link whose two sides differ in `var` compares affine index
// expressions. The other links are kept as a test inside the loop (`residual`, loop-invariant).
struct GuardBound {
  leir::AffineForm numerator;  // over the other loop variables
  int64_t divisor = 1;         // > 0
  bool lower = false;          // var >= ceil(numerator / divisor); else var <= floor(...)
};
struct GuardedLoopRange {
  leir::Stmt stmt;  // the accumulation of the guarded value alone: X = X + e
  std::vector<GuardBound> bounds;
  std::vector<leir::ExprRef> residual;  // comparisons that do not involve `var`
};
std::optional<GuardedLoopRange> guarded_loop_range(const leir::Stmt& s, const std::string& var);

// Which top-level blocks reference each tensor (reads or writes).
std::map<std::string, std::set<size_t>> blocks_using(const leir::Program& p);

// Intermediates the C backend keeps in a local array instead of their table buffer: scope s or
// l, read and written by one top-level block only, without written-flags (not kTracked). The
// array holds the slice that one iteration of the block's first `depth` header loops touches:
// each of those loop variables is, in every access of the tensor, the whole subscript at one
// position (`fixed`), so distinct iterations touch disjoint slices and the array is declared
// inside loop depth-1, holding only the other dimensions (`elements` of them, at most
// `max_elements`; the deepest such depth is taken). depth 0 is the whole tensor. A convolution
// row fused under its (n, c_out, h) loops needs 30 doubles instead of a 14 MB round trip
// through memory.
struct LocalArrayPlan {
  size_t block = 0;
  size_t depth = 0;
  std::vector<bool> fixed;  // per dimension: given by one of the first `depth` loops
  int64_t elements = 0;
};
std::map<std::string, LocalArrayPlan> plan_local_arrays(
    const leir::Program& p, const leir::TensorTable& table,
    const std::map<std::string, TensorInitPlan>& inits, int64_t max_elements);

// Statement executions of b.loops[from..] and everything nested in them (saturating at
// INT64_MAX); executions_from(b, 0) is the block's whole work.
int64_t executions_from(const leir::Block& b, size_t from);

// Register tiling of reduction lanes — the C backend's unroll-and-jam. A block whose one
// statement accumulates (sum, product, max, min) into an element that does not depend on its
// innermost loop, a vectorized (V) loop, is lowered as one SIMD loop when loops around it are
//   - "jammable": independent loops whose variable is in the LHS subscript (each iteration owns
//     its elements), of at most kMaxJamAccumulators iterations; or
//   - "collapsed": serial (L or U) loops whose variable is not in the LHS subscript (more of
//     the same reduction), folded with the V loop into one `omp simd collapse` loop.
// The walk goes outward from the V loop and stops at the first loop that is neither. Of the
// jammable loops, a set is "jammed" — fully unrolled into separate accumulators inside the
// SIMD loop — and the rest are "hoisted": kept as ordinary loops around it. The jammed set is
// the one that costs least per accumulator update, counting
//   - its loads: every jammed copy of each read, a whole-vector load as 1 and a vector GCC
//     assembles element by element (stride other than 1 along the V loop, or a V loop that is
//     not a whole number of vectors, so that the collapsed loop crosses rows mid-vector) as
//     kStationaryLanes;
//   - its spills: registers beyond kJamVectorRegisters — the accumulators, every jammed copy
//     of each read but the most-copied one (held while that one streams through a register)
//     and a product — each a store and a reload per iteration, kJamSpillCost;
// ties going to more accumulators. Legal because each element's updates keep their order up to
// the reassociation that reduction lanes already allow, and the iterations of jammed and
// hoisted loops touch disjoint elements. One dot-product chain becomes many independent vector
// accumulators that share their loads (a 2x4 tile of a GEMM: 6 loads for 8 multiply-adds
// instead of 16).
constexpr int64_t kMaxJamAccumulators = 16;
// Of the 16 AVX2 registers; the compiler keeps the last two for its own temporaries.
constexpr int64_t kJamVectorRegisters = 14;
// Measured (1 thread, AVX2), fastest of 3 rounds: on a 128x512x1024 GEMM (whole-vector
// loads) jams of 2 A rows x 4 B rows (cost 0.75, no spill) 5.5-7.5 ms, 2 x 8 (0.625 + 6 spilled
// / 16 = 1.0) 8.0-8.7 ms, 4 x 4 (1.0) 9.1-9.4 ms, 1 x 16 (1.375) 21-23 ms against 1 x 4
// (1.25) 8.8-9.0 ms; on a transposed 1-D convolution whose V loop has 5 lanes (assembled
// vectors) a 4 x 4 jam (2.5) 28-33 ms against 1 x 4 (5.0) 44 ms.
constexpr double kJamSpillCost = 1.0;

struct LaneJam {
  size_t first = 0;               // b.loops[first..] are lowered together
  std::vector<size_t> hoisted;    // loop indices, outermost first: loops around the SIMD loop
  std::vector<size_t> jammed;     // loop indices, outermost first
  std::vector<size_t> collapsed;  // loop indices, outermost first; the V loop is last
  int64_t accumulators = 1;       // product of the jammed extents (at least 2)
  // Vector registers the jam needs beyond kJamVectorRegisters: each is stored and reloaded
  // once per iteration of the jam (the search's cost model charges them).
  int64_t spilled = 0;
};

// The register budget a jam is chosen for (see find_lane_jam).
struct JamRegisters {
  int64_t available = kJamVectorRegisters;
  // Every loaded vector is held in its own register (the explicit 512-bit jam pins them, see
  // is_explicit_wide_lane_jam): the registers are the accumulators, every load and a product.
  // Otherwise the accumulators, every jammed copy of each read but the most-copied one and 2.
  bool loads_held = false;
};
constexpr JamRegisters kNarrowJamRegisters{kJamVectorRegisters, false};
// AVX-512's 32 registers, all of them: the explicit jam names each vector it needs.
constexpr JamRegisters kWideJamRegisters{32, true};

// nullopt when the block is not such a nest or nothing can be jammed.
std::optional<LaneJam> find_lane_jam(const leir::Block& b,
                                     JamRegisters registers = kNarrowJamRegisters);

// Lane jams written in explicit 512-bit vectors (the C backend's version for machines with
// AVX-512, STP_WIDE_VECTORS). GCC vectorizes the `omp simd` jam by itself, but with 16
// accumulators it spilled and re-read them: a 4 x 4 jam of a 128x512x1024 GEMM ran 4.0-4.9 ms
// that way against 3.7 ms for the searched 2 x 4 x 2 one, and 2.9-3.1 ms written with one
// 8-double vector per accumulator and each shared row loaded once into a register held there
// by an empty asm (the trick of the shared row loads, codegen.md). Such a jam: a sum (X = X + e
// or X - e) of f64 values throughout (the destination and every read), its V loop a whole
// number of 8-double vectors, and every read that moves with the V loop consecutive along it
// (its variable in the last subscript only, coefficient 1); the other reads are broadcast.
// The lanes are summed into the destination once, after the collapsed loops.
constexpr int64_t kWideJamLanes = 8;
bool is_explicit_wide_lane_jam(const leir::Block& b, const leir::TensorTable& table,
                               const LaneJam& jam);
// The jam the 512-bit version writes explicitly: the one find_lane_jam chooses for
// kWideJamRegisters, when is_explicit_wide_lane_jam holds of it; nullopt otherwise. The C
// emitter and the search's cost model (CostModelOptions::wide_vectors) both ask this.
std::optional<LaneJam> find_explicit_wide_lane_jam(const leir::Block& b,
                                                   const leir::TensorTable& table);

// Wide vectors for vectorized reductions. A block whose innermost loop is a vectorized
// reduction lane (a sum or a product: a lane jam or a plain lane reduction) and whose one
// statement is lane-wise arithmetic (+ - * /, negation, numbers and tensor reads: no select,
// no call) is compiled for 512-bit vectors where the machine has AVX-512 (the emitter marks its
// functions STP_WIDE; compiler_driver.h). Such a loop is bound by its multiplies and adds,
// which a 512-bit vector does twice as many of per instruction on this project's machines:
// the 2 x 4 jam of a 128x512x1024 GEMM 4.4-5.0 ms -> 3.1-3.5 ms (1 thread, Zen 5). Not
// every block: the whole kernel under AVX-512 (-mprefer-vector-width=512) made a Mish
// convolution 1.5x slower and a max-pooling 1.9x slower, and GCC 12's AVX-512 miscompilation
// (compiler_driver.h) is in its masked if-conversion of guarded loads, which only a select
// makes and these statements lack.
// The jam is chosen for 16 registers (kJamVectorRegisters), except in the explicit 512-bit
// version of a jam that qualifies (is_explicit_wide_lane_jam: kWideJamRegisters).
bool is_wide_vector_reduction(const leir::Block& b);

// Elementwise math that 512-bit vectors speed up: a perfect nest whose statements each assign
// (no accumulation) an expression calling exp or log, whose innermost loop is independent, and
// whose every tensor read happens whatever its selects decide (a read in an if_then_else
// branch is also read by the condition). The vectorized stp_exp and stp_log are bound by their
// arithmetic, which 8 lanes do in half the instructions: measured 1.4-1.6x on the searched
// programs of log_exp_scale, log_log_add, log_of_squares_product, MinGPTNewGelu and
// Conv2d_Activation_BatchNorm (docs/codegen.md); libmvec's log, which such nests call
// (CExprPrinter::set_vector_math), also runs faster at 8 lanes than at 4 (0.93 against 1.16 ns
// an element). Conditional reads are excluded because GCC
// 12 miscompiles AVX-512 masked loads of if-converted guards (tiled_guarded_padding);
// accumulations because whole-kernel 512-bit vectors made a max-pooling 1.9x slower. erf
// (libmvec's variants, stp_erf) may appear but alone does not make a nest wide: its 4- and
// 8-lane variants measured the same.
bool is_wide_elementwise_math(const leir::Block& b);

// Whether evaluating every statement of the block in full, select arms included, reads only
// what the selects' decisions would let it read: each read inside an if_then_else branch is
// also read by that select's condition, and no floating-point // or % (a libm call) appears.
// The C printer then computes selects as bit blends of both arms and calls libmvec's log
// (CExprPrinter::set_vector_math), which GCC vectorizes only in loops without branches.
bool reads_unconditionally(const leir::Block& b);

// Streaming stores. A nest whose one statement assigns (no accumulation, and no read of the
// tensor it writes) a global f64 tensor of at least kStreamingStoreMinBytes, walking it with
// unit stride along an independent innermost loop (serial or vectorized) whose extent is a
// multiple of 4 and whose every 4-element run starts at a multiple of 4 elements (the
// flattened offset's constant and every other variable's coefficient are multiples of 4), at
// most kStreamingStoreMaxRow iterations. Its C computes each row into a local array and writes
// it with non-temporal stores (_mm256_stream_pd where the compiler targets AVX), which skip
// reading each destination line into the cache before overwriting it: a read-and-write pass over
// 268 MB in plain C, 22 ms with plain stores and 15 ms with streaming ones on an AMD EPYC Zen 4;
// BatchNorm 16-24 -> 15-18 ms (docs/codegen.md). Only tensors far larger than the cache: a streamed
// line is not kept, and the next block reading a smaller tensor back would have found it cached.
constexpr int64_t kStreamingStoreMinBytes = int64_t{64} << 20;
constexpr int64_t kStreamingStoreMaxRow = 2048;  // the row is staged in 16 KiB of stack
bool is_streaming_store_nest(const leir::Block& b, const leir::TensorTable& table,
                             int64_t min_bytes = kStreamingStoreMinBytes);

// Whether a statement of the block calls one of `functions` (if_then_else counts: a select).
bool calls_any(const leir::Block& b, std::initializer_list<leir::Function> functions);

// Whether the C backend emits a version of the top-level block with tiles of kWideTileVectors
// (for machines with AVX-512) besides the 256-bit one: not for a block with a select, whose
// masked if-conversion GCC 12 miscompiles at 512 bits (compiler_driver.h).
bool has_wide_tile_version(const leir::Block& b);

// Merged innermost loops. Two innermost loops of a perfect nest (serial outer, serial or
// independent vectorized inner) are one loop over the product of their extents when each
// variable appears only in the subscripts of accesses and, in every access, the outer
// variable's coefficient in the row-major flattened offset is the inner extent times the
// inner variable's: then offset(outer, inner) = offset(0, outer * extent + inner), and the
// merged loop visits the same elements in the same order (bit-identical results). The result
// has the outer loop removed, the inner one spanning both, and the outer variable replaced by 0
// in every subscript: a subscript may then exceed its dimension, but the flattened offset is
// the element's, which is all the C backend prints. Merging repeats while the innermost loop
// is shorter than kMergedRowTarget. Why: a row of 30 (every 3x3 convolution's output) is 3
// vectors of 8 and a tail of 6 (a 4-double vector and 2 scalar iterations), and GCC enters the
// loop once per row; Conv2d_Mish_Mish's two Mish epilogues ran 5.3-6.1 ms each with rows of 30
// and 3.7-4.0 ms merged into rows of 900.
// nullopt when nothing merges; `b` must not read or write local arrays (whose C offsets leave
// out the subscripts their enclosing loops fix).
constexpr int64_t kMergedRowTarget = 256;
std::optional<leir::Block> merged_innermost_loops(const leir::Block& b,
                                                  const leir::TensorTable& table);

// Output-stationary vector accumulators — the C backend's register tile for a row of outputs.
// A block whose one statement accumulates X = X + e (a sum; f64 throughout; e built from
// + - * /, negation, numbers and tensor reads) and whose innermost loop, the "row" (at least
// one vector long), is independent, its variable entering X's last subscript with coefficient
// 1 and no other subscript (consecutive elements), as it enters every read that mentions it.
// Walking outward from the row, loops whose variable X's subscript lacks are "reduction" loops
// (serial or unrolled; they stay loops) and independent serial or unrolled loops whose
// variable it has are "jammed" (fully unrolled). The elements one pass of the reduction loops
// updates — the jammed iterations times the row — stay in vector registers across those loops:
// loaded once before, stored once after, instead of a load and a store around every update.
// A row that is not a whole number of vectors ends with a vector overlapping the one before
// it; the shared elements get the same updates in both, so both store the same values. Each
// element still receives its updates in their original order: the results are bit-identical.
// A convolution row kept across its taps, or a GEMM micro-kernel (rows jammed, k reduced).
constexpr int64_t kStationaryLanes = 4;        // doubles per 256-bit vector
constexpr int64_t kMaxStationaryVectors = 12;  // of the 16 vector registers

// The vectors a tile is built of: 256-bit ones (AVX2, 16 registers) everywhere, and where the
// machine has AVX-512 (STP_WIDE_VECTORS), 512-bit ones of 8 doubles, 24 of the 32 registers
// kept for accumulators (a row's loads and a broadcast take the rest). A row of 30 is 4 such
// vectors instead of 8, so two to six output channels fit in registers where one did (jammed
// that way, a convolution measured no faster: docs/codegen.md).
struct TileVectors {
  int64_t lanes = kStationaryLanes;
  int64_t max_vectors = kMaxStationaryVectors;
};
constexpr TileVectors kNarrowTileVectors{kStationaryLanes, kMaxStationaryVectors};
constexpr TileVectors kWideTileVectors{8, 24};

struct StationaryTile {
  size_t first = 0;                      // b.loops[first..] are lowered together
  std::vector<size_t> reduction;         // loop indices kept as loops, outermost first
  std::vector<size_t> jammed;            // loop indices unrolled, outermost first
  int64_t rows = 1;                      // product of the jammed extents
  int64_t lanes = kStationaryLanes;      // doubles per vector
  int64_t vectors = 0;                   // per row: ceil(row extent / lanes)
  std::vector<leir::ExprRef> row_reads;  // reads that move along the row: vector loads
};

// The first row element of vector v (the last one ends at the row's end).
int64_t stationary_vector_start(int64_t row_extent, int64_t v, int64_t lanes = kStationaryLanes);

// nullopt when the block is not such a nest, or nothing would stay in registers (no
// reduction iterations to share, or too many accumulators for the registers).
std::optional<StationaryTile> find_stationary_tile(const leir::Block& b,
                                                   const leir::TensorTable& table,
                                                   TileVectors unit = kNarrowTileVectors);

// Which row reads of a wide tile's update are loaded once per pass of the reduction loops and
// shared by every jammed row: those no jammed variable enters (the same vector for each row),
// of a tensor other than the accumulated one. Left to itself, GCC 12 folds such a load into
// each multiply that uses it, so a 4-row jam made 4 loads where 1 would do and spilled
// accumulators around them (docs/codegen.md). Narrow tiles (also compiled by clang) and tiles
// of one row share none. One flag per t.row_reads.
std::vector<bool> shared_row_reads(const leir::Block& b, const StationaryTile& t);

}  // namespace steptp::codegen
