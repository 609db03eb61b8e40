// frontend/lower_reduce.cpp — sum, mean, prod, max/min (values), argmax/argmin (first index,
// as torch), amax/amin, logsumexp (max-shifted) and norm, over any set of dims, keepdim or not.
//
//   sum(A[16,256,256], dim=1) →
//   B^{16}_{tx=0}L^{256}_{a=0}L^{256}_{c=0}[C_{tx,a}=C_{tx,a}+A_{tx,c,a};];
#include <fmt/format.h>

#include <algorithm>

#include "frontend/lowering.h"

namespace steptp::frontend {

Result<std::vector<int>> reduce_dims(const Value& dims, int rank) {
  std::vector<int> out;
  if (dims.kind == Value::Kind::kNone) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  std::vector<int64_t> raw;
  if (dims.kind == Value::Kind::kInts)
    raw = dims.ints;
  else if (dims.kind == Value::Kind::kNumber && dims.integral)
    raw.push_back(static_cast<int64_t>(dims.number));
  else
    return Error::make("unsupported_op", "a reduction dim is not an integer");
  for (int64_t d : raw) {
    int64_t x = d < 0 ? d + rank : d;
    if (x < 0 || x >= std::max(rank, 1))
      return Error::make("bad_graph", fmt::format("dim {} out of range for rank {}", d, rank));
    if (rank == 0) continue;
    out.push_back(static_cast<int>(x));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int64_t> kept_shape(const std::vector<int64_t>& shape, const std::vector<int>& red) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < shape.size(); ++i)
    if (std::find(red.begin(), red.end(), static_cast<int>(i)) == red.end())
      out.push_back(shape[i]);
  return out;
}

std::vector<int64_t> reduced_extents(const std::vector<int64_t>& shape,
                                     const std::vector<int>& red) {
  std::vector<int64_t> out;
  for (int d : red) out.push_back(shape[d]);
  return out;
}

std::vector<std::string> full_index(int rank, const std::vector<int>& red, const Nest& n) {
  std::vector<std::string> idx;
  size_t k = 0, r = 0;
  for (int i = 0; i < rank; ++i) {
    if (std::find(red.begin(), red.end(), i) != red.end())
      idx.push_back(n.r[r++]);
    else
      idx.push_back(n.s[k++]);
  }
  return idx;
}

std::vector<std::string> keepdim_index(int rank, const std::vector<int>& red,
                                       const std::vector<std::string>& kept_vars) {
  std::vector<std::string> idx;
  size_t k = 0;
  for (int i = 0; i < rank; ++i) {
    if (std::find(red.begin(), red.end(), i) != red.end())
      idx.push_back("0");
    else
      idx.push_back(kept_vars[k++]);
  }
  return idx;
}

Tensor accumulate(Lowering& L, const Tensor& x, const std::vector<int>& red,
                  const std::string& combine,
                  const std::function<std::string(const std::vector<std::string>&)>& term,
                  std::optional<Tensor> into, bool keepdim_into) {
  Tensor acc = into ? *into : L.temp(x.dtype, kept_shape(x.shape, red));
  L.emit(kept_shape(x.shape, red), reduced_extents(x.shape, red), [&](const Nest& n) {
    std::vector<std::string> ai = keepdim_into ? keepdim_index(x.rank(), red, n.s) : n.s;
    std::string a = Lowering::access(acc, ai);
    std::string t = term(full_index(x.rank(), red, n));
    std::string rhs = (combine == "max" || combine == "min")
                          ? fmt::format("{}({},{})", combine, a, t)
                          : a + combine + Lowering::p(t);
    return std::vector<std::string>{a + "=" + rhs};
  });
  return acc;
}

namespace {

struct ReduceArgs {
  Tensor x;
  std::vector<int> red;
  bool keepdim = false;
};

Result<ReduceArgs> reduce_args(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  auto d = L.arg(n, 1, "dim");
  if (!d.ok()) return d.error();
  if (d->kind == Value::Kind::kString) return Error::make("unsupported_op", "named dims");
  auto red = reduce_dims(*d, x->rank());
  if (!red.ok()) return red.error();
  auto kd = L.arg(n, 2, "keepdim");
  if (!kd.ok()) return kd.error();
  return ReduceArgs{*x, *red, kd->is_number() && kd->number != 0};
}

// The first index along red[0] (one reduced dim) where x attains its extreme (`which`: "max" or
// "min"), as a tensor of the given dtype and shape: min over positions of (x == best ? position
// : N). Ties resolve to the first position, as torch's CPU kernels do.
Result<Value> first_extreme_index(Lowering& L, const Tensor& x, const std::vector<int>& red,
                                  bool keepdim, const std::string& which, leir::DType dtype,
                                  const std::vector<int64_t>& shape) {
  auto term = [&](const std::vector<std::string>& idx) { return Lowering::access(x, idx); };
  Tensor best = accumulate(L, x, red, which, term);
  const int64_t N = x.shape[red[0]];
  Tensor first = L.temp(leir::DType::kF64, best.shape);
  L.emit(best.shape, {N}, [&](const Nest& nn) {
    std::string f = Lowering::access(first, nn.s);
    return std::vector<std::string>{fmt::format("{}=min({},if_then_else({}=={},{},{}))", f, f,
                                                Lowering::access(x, full_index(x.rank(), red, nn)),
                                                Lowering::access(best, nn.s), nn.r[0], N)};
  });
  Tensor out = L.result(dtype, shape);
  L.emit(best.shape, {}, [&](const Nest& nn) {
    std::vector<std::string> oi = keepdim ? keepdim_index(x.rank(), red, nn.s) : nn.s;
    return std::vector<std::string>{Lowering::access(out, oi) + "=" +
                                    Lowering::access(first, nn.s)};
  });
  return Value::of(out);
}

// The shape of the node's (first) result.
const ValueType& first_type(const GraphNode& n) {
  return n.type.tuple.empty() ? n.type : n.type.tuple[0];
}

Result<Value> simple_reduce(Lowering& L, const GraphNode& n, const std::string& combine,
                            bool mean) {
  auto ra = reduce_args(L, n);
  if (!ra.ok()) return ra.error();
  const ValueType& ty = first_type(n);
  const Tensor& x = ra->x;  // named references, not a binding: the lambdas capture them
  const std::vector<int>& red = ra->red;
  const bool keepdim = ra->keepdim;
  std::string xs;
  auto term = [&](const std::vector<std::string>& idx) { return Lowering::access(x, idx); };
  Tensor out;
  if (!mean) {
    out = L.result(ty.dtype, ty.shape);
    accumulate(L, x, red, combine, term, out, keepdim);
  } else {
    Tensor acc = accumulate(L, x, red, combine, term);
    int64_t count = 1;
    for (int64_t e : reduced_extents(x.shape, red)) count *= e;
    out = L.result(ty.dtype, ty.shape);
    L.emit(acc.shape, {}, [&](const Nest& nn) {
      std::vector<std::string> oi = keepdim ? keepdim_index(x.rank(), red, nn.s) : nn.s;
      return std::vector<std::string>{Lowering::access(out, oi) + "=" +
                                      Lowering::access(acc, nn.s) + "/" + std::to_string(count)};
    });
  }
  if (!n.type.tuple.empty()) {
    Value v;
    v.kind = Value::Kind::kTuple;
    v.items.push_back(Value::of(out));
    Value idx;
    if ((combine == "max" || combine == "min") && red.size() == 1 && n.type.tuple.size() == 2) {
      const ValueType& it = n.type.tuple[1];
      idx.deferred = [x = x, red = red, keepdim = keepdim, combine, dtype = it.dtype,
                      shape = it.shape](Lowering& Lw) {
        return first_extreme_index(Lw, x, red, keepdim, combine, dtype, shape);
      };
    } else {
      idx.kind = Value::Kind::kString;
      idx.str = "unsupported:indices of " + n.target + " (node '" + n.name + "')";
    }
    v.items.push_back(idx);
    return v;
  }
  return Value::of(out);
}

Handler max_min(const char* which) {
  std::string w = which;
  return [w](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto b = L.arg(n, 1, "other");
    if (!b.ok()) return b.error();
    const bool elementwise =
        b->is_tensor() || (b->is_number() && n.type.tuple.empty() && !n.kwargs.contains("dim") &&
                           L.has_arg(n, 1, nullptr));
    if (elementwise) {
      auto a = L.arg(n, 0, "input");
      if (!a.ok()) return a.error();
      return map_values(L, {*a, *b}, [w](const std::vector<std::string>& t) {
        return w + "(" + t[0] + "," + t[1] + ")";
      });
    }
    return simple_reduce(L, n, w, false);
  };
}

Handler arg_reduce(const char* which) {
  std::string w = which;
  return [w](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto ra = reduce_args(L, n);
    if (!ra.ok()) return ra.error();
    const Tensor& x = ra->x;  // named references, not a binding: the lambdas capture them
    const std::vector<int>& red = ra->red;
    const bool keepdim = ra->keepdim;
    if (red.size() != 1 || !L.has_arg(n, 1, "dim"))
      return L.error_unsupported("argmax/argmin needs one explicit dim");
    return first_extreme_index(L, x, red, keepdim, w, n.type.dtype, n.type.shape);
  };
}

Result<Value> lower_logsumexp(Lowering& L, const GraphNode& n) {
  auto ra = reduce_args(L, n);
  if (!ra.ok()) return ra.error();
  const Tensor& x = ra->x;  // named references, not a binding: the lambdas capture them
  const std::vector<int>& red = ra->red;
  const bool keepdim = ra->keepdim;
  Tensor m = accumulate(L, x, red, "max",
                        [&](const std::vector<std::string>& i) { return Lowering::access(x, i); });
  Tensor s = accumulate(L, x, red, "+", [&](const std::vector<std::string>& i) {
    std::vector<std::string> ki;
    for (size_t d = 0; d < i.size(); ++d)
      if (std::find(red.begin(), red.end(), static_cast<int>(d)) == red.end()) ki.push_back(i[d]);
    return fmt::format("exp({}-{})", Lowering::access(x, i), Lowering::access(m, ki));
  });
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit(m.shape, {}, [&](const Nest& nn) {
    std::vector<std::string> oi = keepdim ? keepdim_index(x.rank(), red, nn.s) : nn.s;
    return std::vector<std::string>{Lowering::access(out, oi) + "=" + Lowering::access(m, nn.s) +
                                    "+log(" + Lowering::access(s, nn.s) + ")"};
  });
  return Value::of(out);
}

Result<Value> lower_norm(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  auto pv = L.arg(n, 1, "p");
  if (!pv.ok()) return pv.error();
  const bool fro = pv->kind == Value::Kind::kNone ||
                   (pv->kind == Value::Kind::kString && pv->str == "fro") ||
                   (pv->is_number() && pv->number == 2);
  const bool l1 = pv->is_number() && pv->number == 1;
  if (!fro && !l1) return L.error_unsupported("norm with p other than 1, 2 or 'fro'");
  auto d = L.arg(n, 2, "dim");
  auto kd = L.arg(n, 3, "keepdim");
  if (!d.ok()) return d.error();
  if (!kd.ok()) return kd.error();
  auto red = reduce_dims(*d, x->rank());
  if (!red.ok()) return red.error();
  const bool keepdim = kd->is_number() && kd->number != 0;
  const Tensor X = *x;
  Tensor acc = accumulate(L, X, *red, "+", [&](const std::vector<std::string>& i) {
    std::string a = Lowering::access(X, i);
    return l1 ? "abs(" + a + ")" : a + "*" + a;
  });
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit(acc.shape, {}, [&](const Nest& nn) {
    std::vector<std::string> oi = keepdim ? keepdim_index(X.rank(), *red, nn.s) : nn.s;
    std::string a = Lowering::access(acc, nn.s);
    return std::vector<std::string>{Lowering::access(out, oi) + "=" + (l1 ? a : "sqrt(" + a + ")")};
  });
  return Value::of(out);
}

}  // namespace

void register_reduce(OpTable& t) {
  t["sum"] = [](Lowering& L, const GraphNode& n) { return simple_reduce(L, n, "+", false); };
  t["mean"] = [](Lowering& L, const GraphNode& n) { return simple_reduce(L, n, "+", true); };
  t["prod"] = [](Lowering& L, const GraphNode& n) { return simple_reduce(L, n, "*", false); };
  t["amax"] = [](Lowering& L, const GraphNode& n) { return simple_reduce(L, n, "max", false); };
  t["amin"] = [](Lowering& L, const GraphNode& n) { return simple_reduce(L, n, "min", false); };
  t["max"] = max_min("max");
  t["min"] = max_min("min");
  t["argmax"] = arg_reduce("max");
  t["argmin"] = arg_reduce("min");
  t["logsumexp"] = lower_logsumexp;
  t["norm"] = lower_norm;
}

}  // namespace steptp::frontend
