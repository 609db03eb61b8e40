// interp/race_analysis.h — decides, per top-level block and tensor, whether B/P iterations can
// touch one element with a write (a race), statically where that is exact, else by marking the
// tensor for dynamic tracking at run time.
//
// Rule. For each B or P loop p of a top-level block and each tensor X written under p, let A be
// the accesses to X enclosed by p. X is race-free with respect to p when either
//   (a) A is a recognised reduction: every access in A is the write or the accumulation
//       self-read of an accumulation statement whose LHS subscript does not mention p
//       (Hingeloss `H=H+F_{tx,a}` under B_{tx}); or
//   (b) some dimension d of X is indexed in every access of A by the same expression
//       `c*p + k` (c != 0, no other variable): different iterations of p then touch different
//       elements.
// Otherwise every access to X in the block that lies inside all its B/P loops records, per
// element, the thread (the tuple of B/P loop values) that last wrote it and the one(s) that
// read it; a second thread touching the element with a write involved is a race. Accesses
// outside some B/P loop of the block belong to no thread and never conflict.
#pragma once

#include <vector>

#include "interp/compiled_program.h"

namespace steptp::interp {

// Fills TopBlock::parallel_loops and ::tracked_tensors, Access::track_race, and marks in
// `tracked_access` every access to a dynamically tracked tensor (such bodies are not chunked).
void analyse_races(CompiledProgram& cp, const std::vector<std::vector<int>>& stmt_accesses,
                   const std::vector<std::vector<int>>& access_parallel,
                   const std::vector<int>& self_read_access, std::vector<bool>& tracked_access);

}  // namespace steptp::interp
