// tokenizer/unicode_text.h — the Unicode pieces a byte-level BPE tokenizer needs: UTF-8 repair,
// NFC (ICU), the White_Space and word-character classes Hugging Face's added tokens test, and
// GPT-2's byte ↔ character table.
//
// Texts are UTF-8 bytes throughout; functions that need valid UTF-8 say so. Nothing here knows
// about vocabularies or merges.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace steptp::tokenizer {

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF).
bool is_valid_utf8(std::string_view text);

// `text` with every ill-formed subsequence replaced by U+FFFD, one per maximal subpart — the
// policy of Python's bytes.decode(errors="replace") and Rust's String::from_utf8_lossy.
std::string repair_utf8(std::string_view text);

// Decodes the code point at text[i] of valid UTF-8 and advances i past it.
char32_t next_code_point(std::string_view text, size_t& i);
// Decodes the code point that ends at text[end) of valid UTF-8 (end > 0).
char32_t code_point_before(std::string_view text, size_t end);
// Appends `cp` as UTF-8.
void append_utf8(std::string& out, char32_t cp);

// NFC of valid UTF-8. Returns false (and leaves `out` alone) when `text` already is NFC, so the
// common case copies nothing.
bool nfc_if_changed(std::string_view text, std::string& out);

// Unicode White_Space (Rust's char::is_whitespace and regex \s).
bool is_white_space(char32_t cp);
// Rust regex's Unicode \w: Alphabetic, marks, decimal digits, connector punctuation, joiners.
bool is_word_char(char32_t cp);

// GPT-2's bytes_to_unicode: the printable character that stands for each byte in byte-level
// BPE vocabularies ('!'..'~', '¡'..'¬', '®'..'ÿ' stand for themselves; the rest for U+0100..).
const std::array<char32_t, 256>& byte_to_char();
// The inverse: the byte a character stands for, or -1 for a character that stands for none.
int char_to_byte(char32_t cp);

}  // namespace steptp::tokenizer
