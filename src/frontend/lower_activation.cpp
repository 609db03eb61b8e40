// frontend/lower_activation.cpp — activation functions, functional and module forms, written
// in the eight LEIR functions with numerically safe expansions (tanh never forms inf/inf,
// softplus keeps torch's threshold, SELU uses the exact constants).
//
//   relu(A[16,64]) → B^{16}_{tx=0}L^{64}_{a=0}[C_{tx,a}=max(A_{tx,a},0);];
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

using nlohmann::json;
using P = const std::vector<std::string>&;

constexpr const char* kSeluScale = "1.0507009873554805";
constexpr const char* kSeluAlpha = "1.6732632423543772";

// Reads a scalar hyperparameter: positional/kw argument for functions, hparam for modules.
Result<double> param(Lowering& L, const GraphNode& n, size_t pos, const char* key, double dflt) {
  if (n.op == "call_module") {
    json h = L.hparam(key);
    if (h.is_number()) return h.get<double>();
    return dflt;
  }
  return L.number_arg(n, pos, key, dflt);
}

std::string gelu_exact(const std::string& x) {
  return fmt::format("{0}*0.5*(1+erf({0}*0.7071067811865476))", Lowering::p(x));
}

std::string gelu_tanh(const std::string& x) {
  std::string px = Lowering::p(x);
  std::string inner = fmt::format("0.7978845608028654*({0}+0.044715*{0}*{0}*{0})", px);
  return fmt::format("0.5*{}*(1+({}))", px, tanh_text(inner));
}

std::string softplus(const std::string& x, double beta, double threshold) {
  std::string bx = beta == 1 ? Lowering::p(x) : Lowering::number(beta) + "*" + Lowering::p(x);
  std::string body = fmt::format("log(1+exp({}))", bx);
  if (beta != 1) body = Lowering::p(body) + "/" + Lowering::number(beta);
  return fmt::format("if_then_else({}>{},{},{})", bx, Lowering::number(threshold), x, body);
}

Handler act(std::function<Result<std::string>(Lowering&, const GraphNode&, const std::string&)> f) {
  return [f](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto a = L.arg(n, 0, "input");
    if (!a.ok()) return a.error();
    // Probe the hyperparameters once so errors surface before emission.
    auto probe = f(L, n, "x");
    if (!probe.ok()) return probe.error();
    return map_values(L, {*a}, [&](P t) { return *f(L, n, t[0]); });
  };
}

Result<std::string> relu(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("max({},0)", x);
}

Result<std::string> gelu(Lowering& L, const GraphNode& n, const std::string& x) {
  std::string approx = "none";
  if (n.op == "call_module") {
    json h = L.hparam("approximate");
    if (h.is_string()) approx = h.get<std::string>();
  } else if (n.kwargs.contains("approximate")) {
    approx = n.kwargs.at("approximate").get<std::string>();
  }
  if (approx == "tanh") return gelu_tanh(x);
  if (approx != "none") return Error::make("unsupported_op", "gelu approximate=" + approx);
  return gelu_exact(x);
}

Result<std::string> leaky_relu(Lowering& L, const GraphNode& n, const std::string& x) {
  auto s = param(L, n, 1, "negative_slope", 0.01);
  if (!s.ok()) return s.error();
  return fmt::format("if_then_else({0}>0,{0},{1}*{0})", Lowering::p(x), Lowering::number(*s));
}

Result<std::string> elu(Lowering& L, const GraphNode& n, const std::string& x) {
  auto a = param(L, n, 1, "alpha", 1.0);
  if (!a.ok()) return a.error();
  return fmt::format("if_then_else({0}>0,{0},{1}*(exp({0})-1))", Lowering::p(x),
                     Lowering::number(*a));
}

Result<std::string> selu(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("{2}*if_then_else({0}>0,{0},{1}*(exp({0})-1))", Lowering::p(x), kSeluAlpha,
                     kSeluScale);
}

Result<std::string> celu(Lowering& L, const GraphNode& n, const std::string& x) {
  auto a = param(L, n, 1, "alpha", 1.0);
  if (!a.ok()) return a.error();
  std::string al = Lowering::number(*a);
  return fmt::format("if_then_else({0}>0,{0},{1}*(exp({0}/{1})-1))", Lowering::p(x), al);
}

Result<std::string> sigmoid(Lowering&, const GraphNode&, const std::string& x) {
  return sigmoid_text(x);
}

Result<std::string> tanh_(Lowering&, const GraphNode&, const std::string& x) {
  return tanh_text(x);
}

Result<std::string> softplus_(Lowering& L, const GraphNode& n, const std::string& x) {
  auto b = param(L, n, 1, "beta", 1.0);
  auto t = param(L, n, 2, "threshold", 20.0);
  if (!b.ok()) return b.error();
  if (!t.ok()) return t.error();
  return softplus(x, *b, *t);
}

Result<std::string> mish(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("{}*({})", Lowering::p(x), tanh_text(softplus(x, 1, 20)));
}

Result<std::string> silu(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("{0}/(1+exp(-{0}))", Lowering::p(x));
}

Result<std::string> hardtanh(Lowering& L, const GraphNode& n, const std::string& x) {
  auto lo = param(L, n, 1, "min_val", -1.0);
  auto hi = param(L, n, 2, "max_val", 1.0);
  if (!lo.ok()) return lo.error();
  if (!hi.ok()) return hi.error();
  return fmt::format("min(max({},{}),{})", x, Lowering::number(*lo), Lowering::number(*hi));
}

Result<std::string> relu6(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("min(max({},0),6)", x);
}

Result<std::string> hardswish(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("{0}*min(max({0}+3,0),6)/6", Lowering::p(x));
}

Result<std::string> hardsigmoid(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("min(max({}+3,0),6)/6", Lowering::p(x));
}

Result<std::string> softsign(Lowering&, const GraphNode&, const std::string& x) {
  return fmt::format("{0}/(1+abs({1}))", Lowering::p(x), x);
}

Result<std::string> identity(Lowering&, const GraphNode&, const std::string& x) { return x; }

}  // namespace

void register_activation(OpTable& t) {
  const std::pair<const char*, Handler> fns[] = {
      {"relu", act(relu)},         {"gelu", act(gelu)},           {"leaky_relu", act(leaky_relu)},
      {"elu", act(elu)},           {"selu", act(selu)},           {"celu", act(celu)},
      {"sigmoid", act(sigmoid)},   {"tanh", act(tanh_)},          {"softplus", act(softplus_)},
      {"mish", act(mish)},         {"silu", act(silu)},           {"hardtanh", act(hardtanh)},
      {"relu6", act(relu6)},       {"hardswish", act(hardswish)}, {"hardsigmoid", act(hardsigmoid)},
      {"softsign", act(softsign)}, {"dropout", act(identity)},    {"contiguous", act(identity)},
  };
  for (const auto& [name, h] : fns) t[name] = h;
  const std::pair<const char*, Handler> mods[] = {
      {"module:ReLU", act(relu)},
      {"module:GELU", act(gelu)},
      {"module:LeakyReLU", act(leaky_relu)},
      {"module:ELU", act(elu)},
      {"module:SELU", act(selu)},
      {"module:CELU", act(celu)},
      {"module:Sigmoid", act(sigmoid)},
      {"module:Tanh", act(tanh_)},
      {"module:Softplus", act(softplus_)},
      {"module:Mish", act(mish)},
      {"module:SiLU", act(silu)},
      {"module:Hardtanh", act(hardtanh)},
      {"module:ReLU6", act(relu6)},
      {"module:Hardswish", act(hardswish)},
      {"module:Hardsigmoid", act(hardsigmoid)},
      {"module:Softsign", act(softsign)},
      {"module:Dropout", act(identity)},
      {"module:Identity", act(identity)},
  };
  for (const auto& [name, h] : mods) t[name] = h;
}

}  // namespace steptp::frontend
