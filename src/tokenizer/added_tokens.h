// tokenizer/added_tokens.h — the added tokens of a tokenizer.json and how they are found in a
// text (leftmost-longest, as Hugging Face's aho-corasick matcher does).
//
// Internal to tokenizer/: bpe_tokenizer.cpp is its only user.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace steptp::tokenizer {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = false;
};

// Finds added tokens the way aho-corasick's MatchKind::LeftmostLongest does: the match that
// starts first, the longest of those, then the search resumes at its end.
class AddedTokenMatcher {
 public:
  void add(std::string pattern, int token) { patterns_.push_back({std::move(pattern), token}); }

  void build() {
    for (auto& bucket : by_first_byte_) bucket.clear();
    for (int k = 0; k < static_cast<int>(patterns_.size()); ++k)
      by_first_byte_[static_cast<unsigned char>(patterns_[k].text[0])].push_back(k);
    for (auto& bucket : by_first_byte_)
      std::stable_sort(bucket.begin(), bucket.end(), [&](int a, int b) {
        return patterns_[a].text.size() > patterns_[b].text.size();
      });
  }

  bool empty() const { return patterns_.empty(); }

  // The first match at or after `from`: its start, length and token.
  bool find(std::string_view text, size_t from, size_t& start, size_t& length, int& token) const {
    for (size_t i = from; i < text.size(); ++i) {
      const auto& bucket = by_first_byte_[static_cast<unsigned char>(text[i])];
      for (int k : bucket) {
        const std::string& p = patterns_[k].text;
        if (text.compare(i, p.size(), p) == 0) {
          start = i;
          length = p.size();
          token = patterns_[k].token;
          return true;
        }
      }
    }
    return false;
  }

 private:
  struct Pattern {
    std::string text;  // never empty
    int token;
  };
  std::vector<Pattern> patterns_;
  std::array<std::vector<int>, 256> by_first_byte_;
};

}  // namespace steptp::tokenizer
