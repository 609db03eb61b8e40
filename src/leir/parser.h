// leir/parser.h — LEIR text → IR. Accepts the full grammar of docs/leir.md, with optional
// whitespace and newlines between tokens, and the `.leir` program file (comment lines,
// declarations, then the body).
//
// Never throws, crashes, hangs or allocates without bound on any input: errors are Result
// errors of category "parse_error" with file:line:col, a caret and an actionable sentence.
#pragma once

#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::leir {

struct ParseLimits {
  size_t max_input_bytes = 64u << 20;  // larger texts are rejected up front
  int max_nesting_depth = 256;         // blocks + parentheses + subscripts, together
};

// A body: one or more top-level blocks, e.g. "B^{16}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];".
Result<std::vector<Block>> parse_body(std::string_view text, std::string_view file = "<input>",
                                      const ParseLimits& limits = {});

// One value or index expression, e.g. "max(A^{f64,g}_{tx,a},0)".
Result<ExprRef> parse_expr(std::string_view text, std::string_view file = "<input>",
                           const ParseLimits& limits = {});

// A program file: '#' comment lines, zero or more declarations
// ("input A f64[16,1024]", "param W f32[64]", "const H f64[]", "output D f64[16,768]"),
// then the body (which may span lines). A text with no declarations gives decls == {}.
Result<Program> parse_program(std::string_view text, std::string_view file = "<input>",
                              const ParseLimits& limits = {});

// Only declarations, one per line (blank and '#' lines ignored).
Result<std::vector<TensorDecl>> parse_declarations(std::string_view text,
                                                   std::string_view file = "<input>");

}  // namespace steptp::leir
