// leir/lexer.cpp — the LEIR tokenizer (see lexer.h). Words are lexed wider than the grammar
// allows ("a2", "AB") so that the parser can name the whole bad word in its diagnostic.
#include "leir/lexer.h"

#include <algorithm>
#include <cstdio>

namespace steptp::leir {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

constexpr std::string_view kTwoCharPuncts[] = {"**", "//", "<=", ">=", "==", "!="};
constexpr std::string_view kOneCharPuncts = "+-*/%<>=&|()[]{},;^_";

}  // namespace

Lexer::Lexer(std::string_view text, size_t begin) : text_(text), pos_(begin) {}

Token Lexer::peek(size_t k) {
  while (ahead_.size() <= k) {
    // Once an error or the end is reached, keep returning it instead of scanning on.
    if (!ahead_.empty() &&
        (ahead_.back().kind == TokenKind::kEnd || ahead_.back().kind == TokenKind::kError)) {
      ahead_.push_back(ahead_.back());
      continue;
    }
    ahead_.push_back(scan());
  }
  return ahead_[k];
}

Token Lexer::next() {
  Token t = peek(0);
  if (t.kind != TokenKind::kEnd && t.kind != TokenKind::kError) ahead_.erase(ahead_.begin());
  return t;
}

Token Lexer::error_at(size_t offset, size_t length, std::string message) {
  error_ = std::move(message);
  return Token{TokenKind::kError, text_.substr(offset, length), offset};
}

void Lexer::skip_blanks() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      at_line_start_ = true;
      ++pos_;
    } else if (is_blank(c)) {
      ++pos_;
    } else if (c == '#' && at_line_start_) {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::scan() {
  skip_blanks();
  if (pos_ >= text_.size()) return Token{TokenKind::kEnd, {}, text_.size()};
  at_line_start_ = false;
  const size_t start = pos_;
  const char c = text_[pos_];

  if (is_upper(c) || is_lower(c)) {
    ++pos_;
    while (pos_ < text_.size()) {
      char d = text_[pos_];
      // '_' joins words only in lower-case ones (if_then_else); after a tensor name it starts
      // the subscript.
      if (is_upper(d) || is_lower(d) || is_digit(d) || (d == '_' && is_lower(c)))
        ++pos_;
      else
        break;
    }
    return Token{is_upper(c) ? TokenKind::kUpperWord : TokenKind::kLowerWord,
                 text_.substr(start, pos_ - start), start};
  }

  if (is_digit(c)) {
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !is_digit(text_[pos_]))
        return error_at(start, pos_ - start,
                        "expected a digit after '.' in a number (write 1.0, not 1.)");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == 'e') {
      size_t e = pos_ + 1;
      if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
      if (e >= text_.size() || !is_digit(text_[e]))
        return error_at(start, e - start,
                        "expected digits in the exponent of a number (e.g. 1e-05)");
      pos_ = e;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ - start > kMaxNumberLength)
      return error_at(start, pos_ - start,
                      "number literal is longer than " + std::to_string(kMaxNumberLength) +
                          " characters; write it with an exponent");
    return Token{TokenKind::kNumber, text_.substr(start, pos_ - start), start};
  }

  for (std::string_view two : kTwoCharPuncts) {
    if (text_.substr(pos_, 2) == two) {
      pos_ += 2;
      return Token{TokenKind::kPunct, text_.substr(start, 2), start};
    }
  }
  if (kOneCharPuncts.find(c) != std::string_view::npos) {
    ++pos_;
    return Token{TokenKind::kPunct, text_.substr(start, 1), start};
  }
  if (c == '!') return error_at(start, 1, "'!' is only valid as part of '!='");
  if (c == '#') return error_at(start, 1, "'#' starts a comment only at the beginning of a line");
  if (c == '.') return error_at(start, 1, "a number must start with a digit (write 0.5, not .5)");
  std::string shown;
  if (c >= 0x21 && c <= 0x7e) {
    shown = std::string("'") + c + "'";
  } else {
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", static_cast<unsigned char>(c));
    shown = buf;
  }
  return error_at(start, 1, "unexpected character " + shown + " in LEIR text");
}

TextPosition position_of(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  TextPosition p;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      line_start = i + 1;
    }
  }
  size_t line_end = text.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = text.size();
  p.column = static_cast<int>(offset - line_start) + 1;
  p.line_text = text.substr(line_start, line_end - line_start);
  return p;
}

}  // namespace steptp::leir
