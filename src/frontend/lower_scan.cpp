// frontend/lower_scan.cpp — scan ops (registration point; see docs/frontend.md for coverage).
#include "frontend/lowering.h"

namespace steptp::frontend {

void register_scan(OpTable& t) { (void)t; }

}  // namespace steptp::frontend
