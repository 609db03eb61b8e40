// frontend/lower_pool.cpp — max and average pooling, 1-D to 3-D (module and functional forms),
// with tuple kernel/stride/padding, dilation (max), ceil_mode, count_include_pad and
// divisor_override (avg). Global/adaptive pooling with output size 1 is a mean/max reduction.
//
//   MaxPool2d(k=2,s=2,p=1) → [D=if_then_else(1<=c<9&1<=d<9,A_{..,c-1,d-1},(-inf))]
//                            [C_{tx,a,c,d}=max(C_{tx,a,c,d},D_{tx,a,c*2+f,d*2+g})]
//   AvgPool: sum nest, then C=S/(per-window count) — a literal when every window is full.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

struct PoolParams {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false, count_include_pad = true;
  std::optional<int64_t> divisor;
};

Result<std::vector<int64_t>> widen(const Value& v, int d, std::vector<int64_t> dflt) {
  if (v.kind == Value::Kind::kNone) return dflt;
  if (v.kind == Value::Kind::kNumber && v.integral)
    return std::vector<int64_t>(d, static_cast<int64_t>(v.number));
  if (v.kind == Value::Kind::kInts && static_cast<int>(v.ints.size()) == d) return v.ints;
  if (v.kind == Value::Kind::kInts && v.ints.size() == 1) return std::vector<int64_t>(d, v.ints[0]);
  if (v.kind == Value::Kind::kInts && v.ints.empty()) return dflt;
  return Error::make("unsupported_op", "a pooling size must be an int or one int per dim");
}

std::string scaled(const std::string& v, int64_t s) {
  return s == 1 ? v : fmt::format("{}*{}", v, s);
}

Result<Value> max_pool(Lowering& L, const GraphNode& n, const Tensor& x, const PoolParams& pp,
                       int d) {
  const int lead = x.rank() - d;
  if (lead < 0 || n.type.shape.size() != x.shape.size())
    return L.error_unsupported("max pool input rank does not match the pooling dims");
  std::vector<int64_t> padded;
  for (int i = 0; i < d; ++i) {
    const int64_t o = n.type.shape[lead + i];
    // ceil_mode windows may run past the right padding: extend with -inf so they read nothing.
    padded.push_back(std::max(x.shape[lead + i] + 2 * pp.padding[i],
                              (o - 1) * pp.stride[i] + (pp.kernel[i] - 1) * pp.dilation[i] + 1));
  }
  Tensor src = pad_input(L, x, pp.padding, padded, Lowering::number(-INFINITY));
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit(out.shape, pp.kernel, [&](const Nest& nn) {
    std::vector<std::string> xi(nn.s.begin(), nn.s.begin() + lead);
    for (int i = 0; i < d; ++i)
      xi.push_back(scaled(nn.s[lead + i], pp.stride[i]) + "+" + scaled(nn.r[i], pp.dilation[i]));
    std::string o = Lowering::access(out, nn.s);
    return std::vector<std::string>{fmt::format("{}=max({},{})", o, o, Lowering::access(src, xi))};
  });
  return Value::of(out);
}

Result<Value> avg_pool(Lowering& L, const GraphNode& n, const Tensor& x, const PoolParams& pp,
                       int d) {
  const int lead = x.rank() - d;
  if (lead < 0 || n.type.shape.size() != x.shape.size())
    return L.error_unsupported("avg pool input rank does not match the pooling dims");
  std::vector<int64_t> padded;
  for (int i = 0; i < d; ++i) {
    const int64_t o = n.type.shape[lead + i];
    padded.push_back(
        std::max(x.shape[lead + i] + 2 * pp.padding[i], (o - 1) * pp.stride[i] + pp.kernel[i]));
  }
  Tensor src = pad_input(L, x, pp.padding, padded, "0");
  Tensor sum = L.temp(x.dtype, n.type.shape);
  L.emit(sum.shape, pp.kernel, [&](const Nest& nn) {
    std::vector<std::string> xi(nn.s.begin(), nn.s.begin() + lead);
    for (int i = 0; i < d; ++i) xi.push_back(scaled(nn.s[lead + i], pp.stride[i]) + "+" + nn.r[i]);
    std::string o = Lowering::access(sum, nn.s);
    return std::vector<std::string>{o + "=" + o + "+" + Lowering::access(src, xi)};
  });
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    if (pp.divisor) return Lowering::access(sum, nn.s) + "/" + std::to_string(*pp.divisor);
    int64_t constant = 1;
    std::vector<std::string> factors;
    for (int i = 0; i < d; ++i) {
      const int64_t h = x.shape[lead + i], k = pp.kernel[i], s = pp.stride[i], p = pp.padding[i];
      const int64_t o = n.type.shape[lead + i];
      const std::string start = scaled(nn.s[lead + i], s);  // window start in padded coords
      if (pp.count_include_pad) {
        // The window clipped to the padded extent [0, h+2p).
        if ((o - 1) * s + k <= h + 2 * p)
          constant *= k;
        else
          factors.push_back(fmt::format("min({},{}-{})", k, h + 2 * p, start));
      } else {
        // The window clipped to the real input [p, h+p).
        if (p == 0 && (o - 1) * s + k <= h)
          constant *= k;
        else
          factors.push_back(fmt::format("(min({}+{},{})-max({},{}))", start, k, h + p, start, p));
      }
    }
    std::string div = std::to_string(constant);
    for (const std::string& f : factors) div += "*" + f;
    if (!factors.empty()) div = "(" + div + ")";
    return Lowering::access(sum, nn.s) + "/" + div;
  });
  return Value::of(out);
}

Result<PoolParams> read_params(Lowering& L, const GraphNode& n, int d, bool is_max, bool module) {
  PoolParams pp;
  auto get = [&](size_t pos, const char* key) -> Result<Value> {
    if (module) return L.eval(L.hparam(key));
    return L.arg(n, pos, key);
  };
  auto k = get(1, "kernel_size");
  if (!k.ok()) return k.error();
  auto kw = widen(*k, d, {});
  if (!kw.ok()) return kw.error();
  if (static_cast<int>(kw->size()) != d)
    return Error::make("unsupported_op", "pooling without a kernel size");
  pp.kernel = *kw;
  auto s = get(2, "stride");
  auto p = get(3, "padding");
  if (!s.ok()) return s.error();
  if (!p.ok()) return p.error();
  auto sw = widen(*s, d, pp.kernel);
  auto pw = widen(*p, d, std::vector<int64_t>(d, 0));
  if (!sw.ok()) return sw.error();
  if (!pw.ok()) return pw.error();
  pp.stride = *sw;
  pp.padding = *pw;
  pp.dilation.assign(d, 1);
  auto flag = [](const Value& v, bool dflt) { return v.is_number() ? v.number != 0 : dflt; };
  if (is_max) {
    auto dl = get(4, "dilation");
    auto cm = get(5, "ceil_mode");
    auto ri = get(6, "return_indices");
    if (!dl.ok()) return dl.error();
    if (!cm.ok()) return cm.error();
    if (!ri.ok()) return ri.error();
    auto dw = widen(*dl, d, std::vector<int64_t>(d, 1));
    if (!dw.ok()) return dw.error();
    pp.dilation = *dw;
    pp.ceil_mode = flag(*cm, false);
    if (flag(*ri, false)) return Error::make("unsupported_op", "max pool with return_indices");
  } else {
    auto cm = get(4, "ceil_mode");
    auto cip = get(5, "count_include_pad");
    auto dv = get(6, "divisor_override");
    if (!cm.ok()) return cm.error();
    if (!cip.ok()) return cip.error();
    if (!dv.ok()) return dv.error();
    pp.ceil_mode = flag(*cm, false);
    pp.count_include_pad = flag(*cip, true);
    if (dv->is_number()) pp.divisor = static_cast<int64_t>(dv->number);
  }
  return pp;
}

Handler pool(int d, bool is_max, bool module) {
  return [d, is_max, module](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto x = L.tensor_arg(n, 0, "input");
    if (!x.ok()) return x.error();
    auto pp = read_params(L, n, d, is_max, module);
    if (!pp.ok()) return L.error_unsupported(pp.error().message);
    return is_max ? max_pool(L, n, *x, *pp, d) : avg_pool(L, n, *x, *pp, d);
  };
}

// Adaptive pooling whose output is 1 in every pooled dim: a mean or max over those dims.
Handler adaptive(int d, bool is_max, bool module) {
  return [d, is_max, module](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto x = L.tensor_arg(n, 0, "input");
    if (!x.ok()) return x.error();
    const int lead = x->rank() - d;
    if (lead < 0 || n.type.shape.size() != x->shape.size())
      return L.error_unsupported("adaptive pool input rank does not match");
    std::vector<int> red;
    for (int i = 0; i < d; ++i) {
      if (n.type.shape[lead + i] != 1 && n.type.shape[lead + i] != x->shape[lead + i])
        return L.error_unsupported("adaptive pooling to an output size other than 1");
      if (n.type.shape[lead + i] == 1) red.push_back(lead + i);
    }
    (void)module;
    const Tensor X = *x;
    int64_t count = 1;
    for (int r : red) count *= X.shape[r];
    Tensor acc =
        accumulate(L, X, red, is_max ? "max" : "+",
                   [&](const std::vector<std::string>& i) { return Lowering::access(X, i); });
    Tensor out = L.result(n.type.dtype, n.type.shape);
    L.emit(acc.shape, {}, [&](const Nest& nn) {
      std::string v = Lowering::access(acc, nn.s);
      if (!is_max) v += "/" + std::to_string(count);
      return std::vector<std::string>{Lowering::access(out, keepdim_index(X.rank(), red, nn.s)) +
                                      "=" + v};
    });
    return Value::of(out);
  };
}

}  // namespace

void register_pool(OpTable& t) {
  for (int d = 1; d <= 3; ++d) {
    t[fmt::format("module:MaxPool{}d", d)] = pool(d, true, true);
    t[fmt::format("module:AvgPool{}d", d)] = pool(d, false, true);
    t[fmt::format("max_pool{}d", d)] = pool(d, true, false);
    t[fmt::format("avg_pool{}d", d)] = pool(d, false, false);
    t[fmt::format("module:AdaptiveAvgPool{}d", d)] = adaptive(d, false, true);
    t[fmt::format("module:AdaptiveMaxPool{}d", d)] = adaptive(d, true, true);
    t[fmt::format("adaptive_avg_pool{}d", d)] = adaptive(d, false, false);
    t[fmt::format("adaptive_max_pool{}d", d)] = adaptive(d, true, false);
  }
}

}  // namespace steptp::frontend
