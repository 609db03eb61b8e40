// frontend/lower_conv.cpp — conv ops (registration point; see docs/frontend.md for coverage).
#include "frontend/lowering.h"

namespace steptp::frontend {

void register_conv(OpTable& t) { (void)t; }

}  // namespace steptp::frontend
