// strategy/memory/layout_map.h — the storage layouts the memory strategies re-index tensors
// through: a permutation of the dimensions, a row-major flatten to one dimension, and a split of
// one dimension into (i//f, i%f).
//
// A map is a bijection from the box of the source dims onto the box of mapped_shape(), so every
// element keeps exactly one home. It only builds index expressions; deciding where to apply it
// is the strategies' job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "leir/ir.h"
#include "strategy/strategy.h"

namespace steptp::strategy::memory {

enum class LayoutKind { kPermute, kFlatten, kSplit };

struct LayoutMap {
  LayoutKind kind = LayoutKind::kPermute;
  std::vector<int64_t> dims;  // extents of the source dimensions
  std::vector<int64_t> perm;  // kPermute: new dim i holds old dim perm[i]
  int64_t dim = 0;            // kSplit: the dimension split
  int64_t factor = 0;         // kSplit: the extent of the inner (i%f) part
};

// The map a site's parameters name (layout=permute|flatten|split, perm=..., dim=..., factor=...),
// checked against the source dims; Infeasible "<strategy>.bad_layout" naming what is wrong.
Outcome<LayoutMap> layout_from_site(const Site& s, const std::vector<int64_t>& dims,
                                    std::string_view strategy);
// Writes the map's parameters into a site.
void add_layout_params(Site& s, const LayoutMap& m);
// The candidate maps sites() proposes for these dims: every swap of two dimensions, the flatten
// (rank >= 2), and per dimension up to two split factors (the smallest proper divisor and the
// largest proper divisor not above the square root).
std::vector<LayoutMap> candidate_layouts(const std::vector<int64_t>& dims);

// The subscript of an element under the map; constants are folded.
std::vector<leir::ExprRef> map_indices(const LayoutMap& m, const std::vector<leir::ExprRef>& idx);
// The extents of the mapped box.
std::vector<int64_t> mapped_shape(const LayoutMap& m);
// "a transpose to dimension order (1,0)", "a row-major flatten of [4,6] into [24]", ...
std::string describe(const LayoutMap& m);

}  // namespace steptp::strategy::memory
