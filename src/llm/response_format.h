// llm/response_format.h — constrained decoding: the "response_format" that asks a server to
// emit only a JSON answer object ({"applied_strategy": <a known name>, "transformed_IR": "..."}).
//
// Two spellings exist: OpenAI's (and vLLM's, SGLang's) {"type":"json_schema","json_schema":{...}}
// and llama.cpp's (llama-cpp-python's) {"type":"json_object","schema":{...}}. The answer parser
// reads such a bare JSON object like a tagged one.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "llm/answer_parser.h"
#include "support/error.h"

namespace steptp::llm {

// The JSON schema of one answer object, with the strategy names as an enum.
nlohmann::json answer_schema(const StrategyNames& names);

// `mode`: "none" (nullopt), "json_schema" or "json_object". Errors: "bad_flags".
Result<std::optional<nlohmann::json>> response_format(std::string_view mode,
                                                      const StrategyNames& names);

}  // namespace steptp::llm
