// llm/registered_names.cpp — the registry's names as StrategyNames.
#include "llm/registered_names.h"

#include "strategy/registry.h"

namespace steptp::llm {

StrategyNames registered_strategy_names() {
  std::vector<std::string> names;
  for (std::string_view name : strategy::reference_strategy_names()) names.emplace_back(name);
  return StrategyNames(std::move(names));
}

}  // namespace steptp::llm
