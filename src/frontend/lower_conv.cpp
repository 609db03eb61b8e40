// frontend/lower_conv.cpp — convolution and transposed convolution, 1-D to 3-D, with stride,
// zero padding, dilation, groups (depthwise included), output_padding and bias; module and
// functional forms. padding_mode other than "zeros" and string paddings are unsupported.
//
//   Conv2d, padding 1 → [E_{tx,a,c,d}=if_then_else(1<=c<9&1<=d<9,A_{tx,a,c-1,d-1},0)]
//                        [C_{tx,a,c,d}=C_{tx,a,c,d}+D_{a,f,g,h}*E_{tx,f,c+g,d+h}] (+ bias nest)
//   ConvTranspose (gather form) → C+=if_then_else((c+p-g*d)%s==0&0<=(c+p-g*d)//s<H,
//   A_{..}*D_{..},0)
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

std::string plus_term(const std::string& base, int64_t k) {
  if (k == 0) return base;
  return k > 0 ? fmt::format("{}+{}", base, k) : fmt::format("{}-{}", base, -k);
}

}  // namespace

Tensor pad_input(Lowering& L, const Tensor& x, const std::vector<int64_t>& pad_lo,
                 const std::vector<int64_t>& padded_extent, const std::string& fill) {
  const int d = static_cast<int>(pad_lo.size());
  const int lead = x.rank() - d;
  bool needed = false;
  for (int i = 0; i < d; ++i)
    if (pad_lo[i] != 0 || padded_extent[i] != x.shape[lead + i]) needed = true;
  if (!needed) return x;
  std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + lead);
  shape.insert(shape.end(), padded_extent.begin(), padded_extent.end());
  Tensor p = L.temp(x.dtype, shape);
  L.emit_map(p, [&](const Nest& nn) {
    std::vector<std::string> conds, idx(nn.s.begin(), nn.s.begin() + lead);
    for (int i = 0; i < d; ++i) {
      const std::string& v = nn.s[lead + i];
      const int64_t lo = pad_lo[i], hi = pad_lo[i] + x.shape[lead + i];
      if (lo != 0 || hi != padded_extent[i]) conds.push_back(fmt::format("{}<={}<{}", lo, v, hi));
      idx.push_back(plus_term(v, -lo));
    }
    std::string cond;
    for (size_t i = 0; i < conds.size(); ++i) cond += (i ? "&" : "") + conds[i];
    return fmt::format("if_then_else({},{},{})", cond, Lowering::access(x, idx), fill);
  });
  return p;
}

namespace {

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 1;
  std::optional<Tensor> bias;
};

// An int or per-dim list widened to `d` entries.
Result<std::vector<int64_t>> widen(const Value& v, int d, int64_t dflt, const char* what) {
  if (v.kind == Value::Kind::kNone) return std::vector<int64_t>(d, dflt);
  if (v.kind == Value::Kind::kNumber && v.integral)
    return std::vector<int64_t>(d, static_cast<int64_t>(v.number));
  if (v.kind == Value::Kind::kInts && static_cast<int>(v.ints.size()) == d) return v.ints;
  if (v.kind == Value::Kind::kInts && v.ints.size() == 1) return std::vector<int64_t>(d, v.ints[0]);
  return Error::make("unsupported_op", fmt::format("conv {} must be an int or {} ints", what, d));
}

std::string scaled(const std::string& v, int64_t s) {
  return s == 1 ? v : fmt::format("{}*{}", v, s);
}

// The input channel read for output channel `co` and in-group input channel `f`.
std::string in_channel(const std::string& co, const std::string& f, int64_t cin_g, int64_t cout_g,
                       int64_t groups) {
  if (groups == 1) return f;
  std::string grp = cout_g == 1 ? co : fmt::format("{}//{}", co, cout_g);
  if (cin_g == 1) return grp;
  return fmt::format("{}*{}+{}", grp, cin_g, f);
}

void add_bias(Lowering& L, const Tensor& out, const Tensor& bias) {
  L.emit(out.shape, {}, [&](const Nest& nn) {
    std::string o = Lowering::access(out, nn.s);
    return std::vector<std::string>{o + "=" + o + "+" + Lowering::access(bias, {nn.s[1]})};
  });
}

Result<Value> conv(Lowering& L, const GraphNode& n, const Tensor& x, const Tensor& w,
                   const ConvParams& cp, int d) {
  if (x.rank() != d + 2 || w.rank() != d + 2 || n.type.shape.size() != x.shape.size())
    return L.error_unsupported("conv expects a batched input [N,C,...] and a matching weight");
  const int64_t cin = x.shape[1], cout = w.shape[0], g = cp.groups;
  if (g <= 0 || cin % g != 0 || cout % g != 0 || w.shape[1] != cin / g)
    return L.error_unsupported("conv weight does not match the input channels and groups");
  const int64_t cin_g = cin / g, cout_g = cout / g;
  std::vector<int64_t> padded;
  for (int i = 0; i < d; ++i) padded.push_back(x.shape[2 + i] + 2 * cp.padding[i]);
  Tensor src = pad_input(L, x, cp.padding, padded, "0");
  std::vector<int64_t> red{cin_g};
  for (int i = 0; i < d; ++i) red.push_back(w.shape[2 + i]);
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit(out.shape, red, [&](const Nest& nn) {
    std::vector<std::string> xi{nn.s[0], in_channel(nn.s[1], nn.r[0], cin_g, cout_g, g)};
    std::vector<std::string> wi{nn.s[1], nn.r[0]};
    for (int i = 0; i < d; ++i) {
      xi.push_back(scaled(nn.s[2 + i], cp.stride[i]) + "+" + scaled(nn.r[1 + i], cp.dilation[i]));
      wi.push_back(nn.r[1 + i]);
    }
    std::string o = Lowering::access(out, nn.s);
    return std::vector<std::string>{o + "=" + o + "+" + Lowering::access(w, wi) + "*" +
                                    Lowering::access(src, xi)};
  });
  if (cp.bias) add_bias(L, out, *cp.bias);
  return Value::of(out);
}

Result<Value> conv_transpose(Lowering& L, const GraphNode& n, const Tensor& x, const Tensor& w,
                             const ConvParams& cp, int d) {
  if (x.rank() != d + 2 || w.rank() != d + 2 || n.type.shape.size() != x.shape.size())
    return L.error_unsupported("conv_transpose expects a batched input [N,C,...]");
  const int64_t cin = x.shape[1], g = cp.groups;
  if (g <= 0 || w.shape[0] != cin || cin % g != 0)
    return L.error_unsupported("conv_transpose weight does not match the input channels");
  const int64_t cin_g = cin / g, cout_g = w.shape[1];
  std::vector<int64_t> red{cin_g};
  for (int i = 0; i < d; ++i) red.push_back(w.shape[2 + i]);
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit(out.shape, red, [&](const Nest& nn) {
    const std::string& co = nn.s[1];
    std::vector<std::string> xi{nn.s[0], in_channel(co, nn.r[0], cin_g, cout_g, g)};
    std::vector<std::string> wi{xi[1], g == 1 ? co : fmt::format("{}%{}", co, cout_g)};
    std::vector<std::string> conds;
    for (int i = 0; i < d; ++i) {
      // Output position o receives input position i where o = i*s - p + k*dil.
      std::string t =
          plus_term(nn.s[2 + i], cp.padding[i]) + "-" + scaled(nn.r[1 + i], cp.dilation[i]);
      const int64_t s = cp.stride[i], h = x.shape[2 + i];
      if (s == 1) {
        conds.push_back(fmt::format("0<={}<{}", t, h));
        xi.push_back(t);
      } else {
        conds.push_back(fmt::format("({})%{}==0", t, s));
        conds.push_back(fmt::format("0<=({})//{}<{}", t, s, h));
        xi.push_back(fmt::format("({})//{}", t, s));
      }
      wi.push_back(nn.r[1 + i]);
    }
    std::string cond;
    for (size_t i = 0; i < conds.size(); ++i) cond += (i ? "&" : "") + conds[i];
    std::string o = Lowering::access(out, nn.s);
    return std::vector<std::string>{fmt::format("{}={}+if_then_else({},{}*{},0)", o, o, cond,
                                                Lowering::access(x, xi), Lowering::access(w, wi))};
  });
  if (cp.bias) add_bias(L, out, *cp.bias);
  return Value::of(out);
}

Result<ConvParams> module_params(Lowering& L, int d) {
  ConvParams cp;
  auto mode = L.hparam("padding_mode");
  if (mode.is_string() && mode.get<std::string>() != "zeros")
    return Error::make("unsupported_op", "conv padding_mode other than 'zeros'");
  struct F {
    const char* key;
    std::vector<int64_t>* out;
    int64_t dflt;
  };
  for (const F& f : {F{"stride", &cp.stride, 1}, F{"padding", &cp.padding, 0},
                     F{"dilation", &cp.dilation, 1}, F{"output_padding", &cp.output_padding, 0}}) {
    auto v = L.eval(L.hparam(f.key));
    if (!v.ok()) return v.error();
    if (v->kind == Value::Kind::kString)
      return Error::make("unsupported_op", fmt::format("conv {} '{}'", f.key, v->str));
    auto w = widen(*v, d, f.dflt, f.key);
    if (!w.ok()) return w.error();
    *f.out = *w;
  }
  auto g = L.hparam("groups");
  cp.groups = g.is_number_integer() ? g.get<int64_t>() : 1;
  if (L.has_module_param("bias")) cp.bias = *L.module_param("bias");
  return cp;
}

Handler conv_module(int d, bool transposed) {
  return [d, transposed](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto x = L.tensor_arg(n, 0, "input");
    if (!x.ok()) return x.error();
    auto w = L.module_param("weight");
    if (!w.ok()) return w.error();
    auto cp = module_params(L, d);
    if (!cp.ok()) return L.error_unsupported(cp.error().message);
    return transposed ? conv_transpose(L, n, *x, *w, *cp, d) : conv(L, n, *x, *w, *cp, d);
  };
}

// F.convNd(input, weight, bias, stride, padding, dilation, groups) and
// F.conv_transposeNd(input, weight, bias, stride, padding, output_padding, groups, dilation).
Handler conv_function(int d, bool transposed) {
  return [d, transposed](Lowering& L, const GraphNode& n) -> Result<Value> {
    auto x = L.tensor_arg(n, 0, "input");
    auto w = L.tensor_arg(n, 1, "weight");
    if (!x.ok()) return x.error();
    if (!w.ok()) return w.error();
    ConvParams cp;
    auto b = L.arg(n, 2, "bias");
    if (!b.ok()) return b.error();
    if (b->is_tensor()) cp.bias = b->tensor;
    struct F {
      size_t pos;
      const char* key;
      std::vector<int64_t>* out;
      int64_t dflt;
    };
    std::vector<F> fs{{3, "stride", &cp.stride, 1}, {4, "padding", &cp.padding, 0}};
    if (transposed) {
      fs.push_back({5, "output_padding", &cp.output_padding, 0});
      fs.push_back({7, "dilation", &cp.dilation, 1});
    } else {
      fs.push_back({5, "dilation", &cp.dilation, 1});
      cp.output_padding.assign(d, 0);
    }
    for (const F& f : fs) {
      auto v = L.arg(n, f.pos, f.key);
      if (!v.ok()) return v.error();
      if (v->kind == Value::Kind::kString)
        return L.error_unsupported(fmt::format("{} '{}'", f.key, v->str));
      auto wv = widen(*v, d, f.dflt, f.key);
      if (!wv.ok()) return L.error_unsupported(wv.error().message);
      *f.out = *wv;
    }
    auto g = L.int_arg(n, 6, "groups", 1);
    if (!g.ok()) return g.error();
    cp.groups = *g;
    return transposed ? conv_transpose(L, n, *x, *w, cp, d) : conv(L, n, *x, *w, cp, d);
  };
}

}  // namespace

void register_conv(OpTable& t) {
  for (int d = 1; d <= 3; ++d) {
    t[fmt::format("module:Conv{}d", d)] = conv_module(d, false);
    t[fmt::format("module:ConvTranspose{}d", d)] = conv_module(d, true);
    t[fmt::format("conv{}d", d)] = conv_function(d, false);
    t[fmt::format("conv_transpose{}d", d)] = conv_function(d, true);
  }
}

}  // namespace steptp::frontend
