// frontend/graph_json.cpp — reads the tracer's graph JSON into frontend::Graph.
#include "frontend/graph_json.h"

#include <fmt/format.h>

namespace steptp::frontend {
namespace {

using nlohmann::json;

Error bad(std::string_view file, const std::string& what) {
  return Error::make("bad_graph", fmt::format("{}: {}", file, what));
}

Result<ValueType> parse_type(const json& j, std::string_view file, const std::string& who) {
  ValueType t;
  if (j.contains("shape")) {
    t.is_tensor = true;
    for (const json& d : j.at("shape")) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0)
        return bad(file, fmt::format("'{}' has a non-integer or negative dimension", who));
      t.shape.push_back(d.get<int64_t>());
    }
    auto dt = dtype_from_torch_name(j.value("dtype", "f64"));
    if (!dt.ok()) return bad(file, fmt::format("'{}': {}", who, dt.error().message));
    t.dtype = *dt;
  } else if (j.contains("tuple")) {
    for (const json& e : j.at("tuple")) {
      auto et = parse_type(e, file, who);
      if (!et.ok()) return et.error();
      t.tuple.push_back(*et);
    }
  } else if (j.contains("value")) {
    t.constant = j.at("value");
  }
  return t;
}

}  // namespace

Result<leir::DType> dtype_from_torch_name(std::string_view s) {
  if (auto d = leir::dtype_from_name(s)) return *d;
  return Error::make("bad_graph", fmt::format("unknown dtype '{}'", s));
}

Result<Graph> parse_graph_json(std::string_view text, std::string_view file) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return bad(file, "not a JSON object");
  if (j.value("format", "") != "steptp-graph-1")
    return bad(file, "not a steptp graph (expected \"format\": \"steptp-graph-1\")");
  Graph g;
  try {
    g.source = j.value("source", std::string(file));
    g.shapes = j.value("shapes", json::object());
    for (const json& in : j.at("inputs")) {
      GraphTensor t{in.at("name").get<std::string>(), "input", {}};
      if (!in.contains("shape")) {
        t.type.constant = in.value("value", json());
      } else {
        auto ty = parse_type(in, file, t.name);
        if (!ty.ok()) return ty.error();
        t.type = *ty;
      }
      g.inputs.push_back(std::move(t));
    }
    for (const json& p : j.at("params")) {
      GraphTensor t{p.at("name").get<std::string>(), p.value("kind", "param"), {}};
      auto ty = parse_type(p, file, t.name);
      if (!ty.ok()) return ty.error();
      t.type = *ty;
      g.params.push_back(std::move(t));
    }
    for (const json& n : j.at("nodes")) {
      GraphNode node;
      node.name = n.at("name").get<std::string>();
      node.op = n.at("op").get<std::string>();
      node.target = n.value("target", "");
      node.ns = n.value("namespace", "");
      node.args = n.value("args", json::array());
      node.kwargs = n.value("kwargs", json::object());
      node.module = n.value("module", json::object());
      auto ty = parse_type(n, file, node.name);
      if (!ty.ok()) return ty.error();
      node.type = *ty;
      g.nodes.push_back(std::move(node));
    }
    g.output = j.at("output");
  } catch (const json::exception& e) {
    return bad(file, fmt::format("malformed graph: {}", e.what()));
  }
  return g;
}

}  // namespace steptp::frontend
