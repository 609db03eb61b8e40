// codegen/halide_emitter.h — LEIR Program → a Python module that builds the program as a Halide
// pipeline with the `halide` Python bindings (PyPI halide 21), deterministic byte for byte.
//
// One hl.Func per written tensor (a new Func, a "version", where a later top-level block writes
// a tensor that was read since its last write: a Func's value is its final one), a pure
// definition plus update definitions in program order; a statement's enclosing loops become
// pure Vars where the loop runs over a whole dimension of the left-hand side and plain hl.RDom
// variables otherwise (reductions, partial writes, recurrences), so that each update runs the
// program's own sequential order. Values are computed in float64 and cast on store (the
// interpreter's semantics); erf, which Halide has in float32 only, is a float64 series written
// into the module. Halide's dimension 0 is the innermost one: an access X_{i,j} is
// written X[j, i]. Nothing here runs Halide; bench/peers/halide_peer.py and
// python/halide_check.py build and run the module.
#pragma once

#include <string>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::codegen {

// Errors: "ill_formed" (as emit_c) and "unsupported" with the reason: a statement order that
// Halide's one-Func-per-version model cannot keep, a dtype the bindings cannot take, a store to
// a non-float tensor, an identity that needs per-element written flags.
Result<std::string> emit_halide(const leir::Program& p);

}  // namespace steptp::codegen
