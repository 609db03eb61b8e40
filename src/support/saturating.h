// support/saturating.h — int64 arithmetic on non-negative counts (statement executions, element
// and byte counts) that saturates at INT64_MAX instead of overflowing: a hostile program's
// extents must give "over budget", never a wrapped small number.
#pragma once

#include <cstdint>
#include <limits>

namespace steptp {

inline int64_t saturating_mul(int64_t a, int64_t b) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return std::numeric_limits<int64_t>::max();
  return a * b;
}

inline int64_t saturating_add(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace steptp
