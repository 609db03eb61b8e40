// llm/untrusted_json.h — parsing JSON that a server or a model wrote: bounded size and nesting,
// never an exception, and the span of the first balanced JSON value inside surrounding chatter.
//
// Everything an LLM endpoint returns goes through here before nlohmann sees it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "support/error.h"

namespace steptp::llm {

struct JsonLimits {
  size_t max_bytes = 64u << 20;
  int max_depth = 64;
};

// Errors: category `category` ("bad_json" for answers, "llm_bad_response" for server bodies),
// with a message saying what is wrong (too deep, too large, or the parser's complaint).
Result<nlohmann::json> parse_untrusted_json(std::string_view text, std::string_view category,
                                            const JsonLimits& limits = {});

// The deepest bracket nesting of `text`, ignoring brackets inside "..." strings.
int json_nesting_depth(std::string_view text);

// [begin, end) of the first balanced {...} or [...] value in `text` (brackets inside "..." or
// '...' strings ignored); nullopt when there is no opening bracket or it is never closed.
std::optional<std::pair<size_t, size_t>> find_json_value(std::string_view text);

}  // namespace steptp::llm
