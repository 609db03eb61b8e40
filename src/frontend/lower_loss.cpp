// frontend/lower_loss.cpp — loss ops (registration point; see docs/frontend.md for coverage).
#include "frontend/lowering.h"

namespace steptp::frontend {

void register_loss(OpTable& t) { (void)t; }

}  // namespace steptp::frontend
