// leir/wellformed.h — static checks that a Program means something before anyone runs it.
//
// Category "ill_formed", with a message naming the block, statement and tensor/loop:
// no declarations where required, exactly-one-or-more outputs, duplicate declarations, a known
// tensor referenced with another rank (or, for its superscript, another dtype), an intermediate
// read but never written, a write to an input/param/const, a loop variable used out of scope,
// redeclared in a nest, or named like a tensor/function; a B loop whose variable is not a
// binding name (t|b)(x|y|z)[a-z]*; extents < 1; non-integer index expressions (float literals,
// '/', '**', math functions or inf inside a subscript); a subscript reading a non-integer tensor;
// if_then_else/&/| arity and shape rules. Optional CUDA launch limits for bound loops.
#pragma once

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::leir {

struct WellFormedOptions {
  bool require_declarations = true;  // false: a bare body (declarations come from elsewhere)
  bool cuda_limits = false;          // threads x/y/z ≤ 1024/1024/64, ≤ 1024 per block,
                                     // blocks x ≤ 2^31−1, y/z ≤ 65535
};

Result<void> check_well_formed(const Program& p, const WellFormedOptions& options = {});

}  // namespace steptp::leir
