// llm/untrusted_json.cpp — bounded JSON parsing for text we did not write.
#include "llm/untrusted_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace steptp::llm {

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot close the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      deepest = std::max(deepest, ++depth);
    else if ((c == '}' || c == ']') && depth > 0)
      --depth;
  }
  return deepest;
}

Result<nlohmann::json> parse_untrusted_json(std::string_view text, std::string_view category,
                                            const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    return Error::make(std::string(category),
                       fmt::format("JSON text of {} bytes exceeds the limit of {} bytes",
                                   text.size(), limits.max_bytes));
  // nlohmann's DOM handles deep nesting poorly (recursive destruction); refuse it up front.
  int depth = json_nesting_depth(text);
  if (depth > limits.max_depth)
    return Error::make(
        std::string(category),
        fmt::format("JSON nesting depth {} exceeds the limit of {}", depth, limits.max_depth));
  nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                               /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    // Re-run with exceptions only to recover the parser's explanation (position, token).
    try {
      nlohmann::json again = nlohmann::json::parse(text.begin(), text.end());
      return Error::make(std::string(category), "invalid JSON");  // not reached: parse threw
    } catch (const nlohmann::json::exception& e) {
      return Error::make(std::string(category), fmt::format("invalid JSON: {}", e.what()));
    }
    return Error::make(std::string(category), "invalid JSON");
  }
  return value;
}

std::optional<std::pair<size_t, size_t>> find_json_value(std::string_view text) {
  size_t begin = text.find_first_of("{[");
  if (begin == std::string_view::npos) return std::nullopt;
  // A stack of expected closers, so that "{[}]" is not taken as balanced.
  std::vector<char> closers;
  char quote = 0;
  for (size_t i = begin; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      closers.push_back('}');
    } else if (c == '[') {
      closers.push_back(']');
    } else if (c == '}' || c == ']') {
      if (closers.empty() || closers.back() != c) return std::nullopt;
      closers.pop_back();
      if (closers.empty()) return std::make_pair(begin, i + 1);
    }
  }
  return std::nullopt;
}

}  // namespace steptp::llm
