// strategy/math/opaque_functions.cpp — registration of the opaque LEIR functions for GiNaC.
#include "strategy/math/opaque_functions.h"

namespace steptp::strategy::math {

REGISTER_FUNCTION(leir_max, dummy())
REGISTER_FUNCTION(leir_min, dummy())
REGISTER_FUNCTION(leir_abs, dummy())
REGISTER_FUNCTION(leir_erf, dummy())

}  // namespace steptp::strategy::math
