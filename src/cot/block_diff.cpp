// cot/block_diff.cpp — LCS over top-level blocks with structural equality.
#include "cot/block_diff.h"

#include <algorithm>

namespace steptp::cot {

BlockDiff diff_blocks(const std::vector<leir::Block>& before,
                      const std::vector<leir::Block>& after) {
  const size_t n = before.size();
  const size_t m = after.size();
  std::vector<size_t> hb(n), ha(m);
  for (size_t i = 0; i < n; ++i) hb[i] = leir::hash_value(before[i]);
  for (size_t j = 0; j < m; ++j) ha[j] = leir::hash_value(after[j]);
  auto same = [&](size_t i, size_t j) { return hb[i] == ha[j] && before[i] == after[j]; };
  // lcs[i][j] = LCS length of before[i..] and after[j..]; suffix form so that the walk below
  // prefers keeping the earliest blocks, which makes the diff deterministic and natural.
  std::vector<std::vector<size_t>> lcs(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = same(i, j) ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  BlockDiff d;
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (same(i, j) && lcs[i][j] == lcs[i + 1][j + 1] + 1) {
      ++d.kept;
      ++i;
      ++j;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      d.removed.push_back(i++);
    } else {
      d.added.push_back(j++);
    }
  }
  for (; i < n; ++i) d.removed.push_back(i);
  for (; j < m; ++j) d.added.push_back(j);
  return d;
}

}  // namespace steptp::cot
