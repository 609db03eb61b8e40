// analysis/dependence.h — loop-carried dependences inside one loop nest, decided exactly enough
// for the loop strategies: which loops may run their iterations in parallel, which reorderings
// keep every conflicting pair of iterations in order, and the CUDA launch limits of a kernel.
//
// The analysis is conservative: "unknown" always answers "there may be a dependence". It looks
// only inside one block; a block runs to completion before the next one starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/access.h"
#include "leir/ir.h"

namespace steptp::analysis {

// Whether an affine index expression takes a different value for every point of the box
// (mixed-radix test: sorted by |coefficient|, each exceeds the span of the smaller terms).
bool is_injective_index(const leir::Expr& e, const leir::VarRanges& ranges);

// A loop variable separates a tensor in a block when two iterations with different values of the
// variable never touch the same element of the tensor: some dimension is indexed by the same
// injective affine expression in every access, and that expression mentions the variable.
bool separates(const leir::Block& b, std::string_view var, std::string_view tensor);

// A tensor written in the block only by reassociable accumulations (sum, product, max, min) of
// one kind with one subscript, and read nowhere else in the block: its cross-iteration conflicts
// are a reduction, so their order does not matter (up to floating-point rounding).
bool is_pure_reduction(const leir::Block& b, std::string_view tensor);

// Reduction lanes: b.loops[pos] is the innermost loop of a nest whose whole body is one
// reassociable accumulation (sum, product, max, min) into an element that does not depend on
// the loop, so each lane may keep a partial result and the partials be combined at the end.
// The accumulation, or nullopt. Whether the loop is already vectorized is the caller's question.
std::optional<Accumulation> reduction_lane_accumulation(const leir::Block& b, size_t pos);

// The loop's iterations touch disjoint elements of every tensor the block writes, so they may run
// in any order or at once (P, V, B annotations). Reductions do not count as independent.
bool is_independent_loop(const leir::Block& b, std::string_view var);

// The header loop order `order` (a permutation of the header's variables) keeps every pair of
// conflicting iterations in their original order; reductions may be reordered freely. Returns
// the first tensor whose dependence would be reversed, or "" when legal.
std::string reorder_violation(const leir::Block& b, const std::vector<std::string>& order);

// ---------------------------------------------------------------------------------------------
// CUDA launch limits (one table; a top-level block is one kernel)
// ---------------------------------------------------------------------------------------------

struct LaunchLimits {
  static constexpr int64_t kMaxThreadsX = 1024;
  static constexpr int64_t kMaxThreadsY = 1024;
  static constexpr int64_t kMaxThreadsZ = 64;
  static constexpr int64_t kMaxThreadsPerBlock = 1024;
  static constexpr int64_t kMaxBlocksX = 2147483647;  // 2^31 - 1
  static constexpr int64_t kMaxBlocksYZ = 65535;
};

// A hardware axis: 't' or 'b', and 'x', 'y' or 'z'.
struct HardwareAxis {
  char level = 't';
  char axis = 'x';
  bool operator==(const HardwareAxis&) const = default;
};
// The axis a binding variable names ("tx", "tya", "bza"), or nullopt for a non-binding name.
std::optional<HardwareAxis> hardware_axis(std::string_view var);
int64_t axis_limit(HardwareAxis a);

// The bound (B) loops of a kernel (the header and nested headers of a top-level block).
std::vector<const leir::Loop*> bound_loops(const leir::Block& kernel);
// The product of the extents of all thread-bound loops of the kernel.
int64_t threads_per_block(const leir::Block& kernel);

}  // namespace steptp::analysis
