// llm/response_format.cpp — the answer schema in both response_format spellings.
#include "llm/response_format.h"

#include <fmt/format.h>

namespace steptp::llm {

nlohmann::json answer_schema(const StrategyNames& names) {
  nlohmann::json strategies = nlohmann::json::array();
  for (const std::string& n : names.names()) strategies.push_back(n);
  return {{"type", "object"},
          {"properties",
           {{"applied_strategy", {{"type", "string"}, {"enum", strategies}}},
            {"transformed_IR", {{"type", "string"}}}}},
          {"required", {"applied_strategy", "transformed_IR"}},
          {"additionalProperties", false}};
}

Result<std::optional<nlohmann::json>> response_format(std::string_view mode,
                                                      const StrategyNames& names) {
  if (mode == "none") return std::optional<nlohmann::json>();
  if (mode == "json_schema")
    return std::optional<nlohmann::json>(
        {{"type", "json_schema"},
         {"json_schema",
          {{"name", "steptp_step"}, {"strict", true}, {"schema", answer_schema(names)}}}});
  if (mode == "json_object")
    return std::optional<nlohmann::json>(
        {{"type", "json_object"}, {"schema", answer_schema(names)}});
  return Error::make("bad_flags", fmt::format("unknown constrained decoding '{}' (expected none, "
                                              "json_schema or json_object)",
                                              mode));
}

}  // namespace steptp::llm
