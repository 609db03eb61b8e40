// frontend/lower_loss.cpp — losses: cross_entropy and nll_loss (class-index targets gathered
// with an i64 tensor inside a subscript, ignore_index, class weights), mse, l1, smooth_l1,
// huber, kl_div, cosine_similarity and triplet margin (module and functional), with the
// reductions none / mean / sum (/ batchmean for kl_div).
//
//   nll_loss(X[N,C], T[N]) → [S=S+if_then_else(T_{a}!=(-100),-X_{a,T_{a}},0)]
//                            [K=K+if_then_else(T_{a}!=(-100),1,0)] [C=S/K]
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

using Term = std::function<std::string(const std::vector<std::string>&)>;

// Applies `reduction` to the pointwise loss `term` over `shape`: none writes it per element,
// sum/mean/batchmean accumulate it into a scalar (mean divides by the element count,
// batchmean by shape[0]).
Result<Value> reduce_loss(Lowering& L, const GraphNode& n, const std::vector<int64_t>& shape,
                          const std::string& reduction, const Term& term) {
  if (reduction == "none") {
    Tensor out = L.result(n.type.dtype, shape);
    L.emit_map(out, [&](const Nest& nn) { return term(nn.s); });
    return Value::of(out);
  }
  int64_t divisor = 1;
  if (reduction == "mean")
    for (int64_t e : shape) divisor *= e;
  else if (reduction == "batchmean")
    divisor = shape.empty() ? 1 : shape[0];
  else if (reduction != "sum")
    return L.error_unsupported("reduction '" + reduction + "'");
  Tensor acc = L.temp(n.type.dtype, {});
  L.emit({}, shape, [&](const Nest& nn) {
    std::string a = Lowering::access(acc, {});
    return std::vector<std::string>{a + "=" + a + "+" + Lowering::p(term(nn.r))};
  });
  Tensor out = L.result(n.type.dtype, {});
  L.emit({}, {}, [&](const Nest&) {
    std::string a = Lowering::access(acc, {});
    return std::vector<std::string>{Lowering::access(out, {}) + "=" +
                                    (divisor == 1 ? a : a + "/" + std::to_string(divisor))};
  });
  return Value::of(out);
}

Result<std::string> reduction_arg(Lowering& L, const GraphNode& n, size_t pos) {
  Value v;
  if (n.op == "call_module") {
    auto r = L.eval(L.hparam("reduction"));
    if (!r.ok()) return r.error();
    v = *r;
  } else {
    auto r = L.arg(n, pos, "reduction");
    if (!r.ok()) return r.error();
    v = *r;
  }
  if (v.kind == Value::Kind::kNone) return std::string("mean");
  if (v.kind != Value::Kind::kString) return Error::make("unsupported_op", "reduction");
  return v.str;
}

bool is_index_dtype(leir::DType t) {
  return t == leir::DType::kI64 || t == leir::DType::kI32 || t == leir::DType::kI16 ||
         t == leir::DType::kI8 || t == leir::DType::kU8;
}

// nll over log-probabilities read by `logp(row, class)`; with_log_softmax computes them first.
Result<Value> class_loss(Lowering& L, const GraphNode& n, bool with_log_softmax) {
  auto x = L.tensor_arg(n, 0, "input");
  auto t = L.tensor_arg(n, 1, "target");
  if (!x.ok()) return x.error();
  if (!t.ok()) return t.error();
  const Tensor X = *x, T = *t;
  if (X.rank() != 2 || T.rank() != 1 || T.shape[0] != X.shape[0] || !is_index_dtype(T.dtype))
    return L.error_unsupported("only [N,C] inputs with [N] integer class targets");
  auto w = L.arg(n, 2, "weight");
  auto ig = L.int_arg(n, 4, "ignore_index", -100);
  auto red = reduction_arg(L, n, 6);
  if (!w.ok()) return w.error();
  if (!ig.ok()) return ig.error();
  if (!red.ok()) return L.error_unsupported(red.error().message);
  if (with_log_softmax) {
    auto ls = L.number_arg(n, 7, "label_smoothing", 0);
    if (!ls.ok()) return ls.error();
    if (*ls != 0) return L.error_unsupported("label_smoothing");
  }
  std::optional<Tensor> weight;
  if (w->is_tensor()) weight = w->tensor;
  Tensor m, s;
  if (with_log_softmax) {
    m = accumulate(L, X, {1}, "max",
                   [&](const std::vector<std::string>& i) { return Lowering::access(X, i); });
    s = accumulate(L, X, {1}, "+", [&](const std::vector<std::string>& i) {
      return fmt::format("exp({}-{})", Lowering::access(X, i), Lowering::access(m, {i[0]}));
    });
  }
  const std::string ignore = Lowering::number(static_cast<double>(*ig));
  auto target = [&](const std::string& r) { return Lowering::access(T, {r}); };
  auto wt = [&](const std::string& r) {
    return weight ? Lowering::access(*weight, {target(r)}) : std::string("1");
  };
  auto loss = [&](const std::vector<std::string>& i) {
    std::string lp = Lowering::access(X, {i[0], target(i[0])});
    if (with_log_softmax)
      lp = fmt::format("({}-{}-log({}))", lp, Lowering::access(m, {i[0]}),
                       Lowering::access(s, {i[0]}));
    std::string v = weight ? fmt::format("-{}*{}", wt(i[0]), lp) : "-" + lp;
    return fmt::format("if_then_else({}!={},{},0)", target(i[0]), ignore, v);
  };
  if (*red != "mean") return reduce_loss(L, n, T.shape, *red, loss);
  // mean: divided by the total weight of the non-ignored targets.
  Tensor num = L.temp(n.type.dtype, {}), den = L.temp(n.type.dtype, {});
  L.emit({}, T.shape, [&](const Nest& nn) {
    std::string a = Lowering::access(num, {}), b = Lowering::access(den, {});
    return std::vector<std::string>{
        a + "=" + a + "+" + loss(nn.r),
        fmt::format("{}={}+if_then_else({}!={},{},0)", b, b, target(nn.r[0]), ignore, wt(nn.r[0]))};
  });
  Tensor out = L.result(n.type.dtype, {});
  L.emit({}, {}, [&](const Nest&) {
    return std::vector<std::string>{Lowering::access(out, {}) + "=" + Lowering::access(num, {}) +
                                    "/" + Lowering::access(den, {})};
  });
  return Value::of(out);
}

// Two same-shaped operands combined pointwise by `f(a, b)`, then reduced.
Result<Value> pair_loss(
    Lowering& L, const GraphNode& n, size_t red_pos,
    const std::function<std::string(const std::string&, const std::string&)>& f) {
  auto a = L.tensor_arg(n, 0, "input");
  auto b = L.tensor_arg(n, 1, "target");
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  if (a->shape != b->shape) return L.error_unsupported("loss operands of different shapes");
  auto red = reduction_arg(L, n, red_pos);
  if (!red.ok()) return L.error_unsupported(red.error().message);
  const Tensor A = *a, Bt = *b;
  return reduce_loss(L, n, A.shape, *red, [&](const std::vector<std::string>& i) {
    return f(Lowering::access(A, i), Lowering::access(Bt, i));
  });
}

Result<Value> smooth_l1(Lowering& L, const GraphNode& n) {
  auto beta = L.number_arg(n, 5, "beta", 1.0);
  if (!beta.ok()) return beta.error();
  const double bt = *beta;
  return pair_loss(L, n, 4, [bt](const std::string& a, const std::string& b) {
    std::string z = fmt::format("abs({}-{})", a, b);
    if (bt == 0) return z;
    return fmt::format("if_then_else({}<{},0.5*{}*{}/{},{}-{})", z, Lowering::number(bt), z, z,
                       Lowering::number(bt), z, Lowering::number(0.5 * bt));
  });
}

Result<Value> huber(Lowering& L, const GraphNode& n) {
  auto delta = L.number_arg(n, 3, "delta", 1.0);
  if (!delta.ok()) return delta.error();
  const double dl = *delta;
  return pair_loss(L, n, 2, [dl](const std::string& a, const std::string& b) {
    std::string z = fmt::format("abs({}-{})", a, b);
    return fmt::format("if_then_else({}<{},0.5*{}*{},{}*({}-{}))", z, Lowering::number(dl), z, z,
                       Lowering::number(dl), z, Lowering::number(0.5 * dl));
  });
}

Result<Value> kl_div(Lowering& L, const GraphNode& n) {
  auto lt = L.arg(n, 5, "log_target");
  if (!lt.ok()) return lt.error();
  const bool log_target = lt->is_number() && lt->number != 0;
  return pair_loss(L, n, 4, [log_target](const std::string& x, const std::string& t) {
    if (log_target) return fmt::format("exp({})*({}-{})", t, t, x);
    // torch: xlogy(t, t) - t*x, where xlogy(0, ·) = 0.
    return fmt::format("if_then_else({}==0,0,{}*log({}))-{}*{}", t, t, t, t, x);
  });
}

Result<Value> cosine_similarity(Lowering& L, const GraphNode& n) {
  auto a = L.tensor_arg(n, 0, "x1");
  auto b = L.tensor_arg(n, 1, "x2");
  auto dim = L.arg(n, 2, "dim");
  auto eps = L.number_arg(n, 3, "eps", 1e-8);
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  if (!dim.ok()) return dim.error();
  if (!eps.ok()) return eps.error();
  if (a->shape != b->shape) return L.error_unsupported("operands of different shapes");
  Value d = dim->kind == Value::Kind::kNone ? Value::num(1, true) : *dim;
  auto red = reduce_dims(d, a->rank());
  if (!red.ok()) return red.error();
  const Tensor A = *a, Bt = *b;
  auto prod = [&](const Tensor& u, const Tensor& v) {
    return accumulate(L, A, *red, "+", [&](const std::vector<std::string>& i) {
      return Lowering::access(u, i) + "*" + Lowering::access(v, i);
    });
  };
  Tensor w12 = prod(A, Bt), w1 = prod(A, A), w2 = prod(Bt, Bt);
  Tensor out = L.result(n.type.dtype, n.type.shape);
  const std::string e = Lowering::number(*eps);
  L.emit_map(out, [&](const Nest& nn) {
    return fmt::format("{}/(max(sqrt({}),{})*max(sqrt({}),{}))", Lowering::access(w12, nn.s),
                       Lowering::access(w1, nn.s), e, Lowering::access(w2, nn.s), e);
  });
  return Value::of(out);
}

Result<Value> triplet(Lowering& L, const GraphNode& n, double margin, double p, double eps,
                      bool swap, const std::string& reduction) {
  std::vector<Tensor> t;
  for (size_t i = 0; i < 3; ++i) {
    auto v = L.tensor_arg(n, i, i == 0 ? "anchor" : i == 1 ? "positive" : "negative");
    if (!v.ok()) return v.error();
    t.push_back(*v);
  }
  if (t[0].shape != t[1].shape || t[0].shape != t[2].shape || t[0].rank() < 1)
    return L.error_unsupported("triplet operands must have one shape");
  if (p <= 0) return L.error_unsupported("triplet margin loss with p <= 0");
  const int last = t[0].rank() - 1;
  const std::string e = Lowering::number(eps);
  // torch.pairwise_distance: ||u - v + eps||_p over the last dim.
  auto dist = [&](const Tensor& u, const Tensor& v) {
    Tensor acc = accumulate(L, u, {last}, "+", [&](const std::vector<std::string>& i) {
      std::string diff =
          fmt::format("({}-{}+{})", Lowering::access(u, i), Lowering::access(v, i), e);
      if (p == 2) return diff + "*" + diff;
      if (p == 1) return "abs" + diff;
      return fmt::format("abs{}**{}", diff, Lowering::number(p));
    });
    return acc;
  };
  auto root = [&](const std::string& s) {
    if (p == 2) return "sqrt(" + s + ")";
    if (p == 1) return s;
    return fmt::format("{}**{}", s, Lowering::number(1 / p));
  };
  Tensor dap = dist(t[0], t[1]), dan = dist(t[0], t[2]);
  std::optional<Tensor> dpn;
  if (swap) dpn = dist(t[1], t[2]);
  std::vector<int64_t> shape(t[0].shape.begin(), t[0].shape.end() - 1);
  return reduce_loss(L, n, shape, reduction, [&](const std::vector<std::string>& i) {
    std::string an = root(Lowering::access(dan, i));
    if (dpn) an = fmt::format("min({},{})", an, root(Lowering::access(*dpn, i)));
    return fmt::format("max({}-{}+{},0)", root(Lowering::access(dap, i)), an,
                       Lowering::number(margin));
  });
}

Result<Value> triplet_module(Lowering& L, const GraphNode& n) {
  auto num = [&](const char* k, double d) {
    auto j = L.hparam(k);
    return j.is_number() ? j.get<double>() : d;
  };
  auto sw = L.hparam("swap");
  auto red = reduction_arg(L, n, 0);
  if (!red.ok()) return L.error_unsupported(red.error().message);
  return triplet(L, n, num("margin", 1), num("p", 2), num("eps", 1e-6),
                 sw.is_boolean() && sw.get<bool>(), *red);
}

Result<Value> triplet_fn(Lowering& L, const GraphNode& n) {
  auto margin = L.number_arg(n, 3, "margin", 1);
  auto p = L.number_arg(n, 4, "p", 2);
  auto eps = L.number_arg(n, 5, "eps", 1e-6);
  auto sw = L.arg(n, 6, "swap");
  auto red = reduction_arg(L, n, 9);
  if (!margin.ok()) return margin.error();
  if (!p.ok()) return p.error();
  if (!eps.ok()) return eps.error();
  if (!sw.ok()) return sw.error();
  if (!red.ok()) return L.error_unsupported(red.error().message);
  return triplet(L, n, *margin, *p, *eps, sw->is_number() && sw->number != 0, *red);
}

}  // namespace

void register_loss(OpTable& t) {
  t["cross_entropy"] = [](Lowering& L, const GraphNode& n) { return class_loss(L, n, true); };
  t["nll_loss"] = [](Lowering& L, const GraphNode& n) { return class_loss(L, n, false); };
  t["mse_loss"] = [](Lowering& L, const GraphNode& n) {
    return pair_loss(L, n, 4, [](const std::string& a, const std::string& b) {
      return fmt::format("({}-{})**2", a, b);
    });
  };
  t["l1_loss"] = [](Lowering& L, const GraphNode& n) {
    return pair_loss(L, n, 4, [](const std::string& a, const std::string& b) {
      return fmt::format("abs({}-{})", a, b);
    });
  };
  t["smooth_l1_loss"] = smooth_l1;
  t["huber_loss"] = huber;
  t["kl_div"] = kl_div;
  t["cosine_similarity"] = cosine_similarity;
  t["module:TripletMarginLoss"] = triplet_module;
  t["triplet_margin_loss"] = triplet_fn;
}

}  // namespace steptp::frontend
