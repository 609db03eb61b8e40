// codegen/tir_emitter.h — LEIR Program → TVMScript text (an IRModule with one prim_func
// `main`), deterministic byte for byte, in the dialect of apache-tvm 0.27 (`tvm.script.tirx`,
// `@T.prim_func(s_tir=True)`, `T.sblock`): a Python module that TVM parses and builds.
//
// Structure follows the reference lowering (leir_spec §6) without its bugs: nested blocks nest,
// block names are unique, axis order is the loop order, an accumulation's first write gets
// T.init(), values are computed in float64 and cast on store (the interpreter's semantics).
// Nothing here parses or runs the text; TVM is not a build dependency (codegen/tvm_engine.h runs
// it where TVM is installed).
#pragma once

#include <string>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::codegen {

// Where the module will run. kCuda keeps LEIR's thread bindings (`T.thread_binding`) and the
// shared/local storage scopes, for TVM's CUDA target. kLlvm is for TVM's CPU target: the
// outermost thread-bound or parallel loop of a nest becomes `T.parallel`, those inside it serial,
// and every buffer global.
enum class TirTarget { kCuda, kLlvm };

// Errors: "ill_formed", "unsupported" (as emit_c).
Result<std::string> emit_tir(const leir::Program& p, TirTarget target = TirTarget::kCuda);

// TVM's name for a dtype: "float64", "bfloat16", "int64", "bool", ...
std::string tvm_dtype(leir::DType t);

}  // namespace steptp::codegen
