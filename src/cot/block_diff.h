// cot/block_diff.h — the structural difference between two programs' top-level block lists.
//
// A longest common subsequence over structurally equal blocks (leir equality, hash first):
// what is left of the original is "removed", what is new in the result is "added", both in IR
// order. It compares IR values, never strings, so renamed or reordered text cannot confuse it.
#pragma once

#include <cstddef>
#include <vector>

#include "leir/ir.h"

namespace steptp::cot {

struct BlockDiff {
  std::vector<size_t> removed;  // indices into the original's blocks, ascending
  std::vector<size_t> added;    // indices into the result's blocks, ascending
  size_t kept = 0;              // blocks common to both (the LCS length)
  bool empty() const { return removed.empty() && added.empty(); }
};

BlockDiff diff_blocks(const std::vector<leir::Block>& before,
                      const std::vector<leir::Block>& after);

}  // namespace steptp::cot
