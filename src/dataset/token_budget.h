// dataset/token_budget.h — the token length of an exported chat sample and the rule that keeps
// every sample within the context it will be trained with.
//
// A sample is counted whole (system + user + assistant, rendered by Qwen3's chat template) with a
// real tokenizer when one is given, else with the bytes / 4 estimate. A sample over budget is never
// truncated: a multi-answer sample loses labels (see informativeness_order) while it keeps >= 2,
// otherwise it is dropped; a single-answer sample is dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dataset/record.h"
#include "support/error.h"
#include "tokenizer/bpe_tokenizer.h"

namespace steptp::dataset {

class TokenCounter {
 public:
  // The bytes / 4 estimate (estimated_tokens per message, no template tokens).
  TokenCounter() = default;
  // Errors: those of tokenizer::BpeTokenizer::from_file.
  static Result<TokenCounter> from_file(const std::string& path);

  // Tokens of the three-message chat as it is trained on.
  int64_t count(std::string_view system, std::string_view user, std::string_view assistant) const;
  // Tokens of the conversation up to the assistant's turn (system + user): the prompt. The
  // answer is count(...) minus this, its header and end marker included, as a trainer's labels.
  int64_t count_prompt(std::string_view system, std::string_view user) const;
  bool exact() const { return tokenizer_.has_value(); }
  // "estimate (bytes / 4)" or "qwen3 tokenizer.json (vocab 151669, fnv 1a2b3c4d5e6f7a8b)": the
  // file's name, vocabulary size and content hash, so two builds can tell their counters apart.
  const std::string& description() const { return description_; }

 private:
  std::optional<tokenizer::BpeTokenizer> tokenizer_;
  std::string description_ = "estimate (bytes / 4)";
};

// The order in which a multi-answer sample keeps its labels when it must lose some: hard before
// easy before very_easy (the hard steps are what the dataset exists for), then the shorter label
// first (chain of thought + transformed body, so more labels fit), then the record order. The
// result is a permutation of `labels` (record indices); deterministic for the same records.
std::vector<size_t> informativeness_order(const std::vector<StepRecord>& records,
                                          const std::vector<size_t>& labels);

}  // namespace steptp::dataset
