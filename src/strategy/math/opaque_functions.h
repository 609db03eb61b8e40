// strategy/math/opaque_functions.h — GiNaC functions standing for LEIR's max, min, abs and erf.
//
// They have no evaluation rules on purpose: GiNaC must carry them through rewrites untouched
// (its own abs() would simplify under assumptions LEIR values do not meet).
#pragma once

#include <ginac/ginac.h>

namespace steptp::strategy::math {

DECLARE_FUNCTION_2P(leir_max)
DECLARE_FUNCTION_2P(leir_min)
DECLARE_FUNCTION_1P(leir_abs)
DECLARE_FUNCTION_1P(leir_erf)

}  // namespace steptp::strategy::math
