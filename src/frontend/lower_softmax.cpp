// frontend/lower_softmax.cpp — softmax and log_softmax along one dim, max-shifted: three nests
// (max, sum of exp, normalise), functional, method and module forms.
//
//   softmax(A[16,64], dim=1) → [D_{tx}=max(D_{tx},A_{tx,a})] [E_{tx}=E_{tx}+exp(A_{tx,a}-D_{tx})]
//                              [C_{tx,a}=exp(A_{tx,a}-D_{tx})/E_{tx}]
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

Result<Value> softmax(Lowering& L, const GraphNode& n, bool log) {
  auto x = L.tensor_arg(n, 0, "input");
  if (!x.ok()) return x.error();
  Value dim;
  if (n.op == "call_module") {
    auto v = L.eval(L.hparam("dim"));
    if (!v.ok()) return v.error();
    dim = *v;
  } else {
    auto v = L.arg(n, 1, "dim");
    if (!v.ok()) return v.error();
    dim = *v;
  }
  if (dim.kind == Value::Kind::kNone) return L.error_unsupported("softmax without a dim");
  auto red = reduce_dims(dim, x->rank());
  if (!red.ok()) return red.error();
  const Tensor X = *x;
  const std::vector<int> r = *red;
  auto kept = [&](const std::vector<std::string>& idx) {
    std::vector<std::string> k;
    for (size_t d = 0; d < idx.size(); ++d)
      if (r.empty() || static_cast<int>(d) != r[0]) k.push_back(idx[d]);
    return k;
  };
  Tensor m = accumulate(L, X, r, "max",
                        [&](const std::vector<std::string>& i) { return Lowering::access(X, i); });
  Tensor s = accumulate(L, X, r, "+", [&](const std::vector<std::string>& i) {
    return fmt::format("exp({}-{})", Lowering::access(X, i), Lowering::access(m, kept(i)));
  });
  Tensor out = L.result(n.type.dtype, n.type.shape);
  L.emit_map(out, [&](const Nest& nn) {
    std::string xi = Lowering::access(X, nn.s);
    std::string mi = Lowering::access(m, kept(nn.s)), si = Lowering::access(s, kept(nn.s));
    if (log) return fmt::format("{}-{}-log({})", xi, mi, si);
    return fmt::format("exp({}-{})/{}", xi, mi, si);
  });
  return Value::of(out);
}

}  // namespace

void register_softmax(OpTable& t) {
  t["softmax"] = [](Lowering& L, const GraphNode& n) { return softmax(L, n, false); };
  t["log_softmax"] = [](Lowering& L, const GraphNode& n) { return softmax(L, n, true); };
  t["module:Softmax"] = [](Lowering& L, const GraphNode& n) { return softmax(L, n, false); };
  t["module:LogSoftmax"] = [](Lowering& L, const GraphNode& n) { return softmax(L, n, true); };
}

}  // namespace steptp::frontend
