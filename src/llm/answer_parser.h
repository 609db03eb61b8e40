// llm/answer_parser.h — model output → candidate steps {applied_strategy, transformed_IR}.
//
// Tolerant of the wrapping (<think> blocks, <answer> tags incl. the old "<\answer>" typo,
// markdown fences, chatter around the JSON, a single object or a list, Python-repr quotes) and
// strict about the result: every entry must name a known strategy and carry the IR as a string.
// Model output is hostile input: bounded size and nesting, never an exception, never a crash.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace steptp::llm {

// The strategies an answer may name. Injected so that the parser does not depend on which
// strategies are registered (the registry provides the list in production).
class StrategyNames {
 public:
  StrategyNames() = default;
  explicit StrategyNames(std::vector<std::string> names);
  bool empty() const { return names_.empty(); }
  // The canonical name for what a model wrote ("Loop Tiling", " loop_tiling ", "loop-tiling" →
  // "loop_tiling"), or "" when it is not a known strategy.
  std::string canonical(std::string_view written) const;
  const std::set<std::string>& names() const { return names_; }

 private:
  std::set<std::string> names_;
};

struct Candidate {
  std::string applied_strategy;  // canonical name
  std::string transformed_ir;    // the LEIR text as written (body or program file)
};

struct ParsedAnswer {
  bool is_list = false;               // the model answered with a JSON list
  std::vector<Candidate> candidates;  // in answer order; never empty on success
};

struct ParseOptions {
  size_t max_text_bytes = 16u << 20;
  int max_json_depth = 32;
  size_t max_candidates = 64;
  bool allow_bare_json = true;  // accept a JSON answer with no <answer> tags
};

// Error categories (one per way an answer can be unusable):
//   too_large         the text exceeds max_text_bytes
//   no_answer_block   no <answer> block and no JSON value outside the think block
//   bad_json          the answer block holds no parseable JSON (or it is nested too deeply)
//   not_an_object     the value (or a list entry) is not a JSON object
//   empty_list        an empty list
//   too_many          more than max_candidates entries
//   missing_key       applied_strategy / transformed_IR absent
//   wrong_type        one of them is not a string
//   empty_ir          transformed_IR is empty or blank
//   unknown_strategy  applied_strategy names no known strategy
// Every entry of a list must be valid; the message names the entry index.
Result<ParsedAnswer> parse_answer(std::string_view text, const StrategyNames& known,
                                  const ParseOptions& options = {});

// The text between <answer> and </answer> (or the end when unterminated), after the last
// closing think tag; nullopt when there is no <answer> tag there. Exposed for tests and tools.
std::optional<std::string_view> answer_block(std::string_view text);

// Converts Python-literal quoting ('...' strings, True/False/None) to JSON; the input to the
// reference's multi-answer labels. Returns the text unchanged where it finds nothing to convert.
std::string python_literal_to_json(std::string_view text);

}  // namespace steptp::llm
