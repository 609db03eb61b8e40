// frontend/lower_elementwise.cpp — arithmetic, comparisons, selections and math functions,
// elementwise with right-aligned broadcasting by real shape (size-1 dims read index 0).
//
//   add(A[16,1024], H[1024]) → B^{16}_{tx=0}L^{1024}_{a=0}[C_{tx,a}=A_{tx,a}+H_{a};];
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {

std::optional<std::string> operand_text(const Value& v, const std::vector<int64_t>& out_shape,
                                        const std::vector<std::string>& vars) {
  if (v.is_tensor()) {
    if (v.tensor.shape.size() > out_shape.size()) return std::nullopt;
    return Lowering::read_broadcast(v.tensor, out_shape, vars);
  }
  if (v.is_number()) return Lowering::number(v.number);
  return std::nullopt;
}

Result<Value> map_values(Lowering& L, const std::vector<Value>& ins,
                         const std::function<std::string(const std::vector<std::string>&)>& f) {
  const GraphNode& n = L.node();
  if (!n.type.is_tensor) return L.error_unsupported("the result is not a tensor");
  for (const Value& v : ins)
    if (!operand_text(v, n.type.shape, std::vector<std::string>(n.type.shape.size(), "a")))
      return L.error_unsupported("an operand is neither a tensor nor a number");
  Tensor out = L.result(n.type.dtype, n.type.shape);
  std::vector<std::string> texts;
  L.emit_map(out, [&](const Nest& nest) {
    texts.clear();
    for (const Value& v : ins) texts.push_back(*operand_text(v, out.shape, nest.s));
    return f(texts);
  });
  return Value::of(out);
}

std::string tanh_text(const std::string& x) {
  return fmt::format("1-2/(exp(2*{})+1)", Lowering::p(x));
}

std::string sigmoid_text(const std::string& x) {
  return fmt::format("1/(1+exp(-{}))", Lowering::p(x));
}

namespace {

using P = const std::vector<std::string>&;

Handler binary(const char* op, bool reversed = false) {
  std::string o = op;
  return [o, reversed](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto a = L.arg(n, 0, "input");
    if (!a.ok()) return a.error();
    auto b = L.arg(n, 1, "other");
    if (!b.ok()) return b.error();
    Value rhs = *b;
    if (n.kwargs.contains("alpha")) {
      auto alpha = L.number_arg(n, 99, "alpha", 1.0);
      if (!alpha.ok()) return alpha.error();
      if (*alpha != 1.0) {
        if (!rhs.is_number()) return L.error_unsupported("alpha with a tensor operand");
        rhs.number *= *alpha;
      }
    }
    if (n.kwargs.contains("rounding_mode") && !n.kwargs.at("rounding_mode").is_null())
      return L.error_unsupported("div with a rounding_mode");
    std::vector<Value> ins = reversed ? std::vector<Value>{rhs, *a} : std::vector<Value>{*a, rhs};
    return map_values(L, ins, [o](P t) { return Lowering::p(t[0]) + o + Lowering::p(t[1]); });
  };
}

Handler compare(const char* op) {
  std::string o = op;
  return [o](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto a = L.arg(n, 0, "input");
    auto b = L.arg(n, 1, "other");
    if (!a.ok()) return a.error();
    if (!b.ok()) return b.error();
    return map_values(L, {*a, *b}, [o](P t) {
      return fmt::format("if_then_else({}{}{},1,0)", Lowering::p(t[0]), o, Lowering::p(t[1]));
    });
  };
}

Handler unary(std::function<std::string(const std::string&)> f) {
  return [f](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto a = L.arg(n, 0, "input");
    if (!a.ok()) return a.error();
    return map_values(L, {*a}, [f](P t) { return f(t[0]); });
  };
}

Result<Value> lower_pow(Lowering& L, const GraphNode& n) {
  auto a = L.arg(n, 0, "input");
  auto b = L.arg(n, 1, "exponent");
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  return map_values(L, {*a, *b}, [](P t) { return Lowering::p(t[0]) + "**(" + t[1] + ")"; });
}

Result<Value> lower_clamp(Lowering& L, const GraphNode& n) {
  auto x = L.arg(n, 0, "input");
  auto lo = L.arg(n, 1, "min");
  auto hi = L.arg(n, 2, "max");
  if (!x.ok()) return x.error();
  if (!lo.ok()) return lo.error();
  if (!hi.ok()) return hi.error();
  std::vector<Value> ins{*x};
  const bool has_lo = lo->kind != Value::Kind::kNone, has_hi = hi->kind != Value::Kind::kNone;
  if (has_lo) ins.push_back(*lo);
  if (has_hi) ins.push_back(*hi);
  return map_values(L, ins, [has_lo, has_hi](P t) {
    std::string e = t[0];
    if (has_lo) e = fmt::format("max({},{})", e, t[1]);
    if (has_hi) e = fmt::format("min({},{})", e, t[has_lo ? 2 : 1]);
    return e;
  });
}

Result<Value> lower_clamp_side(Lowering& L, const GraphNode& n, bool is_min) {
  auto x = L.arg(n, 0, "input");
  auto b = L.arg(n, 1, is_min ? "min" : "max");
  if (!x.ok()) return x.error();
  if (!b.ok()) return b.error();
  return map_values(L, {*x, *b}, [is_min](P t) {
    return fmt::format("{}({},{})", is_min ? "max" : "min", t[0], t[1]);
  });
}

Result<Value> lower_masked_fill(Lowering& L, const GraphNode& n) {
  auto x = L.arg(n, 0, "input");
  auto m = L.arg(n, 1, "mask");
  auto v = L.arg(n, 2, "value");
  if (!x.ok()) return x.error();
  if (!m.ok()) return m.error();
  if (!v.ok()) return v.error();
  return map_values(L, {*x, *m, *v}, [](P t) {
    return fmt::format("if_then_else({}!=0,{},{})", Lowering::p(t[1]), t[2], t[0]);
  });
}

Result<Value> lower_where(Lowering& L, const GraphNode& n) {
  auto c = L.arg(n, 0, "condition");
  auto a = L.arg(n, 1, "input");
  auto b = L.arg(n, 2, "other");
  if (!c.ok()) return c.error();
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  return map_values(L, {*c, *a, *b}, [](P t) {
    return fmt::format("if_then_else({}!=0,{},{})", Lowering::p(t[0]), t[1], t[2]);
  });
}

// torch.max/min with a second tensor or number operand is elementwise; with a dim it is a
// reduction (lower_reduce.cpp) — this handler only sees the elementwise form.
Handler binary_fn(const char* fn) {
  std::string f = fn;
  return [f](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto a = L.arg(n, 0, "input");
    auto b = L.arg(n, 1, "other");
    if (!a.ok()) return a.error();
    if (!b.ok()) return b.error();
    return map_values(L, {*a, *b}, [f](P t) { return f + "(" + t[0] + "," + t[1] + ")"; });
  };
}

Result<Value> lower_identity_copy(Lowering& L, const GraphNode& n) {
  auto a = L.arg(n, 0, "input");
  if (!a.ok()) return a.error();
  return map_values(L, {*a}, [](P t) { return t[0]; });
}

Result<Value> lower_zeros_like(Lowering& L, const GraphNode& n) {
  (void)n;
  return map_values(L, {}, [](P) { return std::string("0"); });
}

Result<Value> lower_ones_like(Lowering& L, const GraphNode& n) {
  (void)n;
  return map_values(L, {}, [](P) { return std::string("1"); });
}

}  // namespace

void register_elementwise(OpTable& t) {
  t["add"] = binary("+");
  t["sub"] = binary("-");
  t["subtract"] = binary("-");
  t["rsub"] = binary("-", /*reversed=*/true);
  t["mul"] = binary("*");
  t["multiply"] = binary("*");
  t["div"] = binary("/");
  t["divide"] = binary("/");
  t["true_divide"] = binary("/");
  t["pow"] = lower_pow;
  t["eq"] = compare("==");
  t["ne"] = compare("!=");
  t["lt"] = compare("<");
  t["le"] = compare("<=");
  t["gt"] = compare(">");
  t["ge"] = compare(">=");
  t["logical_not"] = unary(
      [](const std::string& x) { return fmt::format("if_then_else({}==0,1,0)", Lowering::p(x)); });
  t["neg"] = unary([](const std::string& x) { return "-" + Lowering::p(x); });
  t["exp"] = unary([](const std::string& x) { return "exp(" + x + ")"; });
  t["log"] = unary([](const std::string& x) { return "log(" + x + ")"; });
  t["sqrt"] = unary([](const std::string& x) { return "sqrt(" + x + ")"; });
  t["rsqrt"] = unary([](const std::string& x) { return "1/sqrt(" + x + ")"; });
  t["abs"] = unary([](const std::string& x) { return "abs(" + x + ")"; });
  t["erf"] = unary([](const std::string& x) { return "erf(" + x + ")"; });
  t["square"] = unary([](const std::string& x) { return Lowering::p(x) + "*" + Lowering::p(x); });
  t["reciprocal"] = unary([](const std::string& x) { return "1/" + Lowering::p(x); });
  t["clamp"] = lower_clamp;
  t["clip"] = lower_clamp;
  t["clamp_min"] = [](Lowering& L, const GraphNode& n) { return lower_clamp_side(L, n, true); };
  t["clamp_max"] = [](Lowering& L, const GraphNode& n) { return lower_clamp_side(L, n, false); };
  t["maximum"] = binary_fn("max");
  t["minimum"] = binary_fn("min");
  t["masked_fill"] = lower_masked_fill;
  t["where"] = lower_where;
  t["zeros_like"] = lower_zeros_like;
  t["ones_like"] = lower_ones_like;
  t["clone"] = lower_identity_copy;
  t["detach"] = lower_identity_copy;
  t["float"] = lower_identity_copy;
  t["double"] = lower_identity_copy;
  t["to"] = lower_identity_copy;
  t["type_as"] = lower_identity_copy;
  t["elementwise_max"] = binary_fn("max");
  t["elementwise_min"] = binary_fn("min");
}

}  // namespace steptp::frontend
