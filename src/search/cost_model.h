// search/cost_model.h — the static cost estimate under the name search has always used. It lives
// in module cost (cost/cost_model.h) so that the chain of thought, below search, can cite it.
#pragma once

#include "cost/cost_model.h"

namespace steptp::search {

using cost::CostModelOptions;
using cost::estimated_cost;

}  // namespace steptp::search
