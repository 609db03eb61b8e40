// dataset/token_budget.cpp — counting samples and ordering labels for the token budget.
#include "dataset/token_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dataset/chat_format.h"
#include "dataset/seeded_random.h"
#include "tokenizer/qwen3_chat.h"

namespace steptp::dataset {
namespace {

int difficulty_rank(const std::string& d) {
  if (d == "hard") return 0;
  if (d == "easy") return 1;
  return 2;
}

}  // namespace

Result<TokenCounter> TokenCounter::from_file(const std::string& path) {
  auto tok = tokenizer::BpeTokenizer::from_file(path);
  if (!tok) return tok.error();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  TokenCounter c;
  c.description_ =
      fmt::format("{} (vocab {}, fnv {:016x})", std::filesystem::path(path).filename().string(),
                  tok->vocab_size(), stable_hash(bytes.str()));
  c.tokenizer_ = std::move(*tok);
  return c;
}

int64_t TokenCounter::count(std::string_view system, std::string_view user,
                            std::string_view assistant) const {
  if (!tokenizer_)
    return estimated_tokens(system) + estimated_tokens(user) + estimated_tokens(assistant);
  return tokenizer::chat_token_count(*tokenizer_, {{"system", std::string(system)},
                                                   {"user", std::string(user)},
                                                   {"assistant", std::string(assistant)}});
}

int64_t TokenCounter::count_prompt(std::string_view system, std::string_view user) const {
  if (!tokenizer_) return estimated_tokens(system) + estimated_tokens(user);
  return tokenizer::chat_token_count(
      *tokenizer_, {{"system", std::string(system)}, {"user", std::string(user)}});
}

std::vector<size_t> informativeness_order(const std::vector<StepRecord>& records,
                                          const std::vector<size_t>& labels) {
  std::vector<size_t> order = labels;
  auto size = [&](size_t i) { return records[i].cot.size() + records[i].transformed.size(); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int da = difficulty_rank(records[a].difficulty),
              db = difficulty_rank(records[b].difficulty);
    if (da != db) return da < db;
    if (size(a) != size(b)) return size(a) < size(b);
    return a < b;
  });
  return order;
}

}  // namespace steptp::dataset
