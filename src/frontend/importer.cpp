// frontend/importer.cpp — drives the per-op lowering over a graph and parses the emitted text.
#include "frontend/importer.h"

#include <fmt/format.h>

#include "frontend/lowering.h"
#include "leir/parser.h"
#include "leir/printer.h"

namespace steptp::frontend {
namespace {

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_elementwise(t);
    register_activation(t);
    register_matmul(t);
    register_reduce(t);
    register_softmax(t);
    register_norm(t);
    register_conv(t);
    register_pool(t);
    register_loss(t);
    register_scan(t);
    register_layout(t);
    return t;
  }();
  return table;
}

}  // namespace

Result<ImportResult> import_graph(const Graph& g) {
  if (!g.output.is_object() || !g.output.contains("node"))
    return Error::make("unsupported_op", "the model output is not a single tensor");
  Lowering L(g, g.output.at("node").get<std::string>());
  STEPTP_TRY(L.run(op_table()));
  leir::Program decl_only{L.decls(), {}};
  std::string text;
  for (const leir::TensorDecl& d : L.decls()) text += leir::print(d) + "\n";
  text += L.body_text() + "\n";
  auto p = leir::parse_program(text, g.source);
  if (!p.ok())
    return Error::make("internal_emit",
                       "the importer emitted unparsable LEIR: " + p.error().render());
  ImportResult r{std::move(*p), leir::print_program(*p), L.leir_to_graph()};
  r.text = leir::print_program(r.program);
  return r;
}

Result<ImportResult> import_graph_json(std::string_view json_text, std::string_view file) {
  auto g = parse_graph_json(json_text, file);
  if (!g.ok()) return g.error();
  return import_graph(*g);
}

}  // namespace steptp::frontend
