// frontend/lower_norm.cpp — batch norm (eval mode: running statistics; batch statistics when
// the module tracks none), layer, group and instance norm, module and functional forms.
//
// Statistics follow the reference's six-nest pattern (mean-sum, mean, var-sum, var, x̂, affine),
// biased variance as torch; group norm indexes channels as g*(C/G)+c in its statistic nests.
//   BatchNorm2d eval → [C_{tx,a,c,d}=(A_{tx,a,c,d}-M_{a})/sqrt(V_{a}+1e-05)*W_{a}+Bb_{a}]
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

// Where statistics live: shape `kept`, computed by iterating `kept` (spatial) × `red`
// (reduction) and reading x at `x_index(nest)`; an element of x finds its statistic at
// `stat_index(full x vars)`.
struct StatView {
  std::vector<int64_t> kept, red;
  std::function<std::vector<std::string>(const Nest&)> x_index;
  std::function<std::vector<std::string>(const std::vector<std::string>&)> stat_index;
  int64_t count = 1;
};

// The affine factors of one normalisation: w/b read at `wb_index(full x vars)`.
struct Affine {
  std::optional<Tensor> w, b;
  std::function<std::vector<std::string>(const std::vector<std::string>&)> wb_index;
};

Result<Value> normalize(Lowering& L, const GraphNode& n, const Tensor& x, const StatView& v,
                        double eps, const Affine& af) {
  Tensor s1 = L.temp(x.dtype, v.kept);
  L.emit(v.kept, v.red, [&](const Nest& nn) {
    std::string a = Lowering::access(s1, nn.s);
    return std::vector<std::string>{a + "=" + a + "+" + Lowering::access(x, v.x_index(nn))};
  });
  Tensor mean = L.temp(x.dtype, v.kept);
  L.emit(v.kept, {}, [&](const Nest& nn) {
    return std::vector<std::string>{Lowering::access(mean, nn.s) + "=" +
                                    Lowering::access(s1, nn.s) + "/" + std::to_string(v.count)};
  });
  Tensor s2 = L.temp(x.dtype, v.kept);
  L.emit(v.kept, v.red, [&](const Nest& nn) {
    std::string a = Lowering::access(s2, nn.s);
    return std::vector<std::string>{fmt::format("{}={}+({}-{})**2", a, a,
                                                Lowering::access(x, v.x_index(nn)),
                                                Lowering::access(mean, nn.s))};
  });
  Tensor var = L.temp(x.dtype, v.kept);
  L.emit(v.kept, {}, [&](const Nest& nn) {
    return std::vector<std::string>{Lowering::access(var, nn.s) + "=" + Lowering::access(s2, nn.s) +
                                    "/" + std::to_string(v.count)};
  });
  const bool affine = af.w || af.b;
  Tensor xhat = affine ? L.temp(n.type.dtype, x.shape) : L.result(n.type.dtype, x.shape);
  L.emit_map(xhat, [&](const Nest& nn) {
    std::vector<std::string> si = v.stat_index(nn.s);
    return fmt::format("({}-{})/sqrt({}+{})", Lowering::access(x, nn.s), Lowering::access(mean, si),
                       Lowering::access(var, si), Lowering::number(eps));
  });
  if (!affine) return Value::of(xhat);
  Tensor out = L.result(n.type.dtype, x.shape);
  L.emit_map(out, [&](const Nest& nn) {
    std::vector<std::string> wi = af.wb_index(nn.s);
    std::string e = Lowering::access(xhat, nn.s);
    if (af.w) e = Lowering::access(*af.w, wi) + "*" + e;
    if (af.b) e += "+" + Lowering::access(*af.b, wi);
    return e;
  });
  return Value::of(out);
}

Affine module_affine(Lowering& L,
                     std::function<std::vector<std::string>(const std::vector<std::string>&)> idx) {
  Affine af;
  if (L.has_module_param("weight")) af.w = *L.module_param("weight");
  if (L.has_module_param("bias")) af.b = *L.module_param("bias");
  af.wb_index = std::move(idx);
  return af;
}

std::vector<std::string> channel_of(const std::vector<std::string>& v) { return {v[1]}; }

double hparam_number(Lowering& L, const char* key, double dflt) {
  auto j = L.hparam(key);
  return j.is_number() ? j.get<double>() : dflt;
}

// Statistics over the dims listed in `red` (a sorted subset of x's dims).
StatView dims_view(const Tensor& x, const std::vector<int>& red) {
  StatView v;
  v.kept = kept_shape(x.shape, red);
  v.red = reduced_extents(x.shape, red);
  for (int64_t e : v.red) v.count *= e;
  const int rank = x.rank();
  v.x_index = [rank, red](const Nest& nn) { return full_index(rank, red, nn); };
  v.stat_index = [red](const std::vector<std::string>& vars) {
    std::vector<std::string> k;
    for (size_t d = 0; d < vars.size(); ++d)
      if (std::find(red.begin(), red.end(), static_cast<int>(d)) == red.end()) k.push_back(vars[d]);
    return k;
  };
  return v;
}

Result<Value> batch_norm_module(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  if (x->rank() < 2) return L.error_unsupported("batch norm of a tensor of rank < 2");
  const double eps = hparam_number(L, "eps", 1e-5);
  const Tensor X = *x;
  Affine af = module_affine(L, channel_of);
  if (!L.has_module_param("running_mean") || !L.has_module_param("running_var")) {
    // No running statistics: torch normalises with the batch statistics even in eval mode.
    std::vector<int> red;
    for (int d = 0; d < X.rank(); ++d)
      if (d != 1) red.push_back(d);
    return normalize(L, n, X, dims_view(X, red), eps, af);
  }
  const Tensor rm = *L.module_param("running_mean"), rv = *L.module_param("running_var");
  Tensor out = L.result(n.type.dtype, X.shape);
  L.emit_map(out, [&](const Nest& nn) {
    std::string e = fmt::format("({}-{})/sqrt({}+{})", Lowering::access(X, nn.s),
                                Lowering::access(rm, {nn.s[1]}), Lowering::access(rv, {nn.s[1]}),
                                Lowering::number(eps));
    if (af.w) e += "*" + Lowering::access(*af.w, {nn.s[1]});
    if (af.b) e += "+" + Lowering::access(*af.b, {nn.s[1]});
    return e;
  });
  return Value::of(out);
}

Result<Value> instance_norm_module(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  if (x->rank() < 3) return L.error_unsupported("instance norm needs a batched input [N,C,...]");
  auto track = L.hparam("track_running_stats");
  if (track.is_boolean() && track.get<bool>())
    return L.error_unsupported("instance norm with running statistics");
  std::vector<int> red;
  for (int d = 2; d < x->rank(); ++d) red.push_back(d);
  return normalize(L, n, *x, dims_view(*x, red), hparam_number(L, "eps", 1e-5),
                   module_affine(L, channel_of));
}

Result<Value> layer_norm(Lowering& L, const GraphNode& n, const Tensor& x,
                         const std::vector<int64_t>& shape, double eps, const Affine& af0) {
  const int k = static_cast<int>(shape.size());
  if (k == 0 || k > x.rank() || !std::equal(shape.begin(), shape.end(), x.shape.end() - k))
    return L.error_unsupported("normalized_shape does not match the input's trailing dims");
  std::vector<int> red;
  for (int d = x.rank() - k; d < x.rank(); ++d) red.push_back(d);
  Affine af = af0;
  af.wb_index = [k](const std::vector<std::string>& vars) {
    return std::vector<std::string>(vars.end() - k, vars.end());
  };
  return normalize(L, n, x, dims_view(x, red), eps, af);
}

Result<Value> layer_norm_module(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  auto shape = L.eval(L.hparam("normalized_shape"));
  if (!shape.ok()) return shape.error();
  if (shape->kind != Value::Kind::kInts) return L.error_unsupported("normalized_shape");
  return layer_norm(L, n, *x, shape->ints, hparam_number(L, "eps", 1e-5),
                    module_affine(L, nullptr));
}

Result<Value> layer_norm_fn(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  auto shape = L.ints_arg(n, 1, "normalized_shape");
  auto eps = L.number_arg(n, 4, "eps", 1e-5);
  if (!x.ok()) return x.error();
  if (!shape.ok()) return shape.error();
  if (!eps.ok()) return eps.error();
  Affine af;
  for (int i : {2, 3}) {
    auto t = L.arg(n, i, i == 2 ? "weight" : "bias");
    if (!t.ok()) return t.error();
    if (t->is_tensor()) (i == 2 ? af.w : af.b) = t->tensor;
  }
  return layer_norm(L, n, *x, *shape, *eps, af);
}

Result<Value> group_norm(Lowering& L, const GraphNode& n, const Tensor& x, int64_t groups,
                         double eps, const Affine& af0) {
  if (x.rank() < 2 || groups <= 0 || x.shape[1] % groups != 0)
    return L.error_unsupported("group norm: channels not divisible by the group count");
  const int64_t cg = x.shape[1] / groups;
  StatView v;
  v.kept = {x.shape[0], groups};
  v.red = {cg};
  for (int d = 2; d < x.rank(); ++d) v.red.push_back(x.shape[d]);
  for (int64_t e : v.red) v.count *= e;
  v.x_index = [cg](const Nest& nn) {
    std::vector<std::string> idx{nn.s[0],
                                 cg == 1 ? nn.s[1] : fmt::format("{}*{}+{}", nn.s[1], cg, nn.r[0])};
    idx.insert(idx.end(), nn.r.begin() + 1, nn.r.end());
    return idx;
  };
  v.stat_index = [cg](const std::vector<std::string>& vars) {
    return std::vector<std::string>{vars[0],
                                    cg == 1 ? vars[1] : fmt::format("{}//{}", vars[1], cg)};
  };
  Affine af = af0;
  af.wb_index = channel_of;
  return normalize(L, n, x, v, eps, af);
}

Result<Value> group_norm_module(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  return group_norm(L, n, *x, static_cast<int64_t>(hparam_number(L, "num_groups", 0)),
                    hparam_number(L, "eps", 1e-5), module_affine(L, nullptr));
}

Result<Value> group_norm_fn(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  auto g = L.int_arg(n, 1, "num_groups", 0);
  auto eps = L.number_arg(n, 4, "eps", 1e-5);
  if (!x.ok()) return x.error();
  if (!g.ok()) return g.error();
  if (!eps.ok()) return eps.error();
  Affine af;
  for (int i : {2, 3}) {
    auto t = L.arg(n, i, i == 2 ? "weight" : "bias");
    if (!t.ok()) return t.error();
    if (t->is_tensor()) (i == 2 ? af.w : af.b) = t->tensor;
  }
  return group_norm(L, n, *x, *g, *eps, af);
}

}  // namespace

void register_norm(OpTable& t) {
  for (const char* m : {"module:BatchNorm1d", "module:BatchNorm2d", "module:BatchNorm3d"})
    t[m] = batch_norm_module;
  for (const char* m : {"module:InstanceNorm1d", "module:InstanceNorm2d", "module:InstanceNorm3d"})
    t[m] = instance_norm_module;
  t["module:LayerNorm"] = layer_norm_module;
  t["layer_norm"] = layer_norm_fn;
  t["module:GroupNorm"] = group_norm_module;
  t["group_norm"] = group_norm_fn;
}

}  // namespace steptp::frontend
