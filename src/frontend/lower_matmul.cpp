// frontend/lower_matmul.cpp — matmul / bmm / mm / linear / einsum as one accumulation nest
// (output dims spatial, the contracted dim as reduction), plus a second nest for a bias.
//
//   matmul(A[512,1024], C[1024,768]) →
//   B^{512}_{tx=0}L^{768}_{a=0}L^{1024}_{c=0}[D_{tx,a}=D_{tx,a}+A_{tx,c}*C_{c,a};];
#include <fmt/format.h>

#include <map>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

// Indices of `t`'s leading batch dims, right-aligned against the output's batch dims.
std::vector<std::string> batch_index(const Tensor& t, int t_batch, const std::vector<int64_t>& out,
                                     const std::vector<std::string>& vars, int out_batch) {
  std::vector<std::string> idx;
  for (int j = 0; j < t_batch; ++j) {
    int o = out_batch - t_batch + j;
    idx.push_back(t.shape[j] == 1 && out[o] != 1 ? "0" : vars[o]);
  }
  return idx;
}

Result<Value> lower_matmul(Lowering& L, const GraphNode& n) {
  auto a = L.tensor_arg(n, 0, "input");
  auto b = L.tensor_arg(n, 1, "other");
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  const Tensor A = *a, Bt = *b;
  if (A.rank() == 0 || Bt.rank() == 0) return L.error_unsupported("matmul of a 0-d tensor");
  const int64_t K = A.shape.back();
  const int64_t Kb = Bt.rank() == 1 ? Bt.shape[0] : Bt.shape[Bt.rank() - 2];
  if (K != Kb) return L.error_unsupported("contracted dimensions differ");
  const std::vector<int64_t> out_shape = n.type.shape;
  const int a_batch = std::max(0, A.rank() - 2), b_batch = std::max(0, Bt.rank() - 2);
  const int out_batch =
      static_cast<int>(out_shape.size()) - (A.rank() >= 2 ? 1 : 0) - (Bt.rank() >= 2 ? 1 : 0);
  if (out_batch < std::max(a_batch, b_batch)) return L.error_unsupported("batch shape mismatch");
  Tensor out = L.result(n.type.dtype, out_shape);
  L.emit(out_shape, {K}, [&](const Nest& nest) {
    const std::string& k = nest.r[0];
    std::vector<std::string> ia = batch_index(A, a_batch, out_shape, nest.s, out_batch);
    std::vector<std::string> ib = batch_index(Bt, b_batch, out_shape, nest.s, out_batch);
    int pos = out_batch;
    if (A.rank() >= 2) ia.push_back(nest.s[pos++]);
    ia.push_back(k);
    ib.push_back(k);
    if (Bt.rank() >= 2) ib.push_back(nest.s[pos++]);
    std::string o = Lowering::access(out, nest.s);
    return std::vector<std::string>{o + "=" + o + "+" + Lowering::access(A, ia) + "*" +
                                    Lowering::access(Bt, ib)};
  });
  return Value::of(out);
}

// y = x·Wᵀ (+ b): the weight is [out, in]; x may have any number of leading dims.
Result<Value> linear(Lowering& L, const GraphNode& n, const Tensor& x, const Tensor& w,
                     const std::optional<Tensor>& bias) {
  if (w.rank() != 2 || x.rank() < 1 || x.shape.back() != w.shape[1])
    return L.error_unsupported("linear weight shape does not match the input");
  const std::vector<int64_t> out_shape = n.type.shape;
  Tensor out = L.result(n.type.dtype, out_shape);
  L.emit(out_shape, {w.shape[1]}, [&](const Nest& nest) {
    std::vector<std::string> ix(nest.s.begin(), nest.s.end() - 1);
    ix.push_back(nest.r[0]);
    std::string o = Lowering::access(out, nest.s);
    return std::vector<std::string>{o + "=" + o + "+" + Lowering::access(x, ix) + "*" +
                                    Lowering::access(w, {nest.s.back(), nest.r[0]})};
  });
  if (bias) {
    L.emit(out_shape, {}, [&](const Nest& nest) {
      std::string o = Lowering::access(out, nest.s);
      return std::vector<std::string>{o + "=" + o + "+" + Lowering::access(*bias, {nest.s.back()})};
    });
  }
  return Value::of(out);
}

Result<Value> lower_linear_fn(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  auto w = L.tensor_arg(n, 1, "weight");
  if (!x.ok()) return x.error();
  if (!w.ok()) return w.error();
  std::optional<Tensor> bias;
  if (L.has_arg(n, 2, "bias")) {
    auto b = L.arg(n, 2, "bias");
    if (!b.ok()) return b.error();
    if (b->is_tensor()) bias = b->tensor;
  }
  return linear(L, n, *x, *w, bias);
}

Result<Value> lower_linear_module(Lowering& L, const GraphNode& n) {
  auto x = L.tensor_arg(n, 0, "input");
  auto w = L.module_param("weight");
  if (!x.ok()) return x.error();
  if (!w.ok()) return w.error();
  std::optional<Tensor> bias;
  if (L.has_module_param("bias")) bias = *L.module_param("bias");
  return linear(L, n, *x, *w, bias);
}

Result<Value> lower_einsum(Lowering& L, const GraphNode& n) {
  auto eq = L.arg(n, 0, "equation");
  if (!eq.ok()) return eq.error();
  if (eq->kind != Value::Kind::kString) return L.error_unsupported("equation is not a string");
  std::string e;
  for (char c : eq->str)
    if (c != ' ') e += c;
  const size_t arrow = e.find("->");
  if (arrow == std::string::npos || e.find("...") != std::string::npos)
    return L.error_unsupported("only explicit '->' equations without '...' are supported");
  std::vector<std::string> terms;
  std::string lhs = e.substr(0, arrow), rhs = e.substr(arrow + 2);
  for (size_t s = 0;;) {
    size_t c = lhs.find(',', s);
    terms.push_back(lhs.substr(s, c == std::string::npos ? std::string::npos : c - s));
    if (c == std::string::npos) break;
    s = c + 1;
  }
  std::vector<Tensor> ops;
  for (size_t i = 0; i < terms.size(); ++i) {
    Value v;
    if (n.args.size() == 2 && n.args[1].is_array()) {
      auto lst = L.eval(n.args[1]);
      if (!lst.ok()) return lst.error();
      if (i >= lst->items.size() || !lst->items[i].is_tensor())
        return L.error_unsupported("operand is not a tensor");
      v = lst->items[i];
    } else {
      auto t = L.arg(n, i + 1, nullptr);
      if (!t.ok()) return t.error();
      v = *t;
    }
    if (!v.is_tensor() || v.tensor.rank() != static_cast<int>(terms[i].size()))
      return L.error_unsupported("operand rank does not match its subscripts");
    ops.push_back(v.tensor);
  }
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t d = 0; d < terms[i].size(); ++d) extent[terms[i][d]] = ops[i].shape[d];
  std::vector<char> red;
  for (const auto& [c, x] : extent)
    if (rhs.find(c) == std::string::npos) red.push_back(c);
  // Contracted letters in order of first appearance, as a reader expects.
  std::vector<char> red_ordered;
  for (const std::string& t : terms)
    for (char c : t)
      if (std::find(red.begin(), red.end(), c) != red.end() &&
          std::find(red_ordered.begin(), red_ordered.end(), c) == red_ordered.end())
        red_ordered.push_back(c);
  std::vector<int64_t> red_ext;
  for (char c : red_ordered) red_ext.push_back(extent[c]);
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit(out.shape, red_ext, [&](const Nest& nest) {
    std::map<char, std::string> var;
    for (size_t i = 0; i < rhs.size(); ++i) var[rhs[i]] = nest.s[i];
    for (size_t i = 0; i < red_ordered.size(); ++i) var[red_ordered[i]] = nest.r[i];
    std::string prod;
    for (size_t i = 0; i < ops.size(); ++i) {
      std::vector<std::string> idx;
      for (char c : terms[i]) idx.push_back(var[c]);
      prod += (i ? "*" : "") + Lowering::access(ops[i], idx);
    }
    std::string o = Lowering::access(out, nest.s);
    return std::vector<std::string>{o + "=" + o + "+" + prod};
  });
  return Value::of(out);
}

}  // namespace

void register_matmul(OpTable& t) {
  t["matmul"] = lower_matmul;
  t["bmm"] = lower_matmul;
  t["mm"] = lower_matmul;
  t["mv"] = lower_matmul;
  t["linear"] = lower_linear_fn;
  t["module:Linear"] = lower_linear_module;
  t["einsum"] = lower_einsum;
}

}  // namespace steptp::frontend
