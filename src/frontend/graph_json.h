// frontend/graph_json.h — the graph JSON written by python/steptp_trace.py, as C++ values.
//
// Only parsing and shape/dtype bookkeeping live here; lowering to LEIR is importer.h's job.
// Malformed JSON or a missing field is bad input (category "bad_graph"), never a crash.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::frontend {

// A node's (or placeholder's) result type as the tracer recorded it.
struct ValueType {
  bool is_tensor = false;
  std::vector<int64_t> shape;
  leir::DType dtype = leir::DType::kF64;
  std::vector<ValueType> tuple;  // tuple outputs (max with dim, split, ...)
  nlohmann::json constant;       // non-tensor results (sizes, numbers): the recorded value
};

struct GraphTensor {
  std::string name;  // placeholder name or qualified parameter/buffer name
  std::string kind;  // "input", "param", "buffer", "const"
  ValueType type;
};

struct GraphNode {
  std::string name;
  std::string op;         // call_function, call_method, call_module, get_attr
  std::string target;     // normalized: "relu", "add", "Conv2d", "gemm.weight"
  std::string ns;         // torch, F, operator, method (empty for modules/get_attr)
  nlohmann::json args;    // a JSON array; node references are {"node": NAME}
  nlohmann::json kwargs;  // a JSON object
  nlohmann::json module;  // call_module: {"type", "hparams", "params": {local: qualified}}
  ValueType type;
};

struct Graph {
  std::string source;
  std::vector<GraphTensor> inputs;
  std::vector<GraphTensor> params;  // params, buffers and constants, in first-use order
  std::vector<GraphNode> nodes;
  nlohmann::json output;  // {"node": NAME} (or a list for tuple outputs)
  nlohmann::json shapes;  // the size variables the graph was traced at
};

Result<Graph> parse_graph_json(std::string_view text, std::string_view file = "<graph>");
Result<leir::DType> dtype_from_torch_name(std::string_view s);

}  // namespace steptp::frontend
