// frontend/lower_scan.cpp — cumsum and cumprod along one dim (torch, method), as the
// reference's quadratic masked reduction; reverse and exclusive variants arrive as flip /
// slicing / cat around it and need nothing here.
//
//   cumsum(A[16,64], dim=1) → B^{16}_{tx=0}L^{64}_{a=0}L^{64}_{c=0}
//                             [C_{tx,a}=C_{tx,a}+if_then_else(c<=a,A_{tx,c},0);];
#include <fmt/format.h>

#include "frontend/lowering.h"

namespace steptp::frontend {
namespace {

Result<Value> scan(Lowering& L, const GraphNode& n, const std::string& combine,
                   const std::string& identity) {
  auto x = L.tensor_arg(n, 0, "input");
  auto dim = L.arg(n, 1, "dim");
  if (!x.ok()) return x.error();
  if (!dim.ok()) return dim.error();
  if (dim->kind == Value::Kind::kNone) return L.error_unsupported("a scan needs a dim");
  const Tensor X = *x;
  if (X.rank() == 0) {
    Tensor out = L.result(n.type.dtype, {});
    L.emit_map(out, [&](const Nest&) { return Lowering::access(X, {}); });
    return Value::of(out);
  }
  auto red = reduce_dims(*dim, X.rank());
  if (!red.ok()) return red.error();
  const int d = (*red)[0];
  Tensor out = L.result(n.type.dtype, X.shape);
  L.emit(
      X.shape, {X.shape[d]},
      [&](const Nest& nn) {
        std::vector<std::string> xi = nn.s;
        xi[d] = nn.r[0];
        std::string o = Lowering::access(out, nn.s);
        return std::vector<std::string>{fmt::format("{}={}{}if_then_else({}<={},{},{})", o, o,
                                                    combine, nn.r[0], nn.s[d],
                                                    Lowering::access(X, xi), identity)};
      },
      d == 0 ? 1 : 0);
  return Value::of(out);
}

}  // namespace

void register_scan(OpTable& t) {
  t["cumsum"] = [](Lowering& L, const GraphNode& n) { return scan(L, n, "+", "0"); };
  t["cumprod"] = [](Lowering& L, const GraphNode& n) { return scan(L, n, "*", "1"); };
}

}  // namespace steptp::frontend
