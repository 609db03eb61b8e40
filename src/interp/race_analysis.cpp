// interp/race_analysis.cpp — static race freedom and the choice of dynamically tracked tensors
// (the rule is stated in race_analysis.h).
#include "interp/race_analysis.h"

#include <algorithm>
#include <map>

namespace steptp::interp {
namespace {

void collect(const CompiledBlock& b, std::vector<int>& stmts, std::vector<CompiledLoop>& parallel) {
  for (const CompiledLoop& l : b.loops)
    if (l.kind == leir::LoopKind::kBound || l.kind == leir::LoopKind::kParallel)
      parallel.push_back(l);
  for (int item : b.items) {
    if (item >= 0) {
      stmts.push_back(item);
    } else {
      collect(b.nested[static_cast<size_t>(-1 - item)], stmts, parallel);
    }
  }
}

bool mentions(const Access& a, int slot) {
  for (const DimIndex& d : a.dims) {
    if (!d.affine) return true;  // conservatively: a general index may depend on anything
    for (const auto& [s, c] : d.terms)
      if (s == slot) return true;
  }
  return false;
}

bool indexed_only_by(const DimIndex& d, int slot) {
  return d.affine && d.terms.size() == 1 && d.terms[0].first == slot && d.terms[0].second != 0;
}

}  // namespace

void analyse_races(CompiledProgram& cp, const std::vector<std::vector<int>>& stmt_accesses,
                   const std::vector<std::vector<int>>& access_parallel,
                   const std::vector<int>& self_read_access, std::vector<bool>& tracked_access) {
  for (TopBlock& tb : cp.blocks) {
    std::vector<int> stmts;
    collect(tb.block, stmts, tb.parallel_loops);
    if (tb.parallel_loops.empty()) continue;

    // tensor → (access, statement) pairs in this block
    std::map<int, std::vector<std::pair<int, int>>> by_tensor;
    for (int s : stmts)
      for (int a : stmt_accesses[s]) by_tensor[cp.accesses[a].tensor].emplace_back(a, s);

    for (const auto& [tensor, uses] : by_tensor) {
      bool written = std::any_of(uses.begin(), uses.end(),
                                 [&](const auto& u) { return cp.accesses[u.first].is_write; });
      if (!written) continue;
      bool needs_tracking = false;
      for (const CompiledLoop& p : tb.parallel_loops) {
        std::vector<std::pair<int, int>> under;
        for (const auto& u : uses) {
          const auto& enclosing = access_parallel[u.first];
          if (std::find(enclosing.begin(), enclosing.end(), p.slot) != enclosing.end())
            under.push_back(u);
        }
        bool any_write = std::any_of(under.begin(), under.end(),
                                     [&](const auto& u) { return cp.accesses[u.first].is_write; });
        if (!any_write) continue;
        // (a) a recognised reduction across p
        bool reduction = std::all_of(under.begin(), under.end(), [&](const auto& u) {
          const auto [a, s] = u;
          const CompiledStmt& st = cp.stmts[s];
          return self_read_access[s] >= 0 && (a == st.lhs || a == self_read_access[s]) &&
                 !mentions(cp.accesses[st.lhs], p.slot);
        });
        if (reduction) continue;
        // (b) one dimension indexed by the same `c*p+k` everywhere
        const Access& first = cp.accesses[under.front().first];
        bool separated = false;
        for (size_t d = 0; d < first.dims.size() && !separated; ++d) {
          const DimIndex& ref = first.dims[d];
          if (!indexed_only_by(ref, p.slot)) continue;
          separated = std::all_of(under.begin(), under.end(), [&](const auto& u) {
            const DimIndex& di = cp.accesses[u.first].dims[d];
            return indexed_only_by(di, p.slot) && di.constant == ref.constant &&
                   di.terms == ref.terms;
          });
        }
        if (!separated) needs_tracking = true;
      }
      if (!needs_tracking) continue;
      tb.tracked_tensors.push_back(tensor);
      for (const auto& [a, s] : uses) {
        tracked_access[a] = true;
        const auto& enclosing = access_parallel[a];
        cp.accesses[a].track_race = enclosing.size() == tb.parallel_loops.size();
      }
    }
  }
}

}  // namespace steptp::interp
