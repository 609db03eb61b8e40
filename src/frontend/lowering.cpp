// frontend/lowering.cpp — naming, argument evaluation and loop-nest emission for the importer.
#include "frontend/lowering.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace steptp::frontend {
namespace {

using nlohmann::json;

constexpr const char* kTensorAlphabet = "ACDEFGHIJKMNOQRSWXYZ";  // no B L P T U V
constexpr const char* kLoopAlphabet = "acdfghijklmnopqrsuw";     // no b e t v x y z
constexpr int64_t kMaxThreads = 1024;

std::string tensor_name(int i) {
  const int n = 20;
  if (i < n) return std::string(1, kTensorAlphabet[i]);
  i -= n;
  std::string s(1, kTensorAlphabet[(i / n) % n]);
  s += static_cast<char>(kTensorAlphabet[i % n] - 'A' + 'a');
  if (i / n >= n) s += std::to_string(i / (n * n));  // never reached in practice
  return s;
}

}  // namespace

std::string index_var_name(int i) {
  const int n = 19;
  if (i < n) return std::string(1, kLoopAlphabet[i]);
  i -= n;
  return std::string(1, kLoopAlphabet[(i / n) % n]) + kLoopAlphabet[i % n];
}

Value Value::of(Tensor t) {
  Value v;
  v.kind = Kind::kTensor;
  v.tensor = std::move(t);
  return v;
}

Value Value::num(double x, bool integral) {
  Value v;
  v.kind = Kind::kNumber;
  v.number = x;
  v.integral = integral;
  return v;
}

Lowering::Lowering(const Graph& g, std::string output_node)
    : g_(g), output_node_(std::move(output_node)) {
  for (const GraphTensor& in : g.inputs) {
    if (!in.type.is_tensor) {
      // A non-tensor forward argument (traced as a concrete value).
      auto v = eval(in.type.constant);
      values_[in.name] = v.ok() ? *v : Value{};
      continue;
    }
    Tensor t{next_tensor_name(), in.type.dtype, in.type.shape};
    decls_.push_back({t.name, leir::TensorRole::kInput, t.dtype, t.shape});
    leir_to_graph_[t.name] = in.name;
    values_[in.name] = Value::of(t);
  }
  for (const GraphTensor& p : g.params) {
    Tensor t{next_tensor_name(), p.type.dtype, p.type.shape};
    decls_.push_back({t.name,
                      p.kind == "const" ? leir::TensorRole::kConst : leir::TensorRole::kParam,
                      t.dtype, t.shape});
    leir_to_graph_[t.name] = p.name;
    values_["param:" + p.name] = Value::of(t);
  }
  for (const GraphNode& n : g.nodes) {
    if (n.name == output_node_ && n.type.is_tensor) {
      output_ = Tensor{next_tensor_name(), n.type.dtype, n.type.shape};
      decls_.push_back({output_.name, leir::TensorRole::kOutput, output_.dtype, output_.shape});
      leir_to_graph_[output_.name] = "output";
    }
  }
}

std::string Lowering::next_tensor_name() { return tensor_name(name_counter_++); }

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

Result<Value> Lowering::eval(const json& j) const {
  if (j.is_null()) return Value{};
  if (j.is_boolean()) {
    Value v = Value::num(j.get<bool>() ? 1 : 0, true);
    v.kind = Value::Kind::kBool;
    return v;
  }
  if (j.is_number_integer()) return Value::num(static_cast<double>(j.get<int64_t>()), true);
  if (j.is_number()) return Value::num(j.get<double>(), false);
  if (j.is_string()) {
    Value v;
    v.kind = Value::Kind::kString;
    v.str = j.get<std::string>();
    return v;
  }
  if (j.is_array()) {
    Value v;
    v.kind = Value::Kind::kTuple;
    bool all_int = true;
    for (const json& e : j) {
      auto ev = eval(e);
      if (!ev.ok()) return ev.error();
      if (!(ev->kind == Value::Kind::kNumber && ev->integral)) all_int = false;
      v.items.push_back(*ev);
    }
    if (all_int) {
      v.kind = Value::Kind::kInts;
      for (const Value& e : v.items) v.ints.push_back(static_cast<int64_t>(e.number));
      v.items.clear();
    }
    return v;
  }
  if (j.is_object()) {
    if (j.contains("node")) {
      auto it = values_.find(j.at("node").get<std::string>());
      if (it == values_.end())
        return Error::make("bad_graph", fmt::format("node '{}' is used before it is defined",
                                                    j.at("node").get<std::string>()));
      return it->second;
    }
    if (j.contains("float")) {
      std::string s = j.at("float").get<std::string>();
      if (s == "inf") return Value::num(INFINITY, false);
      if (s == "-inf") return Value::num(-INFINITY, false);
      return Value::num(NAN, false);
    }
    if (j.contains("slice")) {
      Value v;
      v.kind = Value::Kind::kTuple;
      v.str = "slice";
      for (const json& e : j.at("slice")) {
        auto ev = eval(e);
        if (!ev.ok()) return ev.error();
        v.items.push_back(*ev);
      }
      return v;
    }
    if (j.contains("ellipsis")) {
      Value v;
      v.kind = Value::Kind::kString;
      v.str = "...";
      return v;
    }
    if (j.contains("dtype")) {
      Value v;
      v.kind = Value::Kind::kString;
      v.str = "dtype:" + j.at("dtype").get<std::string>();
      return v;
    }
    Value v;
    v.kind = Value::Kind::kString;
    v.str = "object";
    return v;
  }
  return Value{};
}

bool Lowering::has_arg(const GraphNode& n, size_t i, const char* kw) const {
  if (i < n.args.size()) return true;
  return kw != nullptr && n.kwargs.contains(kw);
}

Result<Value> Lowering::arg(const GraphNode& n, size_t i, const char* kw) const {
  if (i < n.args.size()) return eval(n.args[i]);
  if (kw != nullptr && n.kwargs.contains(kw)) return eval(n.kwargs.at(kw));
  return Value{};
}

Result<Tensor> Lowering::tensor_arg(const GraphNode& n, size_t i, const char* kw) const {
  auto v = arg(n, i, kw);
  if (!v.ok()) return v.error();
  if (!v->is_tensor())
    return Error::make("unsupported_op",
                       fmt::format("op '{}' (node '{}'): argument {} is not a tensor", n.target,
                                   n.name, kw ? kw : std::to_string(i)));
  return v->tensor;
}

Result<double> Lowering::number_arg(const GraphNode& n, size_t i, const char* kw,
                                    double dflt) const {
  auto v = arg(n, i, kw);
  if (!v.ok()) return v.error();
  if (v->kind == Value::Kind::kNone) return dflt;
  if (!v->is_number())
    return Error::make("unsupported_op",
                       fmt::format("op '{}' (node '{}'): argument {} must be a number", n.target,
                                   n.name, kw ? kw : std::to_string(i)));
  return v->number;
}

Result<int64_t> Lowering::int_arg(const GraphNode& n, size_t i, const char* kw,
                                  int64_t dflt) const {
  auto v = number_arg(n, i, kw, static_cast<double>(dflt));
  if (!v.ok()) return v.error();
  return static_cast<int64_t>(*v);
}

Result<std::vector<int64_t>> Lowering::ints_arg(const GraphNode& n, size_t i,
                                                const char* kw) const {
  auto v = arg(n, i, kw);
  if (!v.ok()) return v.error();
  if (v->kind == Value::Kind::kInts) return v->ints;
  if (v->kind == Value::Kind::kNumber && v->integral)
    return std::vector<int64_t>{static_cast<int64_t>(v->number)};
  if (v->kind == Value::Kind::kNone) return std::vector<int64_t>{};
  return Error::make("unsupported_op",
                     fmt::format("op '{}' (node '{}'): argument {} must be integers", n.target,
                                 n.name, kw ? kw : std::to_string(i)));
}

json Lowering::hparam(const char* key) const {
  if (!node_->module.contains("hparams")) return json();
  const json& h = node_->module.at("hparams");
  return h.contains(key) ? h.at(key) : json();
}

bool Lowering::has_module_param(const char* local) const {
  return node_->module.contains("params") && node_->module.at("params").contains(local);
}

Result<Tensor> Lowering::module_param(const char* local) const {
  if (!has_module_param(local))
    return Error::make("unsupported_op", fmt::format("module '{}' (node '{}') has no '{}'",
                                                     node_->target, node_->name, local));
  auto it = values_.find("param:" + node_->module.at("params").at(local).get<std::string>());
  if (it == values_.end())
    return Error::make(
        "bad_graph", fmt::format("node '{}': parameter '{}' is not declared", node_->name, local));
  return it->second.tensor;
}

// ---------------------------------------------------------------------------------------------
// Tensors and text
// ---------------------------------------------------------------------------------------------

Tensor Lowering::result(leir::DType dtype, std::vector<int64_t> shape) {
  if (node_ != nullptr && node_->name == output_node_ && !output_written_ &&
      output_.dtype == dtype && output_.shape == shape) {
    output_written_ = true;
    return output_;
  }
  return temp(dtype, std::move(shape));
}

Tensor Lowering::temp(leir::DType dtype, std::vector<int64_t> shape) {
  return Tensor{next_tensor_name(), dtype, std::move(shape)};
}

std::string Lowering::access(const Tensor& t, const std::vector<std::string>& idx) {
  std::string s = fmt::format("{}^{{{},g}}", t.name, leir::dtype_name(t.dtype));
  if (idx.empty()) return s;
  s += "_{";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + idx[i];
  return s + "}";
}

std::string Lowering::read_broadcast(const Tensor& t, const std::vector<int64_t>& out_shape,
                                     const std::vector<std::string>& vars) {
  std::vector<std::string> idx;
  const size_t off = out_shape.size() - t.shape.size();
  for (size_t j = 0; j < t.shape.size(); ++j) {
    const bool broadcast = t.shape[j] == 1 && out_shape[off + j] != 1;
    idx.push_back(broadcast ? "0" : vars[off + j]);
  }
  return access(t, idx);
}

std::string Lowering::number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "(-inf)";
  const bool neg = v < 0 || (v == 0 && std::signbit(v));
  double a = std::fabs(v);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, a);
  std::string s(buf, res.ptr);
  return neg && a != 0 ? "(-" + s + ")" : s;
}

std::string Lowering::p(const std::string& e) {
  bool simple = true;
  int depth = 0;
  for (char c : e) {
    if (c == '(' || c == '{') ++depth;
    if (c == ')' || c == '}') --depth;
    if (depth == 0 && std::string_view("+-*/<>=!&|%").find(c) != std::string_view::npos)
      simple = false;
  }
  if (simple) return e;
  return "(" + e + ")";
}

void Lowering::emit(const std::vector<int64_t>& spatial, const std::vector<int64_t>& reduction,
                    const std::function<std::vector<std::string>(const Nest&)>& body, int bind) {
  int bound = -1;
  if (bind >= 0 && bind < static_cast<int>(spatial.size()) && spatial[bind] <= kMaxThreads)
    bound = bind;
  for (size_t i = 0; bound < 0 && i < spatial.size(); ++i)
    if (spatial[i] <= kMaxThreads) bound = static_cast<int>(i);
  Nest nest;
  int letter = 0;
  std::string header;
  for (size_t i = 0; i < spatial.size(); ++i) {
    std::string v = static_cast<int>(i) == bound ? "tx" : index_var_name(letter++);
    nest.s.push_back(v);
    header +=
        fmt::format("{}^{{{}}}_{{{}=0}}", static_cast<int>(i) == bound ? 'B' : 'L', spatial[i], v);
  }
  for (int64_t r : reduction) {
    std::string v = index_var_name(letter++);
    nest.r.push_back(v);
    header += fmt::format("L^{{{}}}_{{{}=0}}", r, v);
  }
  if (header.empty()) header = "B^{1}_{tx=0}";
  std::string text = header + "[";
  for (const std::string& st : body(nest)) text += st + ";";
  blocks_.push_back(text + "];");
}

void Lowering::emit_map(const Tensor& out, const std::function<std::string(const Nest&)>& f) {
  emit(out.shape, {},
       [&](const Nest& n) { return std::vector<std::string>{access(out, n.s) + "=" + f(n)}; });
}

Result<Value> Lowering::error_unsupported(const std::string& why) const {
  return Error::make("unsupported_op",
                     fmt::format("op '{}' (node '{}'): {}", node_->target, node_->name, why));
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

Result<void> Lowering::run(const OpTable& table) {
  for (const GraphNode& n : g_.nodes) {
    node_ = &n;
    if (!n.type.is_tensor && n.type.tuple.empty() && !n.type.constant.is_null()) {
      auto v = eval(n.type.constant);  // sizes and other static values: folded
      if (!v.ok()) return v.error();
      values_[n.name] = *v;
      continue;
    }
    if (n.op == "get_attr") {
      auto it = values_.find("param:" + n.target);
      if (it == values_.end())
        return Error::make("bad_graph",
                           fmt::format("get_attr '{}' names no declared tensor", n.target));
      values_[n.name] = it->second;
      continue;
    }
    std::string key = n.op == "call_module" ? "module:" + n.target : n.target;
    auto h = table.find(key);
    if (h == table.end())
      return Error::make("unsupported_op",
                         fmt::format("op '{}' (node '{}', {}) is not supported by the importer",
                                     n.target, n.name, n.op));
    auto v = h->second(*this, n);
    if (!v.ok()) return v.error();
    values_[n.name] = *v;
  }
  node_ = nullptr;
  auto out = eval(g_.output);
  if (!out.ok()) return out.error();
  if (!out->is_tensor())
    return Error::make("unsupported_op", "the model output is not a single tensor");
  if (out->tensor.name != output_.name) {
    if (output_.name.empty() || out->tensor.shape != output_.shape)
      return Error::make("bad_graph", "the output node's recorded shape disagrees with its value");
    const Tensor src = out->tensor;
    emit_map(output_, [&](const Nest& nst) { return access(src, nst.s); });
  }
  return ok();
}

std::string Lowering::body_text() const {
  std::string s;
  for (const std::string& b : blocks_) s += b;
  return s;
}

}  // namespace steptp::frontend
