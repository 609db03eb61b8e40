// llm/registered_names.h — the strategy names a model's answer may use: the reference's 44
// names, as the registry lists them. Kept apart from answer_parser.h, which takes the names
// injected so that it does not depend on which strategies are registered.
#pragma once

#include "llm/answer_parser.h"

namespace steptp::llm {

StrategyNames registered_strategy_names();

}  // namespace steptp::llm
