// llm/answer_parser.cpp — locate the answer, extract one JSON value, validate every entry.
#include "llm/answer_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "llm/untrusted_json.h"

namespace steptp::llm {
namespace {

// Position just after the last closing think tag ("</think>" or the old "<\think>"), or 0.
size_t after_think(std::string_view text) {
  size_t best = 0;
  for (std::string_view tag : {std::string_view("</think>"), std::string_view("<\\think>")}) {
    size_t at = text.rfind(tag);
    if (at != std::string_view::npos) best = std::max(best, at + tag.size());
  }
  return best;
}

bool opens_think_without_closing(std::string_view text) {
  return text.find("<think>") != std::string_view::npos && after_think(text) == 0;
}

// The content of the first ```fenced``` block (the info string after the opening fence is
// dropped), or nullopt.
std::optional<std::string_view> first_fenced(std::string_view text) {
  size_t open = text.find("```");
  if (open == std::string_view::npos) return std::nullopt;
  size_t line_end = text.find('\n', open);
  if (line_end == std::string_view::npos) return std::nullopt;
  size_t close = text.find("```", line_end);
  if (close == std::string_view::npos) close = text.size();
  return text.substr(line_end + 1, close - line_end - 1);
}

std::string excerpt(std::string_view s) {
  std::string out(s.substr(0, 60));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return s.size() > 60 ? out + "..." : out;
}

// Looks a key up exactly, then ignoring case (models write "transformed_ir").
const nlohmann::json* find_key(const nlohmann::json& obj, std::string_view key) {
  auto it = obj.find(std::string(key));
  if (it != obj.end()) return &*it;
  for (auto i = obj.begin(); i != obj.end(); ++i) {
    const std::string& k = i.key();
    if (k.size() == key.size() && std::equal(k.begin(), k.end(), key.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        }))
      return &*i;
  }
  return nullptr;
}

Result<Candidate> validate_entry(const nlohmann::json& entry, const StrategyNames& known,
                                 const std::string& where) {
  if (!entry.is_object())
    return Error::make("not_an_object", fmt::format("{} is a JSON {}, not an object with "
                                                    "applied_strategy and transformed_IR",
                                                    where, entry.type_name()));
  const nlohmann::json* ir = find_key(entry, "transformed_IR");
  if (ir == nullptr)
    return Error::make("missing_key", fmt::format("{} has no \"transformed_IR\" key", where));
  // The reference prompt asks for "applied_strategies" while its labels use the singular.
  const nlohmann::json* strategy = find_key(entry, "applied_strategy");
  if (strategy == nullptr) strategy = find_key(entry, "applied_strategies");
  if (strategy == nullptr)
    return Error::make("missing_key", fmt::format("{} has no \"applied_strategy\" key", where));
  if (!ir->is_string())
    return Error::make("wrong_type", fmt::format("{}: transformed_IR is a JSON {}, not a string",
                                                 where, ir->type_name()));
  const nlohmann::json* name = strategy;
  if (strategy->is_array() && strategy->size() == 1) name = &(*strategy)[0];
  if (!name->is_string())
    return Error::make("wrong_type", fmt::format("{}: applied_strategy is a JSON {}, not a string",
                                                 where, strategy->type_name()));
  Candidate c;
  c.transformed_ir = ir->get<std::string>();
  if (std::all_of(c.transformed_ir.begin(), c.transformed_ir.end(),
                  [](unsigned char ch) { return std::isspace(ch) != 0; }))
    return Error::make("empty_ir", fmt::format("{}: transformed_IR is empty", where));
  const std::string written = name->get<std::string>();
  c.applied_strategy = known.canonical(written);
  if (c.applied_strategy.empty())
    return Error::make("unknown_strategy",
                       fmt::format("{}: '{}' is not a known strategy", where, excerpt(written)));
  return c;
}

}  // namespace

StrategyNames::StrategyNames(std::vector<std::string> names)
    : names_(std::make_move_iterator(names.begin()), std::make_move_iterator(names.end())) {}

std::string StrategyNames::canonical(std::string_view written) const {
  if (written.size() > 200) return "";
  std::string name;
  for (char ch : written) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c))
      name += static_cast<char>(std::tolower(c));
    else if ((c == ' ' || c == '_' || c == '-') && !name.empty() && name.back() != '_')
      name += '_';
    else if (c == '`' || c == '\'' || c == '"' || std::isspace(c))
      continue;  // quoting and stray whitespace around the name
    else
      return "";
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.empty()) return "";
  if (names_.empty()) return name;  // no list injected: any well-formed name
  return names_.count(name) != 0 ? name : "";
}

std::optional<std::string_view> answer_block(std::string_view text) {
  size_t from = after_think(text);
  size_t open = text.find("<answer>", from);
  if (open == std::string_view::npos) return std::nullopt;
  size_t begin = open + std::string_view("<answer>").size();
  size_t end = text.size();
  for (std::string_view tag : {std::string_view("</answer>"), std::string_view("<\\answer>")}) {
    size_t at = text.find(tag, begin);
    if (at != std::string_view::npos) end = std::min(end, at);
  }
  return text.substr(begin, end - begin);
}

std::string python_literal_to_json(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  auto word_at = [&](size_t i, std::string_view w) {
    if (text.compare(i, w.size(), w) != 0) return false;
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    bool left_ok = i == 0 || !ident(text[i - 1]);
    bool right_ok = i + w.size() >= text.size() || !ident(text[i + w.size()]);
    return left_ok && right_ok;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {  // a JSON string: copy verbatim, escapes included
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      out.append(text.substr(i, std::min(j + 1, text.size()) - i));
      i = j;
    } else if (c == '\'') {  // a Python string: re-quote
      out += '"';
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '\''; ++j) {
        if (text[j] == '\\' && j + 1 < text.size()) {
          char e = text[++j];
          if (e == '\'')
            out += '\'';
          else
            out += '\\', out += e;
        } else if (text[j] == '"') {
          out += "\\\"";
        } else {
          out += text[j];
        }
      }
      out += '"';
      i = j;
    } else if (word_at(i, "True")) {
      out += "true", i += 3;
    } else if (word_at(i, "False")) {
      out += "false", i += 4;
    } else if (word_at(i, "None")) {
      out += "null", i += 3;
    } else {
      out += c;
    }
  }
  return out;
}

Result<ParsedAnswer> parse_answer(std::string_view text, const StrategyNames& known,
                                  const ParseOptions& options) {
  if (text.size() > options.max_text_bytes)
    return Error::make("too_large", fmt::format("the answer has {} bytes, over the limit of {}",
                                                text.size(), options.max_text_bytes));
  std::optional<std::string_view> block = answer_block(text);
  std::string_view payload;
  if (block) {
    payload = *block;
  } else {
    // A think block that never closed means the model ran out of tokens while thinking.
    if (!options.allow_bare_json || opens_think_without_closing(text))
      return Error::make("no_answer_block", "the output has no <answer>...</answer> block");
    payload = text.substr(after_think(text));
  }

  std::optional<std::pair<size_t, size_t>> span;
  std::string_view source = payload;
  if (auto fenced = first_fenced(payload); fenced && (span = find_json_value(*fenced)))
    source = *fenced;
  else
    span = find_json_value(payload);
  if (!span) {
    if (!block)
      return Error::make("no_answer_block",
                         "the output has neither an <answer> block nor a JSON value");
    return Error::make("bad_json", fmt::format("the answer block holds no JSON object or list: "
                                               "'{}'",
                                               excerpt(*block)));
  }
  std::string_view json_text = source.substr(span->first, span->second - span->first);
  JsonLimits limits{options.max_text_bytes, options.max_json_depth};
  auto value = parse_untrusted_json(json_text, "bad_json", limits);
  if (!value) {
    // The reference stored multi-answer labels as Python repr ('...' quotes).
    auto converted = parse_untrusted_json(python_literal_to_json(json_text), "bad_json", limits);
    if (!converted) return std::move(value).error();
    value = std::move(converted);
  }

  ParsedAnswer out;
  const nlohmann::json& v = *value;
  if (v.is_array()) {
    out.is_list = true;
    if (v.empty()) return Error::make("empty_list", "the answer is an empty list");
    if (v.size() > options.max_candidates)
      return Error::make("too_many", fmt::format("the answer lists {} entries, over the limit of "
                                                 "{}",
                                                 v.size(), options.max_candidates));
    for (size_t i = 0; i < v.size(); ++i) {
      auto c = validate_entry(v[i], known, fmt::format("answer entry {}", i));
      if (!c) return std::move(c).error();
      out.candidates.push_back(std::move(c).value());
    }
  } else {
    auto c = validate_entry(v, known, "the answer");
    if (!c) return std::move(c).error();
    out.candidates.push_back(std::move(c).value());
  }
  return out;
}

}  // namespace steptp::llm
