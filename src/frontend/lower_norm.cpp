// frontend/lower_norm.cpp — norm ops (registration point; see docs/frontend.md for coverage).
#include "frontend/lowering.h"

namespace steptp::frontend {

void register_norm(OpTable& t) { (void)t; }

}  // namespace steptp::frontend
