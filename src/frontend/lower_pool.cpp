// frontend/lower_pool.cpp — pool ops (registration point; see docs/frontend.md for coverage).
#include "frontend/lowering.h"

namespace steptp::frontend {

void register_pool(OpTable& t) { (void)t; }

}  // namespace steptp::frontend
