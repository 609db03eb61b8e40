// tokenizer/split_regex.cpp — Oniguruma to PCRE2, and compiling a Split pattern.
#include "tokenizer/split_regex.h"

#include <array>
#include <cctype>

namespace steptp::tokenizer {
namespace {

Error bad(std::string message) { return Error::make("bad_tokenizer", std::move(message)); }
Error unsupported(std::string message) {
  return Error::make("unsupported_tokenizer", std::move(message));
}

// Hugging Face compiles Split patterns with Oniguruma; PCRE2 agrees with it except for the Unicode
// meaning of a few escapes. Those are spelled out (Oniguruma's documented classes); constructs
// whose meaning differs in ways not worth guessing are refused.
constexpr std::string_view kOnigSpace =
    "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";
constexpr std::string_view kOnigWord = "\\p{L}\\p{M}\\p{N}\\p{Pc}";
constexpr std::string_view kOnigHex = "0-9a-fA-F";

}  // namespace

Result<std::string> onig_to_pcre2(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 >= pattern.size()) return bad("Split regex ends with a lone backslash");
      const char e = pattern[++i];
      std::string_view cls;
      bool negated = false;
      switch (e) {
        case 's':
          cls = kOnigSpace;
          break;
        case 'S':
          cls = kOnigSpace;
          negated = true;
          break;
        case 'w':
          cls = kOnigWord;
          break;
        case 'W':
          cls = kOnigWord;
          negated = true;
          break;
        // Oniguruma's \h is a hex digit, PCRE2's a horizontal blank.
        case 'h':
          cls = kOnigHex;
          break;
        case 'H':
          cls = kOnigHex;
          negated = true;
          break;
        case 'b':
        case 'B':
        case 'y':
        case 'Y':
        case 'O':
          return unsupported(std::string("Split regex escape \\") + e +
                             " (its Oniguruma meaning has no exact PCRE2 spelling)");
        default:
          out += '\\';
          out += e;
          continue;
      }
      if (in_class) {
        if (negated)
          return unsupported(std::string("Split regex escape \\") + e + " inside a class");
        out += cls;
      } else {
        out += negated ? "[^" : "[";
        out += cls;
        out += ']';
      }
      continue;
    }
    if (in_class) {
      if (c == '[' && (i + 1 >= pattern.size() || pattern[i + 1] != ':'))
        return unsupported("Split regex with a nested character class");
      if (c == '&' && i + 1 < pattern.size() && pattern[i + 1] == '&')
        return unsupported("Split regex with a class intersection (&&)");
      if (c == '[') {  // a POSIX class [:alpha:]: copy it whole
        const size_t close = pattern.find(":]", i + 2);
        if (close == pattern.npos) return bad("Split regex has an unterminated [: class");
        out.append(pattern.substr(i, close + 2 - i));
        i = close + 1;
        continue;
      }
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' first in a class (after an optional '^') is a literal in both dialects.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (c == '^' || c == '$')
      return unsupported("Split regex anchor '" + std::string(1, c) +
                         "' (Oniguruma anchors it at every line)");
    if (c == '(' && pattern.substr(i).starts_with("(?m"))
      return unsupported("Split regex option (?m) (Oniguruma's dot-all)");
    out += c;
  }
  if (in_class) return bad("Split regex has an unterminated character class");
  return out;
}

std::string escape_literal(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u)) out += '\\';
    out += c;
  }
  return out;
}

Result<Regex> compile_regex(const std::string& pattern) {
  std::unique_ptr<pcre2_compile_context, decltype(&pcre2_compile_context_free)> ctx(
      pcre2_compile_context_create(nullptr), &pcre2_compile_context_free);
  pcre2_set_newline(ctx.get(), PCRE2_NEWLINE_LF);
  int code = 0;
  PCRE2_SIZE offset = 0;
  Regex re(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_UCP, &code, &offset, ctx.get()));
  if (!re) {
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(code, message.data(), message.size());
    return unsupported("Split regex does not compile as PCRE2 at offset " + std::to_string(offset) +
                       ": " + reinterpret_cast<const char*>(message.data()));
  }
  pcre2_jit_compile(re.get(), PCRE2_JIT_COMPLETE);  // without JIT, pcre2_match interprets
  return re;
}

MatchScratch& match_scratch() {
  thread_local MatchScratch scratch;
  return scratch;
}

}  // namespace steptp::tokenizer
