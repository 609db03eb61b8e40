// leir/tensor_data.h — a tensor's values as the engines exchange them: name, dtype, shape and
// row-major values held in double (already rounded to the dtype: an f16 tensor holds only
// f16-representable values). Engines with native storage convert at their boundary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "leir/ir.h"

namespace steptp::leir {

struct TensorData {
  std::string name;
  DType dtype = DType::kF64;
  std::vector<int64_t> shape;
  std::vector<double> values;  // element_count(shape) values, row-major
};

// Rounds a double to the nearest value representable in `t` (round-to-nearest-even for f16,
// bf16 and f32; truncation toward zero then wrap-around for integer types, as C casts do for
// in-range values; 0/1 for bool). f64 is returned unchanged.
double round_to_dtype(double v, DType t);

}  // namespace steptp::leir
