// leir/lexer.h — splits LEIR text into tokens on demand, for the parser only.
//
// Whitespace and newlines between tokens are skipped; a line whose first non-blank character is
// '#' is a comment. The lexer never allocates per token (tokens are views into the text) and
// reports a malformed character or number as a kError token carrying its own message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace steptp::leir {

enum class TokenKind : unsigned char {
  kEnd,        // end of the text
  kUpperWord,  // [A-Z][A-Za-z0-9]*   (tensor names, loop kinds; validated by the parser)
  kLowerWord,  // [a-z][A-Za-z0-9_]*  (loop variables, functions, dtypes, scopes, inf)
  kNumber,     // digits[.digits][e[+-]digits]
  kPunct,      // ** // <= >= == != and single characters + - * / % < > = & | ( ) [ ] { } , ; ^ _
  kError,      // a malformed token; error_message() says why
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;
  size_t offset = 0;  // byte offset into the whole text (for line:col)

  bool is(std::string_view punct) const { return kind == TokenKind::kPunct && text == punct; }
};

class Lexer {
 public:
  // Lexes `text` starting at byte `begin`, which must be at the start of a line.
  Lexer(std::string_view text, size_t begin);

  // The k-th token ahead (0 = the next one); k is small (the parser looks at most 3 ahead).
  Token peek(size_t k = 0);  // by value: later peeks may grow the buffer
  Token next();

  // For a kError token: why it is malformed.
  const std::string& error_message() const { return error_; }

  // Longest number spelling we accept; longer literals are rejected rather than converted.
  static constexpr size_t kMaxNumberLength = 512;

 private:
  Token scan();
  void skip_blanks();
  Token error_at(size_t offset, size_t length, std::string message);

  std::string_view text_;
  size_t pos_ = 0;
  bool at_line_start_ = true;
  std::vector<Token> ahead_;  // lookahead buffer, front first
  std::string error_;
};

// 1-based line and column of a byte offset, and the text of that line (without newline).
struct TextPosition {
  int line = 1;
  int column = 1;
  std::string_view line_text;
};
TextPosition position_of(std::string_view text, size_t offset);

}  // namespace steptp::leir
