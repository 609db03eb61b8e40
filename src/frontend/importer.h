// frontend/importer.h — graph JSON (from python/steptp_trace.py) → a LEIR Program.
//
// Declarations: inputs, params (parameters and buffers), consts, then the output, named A, C,
// D, … in that order; intermediates follow in emission order. The body is the reference
// emitter's style (one nest per step, tx bound on a dim of extent ≤ 1024). An op the importer
// cannot lower exactly is an "unsupported_op" error naming the op and the node.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "frontend/graph_json.h"
#include "leir/ir.h"
#include "support/error.h"

namespace steptp::frontend {

struct ImportResult {
  leir::Program program;
  std::string text;                                  // the .leir file text (decls + body)
  std::map<std::string, std::string> leir_to_graph;  // "A" → "x", "D" → "gemm.weight", ...
};

Result<ImportResult> import_graph(const Graph& g);
Result<ImportResult> import_graph_json(std::string_view json_text,
                                       std::string_view file = "<graph>");

}  // namespace steptp::frontend
