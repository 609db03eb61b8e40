// leir/tensor_table.h — every tensor a program touches: the declared ones (role, dtype, shape
// from the declarations) and the intermediates (dtype and scope from their superscript, shape
// inferred as the exact bounding box of all their writes, by interval arithmetic over the
// index expressions). The order is declarations first, then intermediates by first appearance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::leir {

struct TensorInfo {
  std::string name;
  TensorRole role = TensorRole::kIntermediate;
  DType dtype = DType::kF64;
  Scope scope = Scope::kGlobal;
  std::vector<int64_t> shape;
};

struct TensorTable {
  std::vector<TensorInfo> tensors;
  const TensorInfo* find(std::string_view name) const;
};

// Errors ("ill_formed"): an intermediate with conflicting dtype/rank among its references, an
// intermediate that is read but never written, an index whose interval is unbounded or negative
// on a write (a write below 0 is an out-of-bounds write, reported with its statement), shapes
// whose element count overflows.
Result<TensorTable> infer_tensor_table(const Program& p);

}  // namespace steptp::leir
