// tokenizer/split_regex.h — the regex of a Split pre-tokenizer: an Oniguruma pattern (as Hugging
// Face compiles it) rewritten for PCRE2, compiled with JIT, and the Isolated split over a text.
//
// Internal to tokenizer/: bpe_tokenizer.cpp is its only user.
#pragma once

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>
#include <string_view>

#include "support/error.h"

namespace steptp::tokenizer {

// The pattern in PCRE2 syntax; "unsupported_tokenizer" for constructs whose Oniguruma meaning
// differs, "bad_tokenizer" for a malformed pattern.
Result<std::string> onig_to_pcre2(std::string_view pattern);

// `s` as a PCRE2 pattern that matches it literally.
std::string escape_literal(std::string_view s);

struct Pcre2CodeFree {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
using Regex = std::unique_ptr<pcre2_code, Pcre2CodeFree>;

// The compiled pattern (UTF, Unicode properties, LF newlines, JIT).
Result<Regex> compile_regex(const std::string& pattern);

// Per-thread match state: patterns are shared, match data and the JIT stack are not.
struct MatchScratch {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  // Long runs (10k spaces under \s+(?!\S)) backtrack deeply; the stack grows on demand.
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, 64 * 1024 * 1024, nullptr);
  MatchScratch() { pcre2_jit_stack_assign(context, nullptr, stack); }
  ~MatchScratch() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
};

MatchScratch& match_scratch();  // this thread's

inline size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Split with behavior Isolated: every match is a piece and so is every gap between matches.
template <typename OnPiece>
void split_isolated(const pcre2_code* re, std::string_view text, OnPiece&& on_piece) {
  MatchScratch& scratch = match_scratch();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t prev = 0, offset = 0;
  while (offset < text.size()) {
    const int rc = pcre2_match(re, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, scratch.data,
                               scratch.context);
    // No match, or a resource limit on a pathological text: the rest stays one piece (the BPE
    // of a piece is still exact; only its split points could differ from the reference).
    if (rc < 0) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(scratch.data);
    const size_t start = ov[0], end = ov[1];
    if (start > prev) on_piece(text.substr(prev, start - prev));
    if (end > start) on_piece(text.substr(start, end - start));
    prev = end;
    // An empty match splits there; the search resumes one character on, as Oniguruma's does.
    offset = end > start ? end : start + utf8_length(static_cast<unsigned char>(text[start]));
  }
  if (prev < text.size()) on_piece(text.substr(prev));
}

}  // namespace steptp::tokenizer
