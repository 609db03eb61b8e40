// codegen/tir_emitter.h — LEIR Program → TVMScript text (an IRModule with one prim_func
// `main`), deterministic byte for byte, for users who have TVM and for token comparisons.
//
// Structure follows the reference lowering (leir_spec §6) without its bugs: nested blocks nest,
// block names are unique, axis order is the loop order, an accumulation's first write gets
// T.init(), values are computed in float64 and cast on store (the interpreter's semantics).
// Nothing here parses or runs the text; TVM is not a dependency.
#pragma once

#include <string>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::codegen {

// Errors: "ill_formed", "unsupported" (as emit_c).
Result<std::string> emit_tir(const leir::Program& p);

// TVM's name for a dtype: "float64", "bfloat16", "int64", "bool", ...
std::string tvm_dtype(leir::DType t);

}  // namespace steptp::codegen
