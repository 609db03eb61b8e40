// codegen/channel_jam.h — the C backend's unroll-and-jam of an outer loop into a stationary
// tile, so that jammed rows share their input loads.
//
// A convolution fused under its (n, c_out, row) loops keeps one output row in vector registers
// across its 27 taps (find_stationary_tile), but every tap loads the input row again for each
// output channel: the loads, most of them across a cache line, bound it (docs/codegen.md).
// The same row for 4 output channels at once needs each input vector once: measured 3.1-3.6
// against 3.7-3.9 ms on Conv2D_ReLU_BiasAdd's searched schedule, reached only by a 13-step
// schedule the search does not find. This rewrite gives every such schedule that jam.
//
// A top-level block qualifies when
//   - it has a 512-bit tile version (has_wide_tile_version: no select) and holds a stationary
//     tile (find_stationary_tile with kWideTileVectors) of one row, in its header (after the
//     chosen loop) or in a nested block;
//   - a serial header loop `p` of the block, before the tile, enters the tile's accumulated
//     element but not one of its row reads (the read the jammed rows would share), its extent
//     a multiple of J (4, else 2) and J rows of the tile fit the wide registers;
//   - the iterations of `p` are independent of each other: in every access of every tensor the
//     block writes, p's variable is the whole subscript at one position (analysis::
//     position_fixed_by), and no nested loop reuses its name.
// The rewrite splits `p` into an outer loop `o` (extent E/J, in p's place) and an inner one
// `i` (extent J), p's variable becoming o*J+i: `i` enters the tile's header just before its
// first loop as an unrolled loop, which find_stationary_tile then jams, and every other item
// on the way there is wrapped in a serial loop over `i`. Legal because the iterations of `p`
// touch disjoint elements and read nothing another one writes, so any interleaving that keeps
// each iteration's own order computes the same values; each element receives its updates in
// their original order (bit-identical results).
// Split tensors: those of scope s or l written by this block and used by no other (so that a
// local row stays a local array: plan_local_arrays needs whole-variable subscripts), and the
// tile's accumulated tensor wherever it is used when the nested tile needs it (a nested block
// does not know the range of o in o*J+i, so it could not tell its rows apart). Each is split
// at p's position into (E/J, J), subscripted (o, i) in this block and (0, e) in the others
// (the same flat offset, still affine): its flat layout, and so the ABI, is unchanged. A
// rewrite that would not leave the tile jamming `i` with a shared read is not made.
#pragma once

#include <optional>
#include <vector>

#include "leir/ir.h"
#include "leir/tensor_table.h"

namespace steptp::codegen {

struct ChannelJam {
  leir::Program program;       // the rewritten program
  leir::TensorTable table;     // its table: the original with the split tensors' shapes
  std::vector<size_t> blocks;  // top-level blocks rewritten
};

// nullopt when no top-level block qualifies.
std::optional<ChannelJam> jam_tile_channels(const leir::Program& p, const leir::TensorTable& table);

}  // namespace steptp::codegen
