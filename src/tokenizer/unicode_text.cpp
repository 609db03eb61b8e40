// tokenizer/unicode_text.cpp — UTF-8 repair, NFC through ICU, character classes, GPT-2's table.
#include "tokenizer/unicode_text.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>
#include <unicode/uchar.h>

#include "support/error.h"

namespace steptp::tokenizer {
namespace {

// The length of the longest well-formed prefix of text[i..] that is one code point, or 0 when
// text[i] starts an ill-formed subsequence; `consumed` is then the length of its maximal subpart
// (Unicode §3.9, "U+FFFD substitution of maximal subparts").
size_t well_formed_length(std::string_view text, size_t i, size_t& consumed) {
  const auto b = static_cast<unsigned char>(text[i]);
  if (b < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lo = 0xA0;  // no overlongs
    if (b == 0xED) hi = 0x9F;  // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lo = 0x90;  // no overlongs
    if (b == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    consumed = 1;  // a continuation byte, C0, C1 or F5..FF: never part of a code point
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= text.size()) {
      consumed = k;
      return 0;
    }
    const auto c = static_cast<unsigned char>(text[i + k]);
    if (c < lo || c > hi) {
      consumed = k;
      return 0;
    }
    lo = 0x80;
    hi = 0xBF;
  }
  return need + 1;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t consumed = 0;
    const size_t n = well_formed_length(text, i, consumed);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string repair_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  size_t i = 0;
  while (i < text.size()) {
    size_t consumed = 0;
    const size_t n = well_formed_length(text, i, consumed);
    if (n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      i += consumed;
    }
  }
  return out;
}

char32_t next_code_point(std::string_view text, size_t& i) {
  const auto b = static_cast<unsigned char>(text[i]);
  auto cont = [&](size_t k) { return static_cast<char32_t>(text[i + k] & 0x3F); };
  char32_t cp;
  if (b < 0x80) {
    cp = b;
    i += 1;
  } else if (b < 0xE0) {
    cp = (static_cast<char32_t>(b & 0x1F) << 6) | cont(1);
    i += 2;
  } else if (b < 0xF0) {
    cp = (static_cast<char32_t>(b & 0x0F) << 12) | (cont(1) << 6) | cont(2);
    i += 3;
  } else {
    cp = (static_cast<char32_t>(b & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
    i += 4;
  }
  return cp;
}

char32_t code_point_before(std::string_view text, size_t end) {
  size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return next_code_point(text, start);
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool nfc_if_changed(std::string_view text, std::string& out) {
  // Every code point below U+0300 is NFC and composes with nothing before U+0300; its UTF-8
  // uses only bytes below 0xCC. Most text (LEIR, code, English) never reaches ICU.
  bool low = true;
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0xCC) {
      low = false;
      break;
    }
  }
  if (low) return false;
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  STEPTP_CHECK(U_SUCCESS(status), "ICU has no NFC data");
  const icu::StringPiece piece(text.data(), static_cast<int32_t>(text.size()));
  if (nfc->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) return false;
  status = U_ZERO_ERROR;
  std::string normalized;
  icu::StringByteSink<std::string> sink(&normalized, static_cast<int32_t>(text.size()));
  nfc->normalizeUTF8(0, piece, sink, nullptr, status);
  STEPTP_CHECK(U_SUCCESS(status), "ICU failed to normalize valid UTF-8 to NFC");
  out = std::move(normalized);
  return true;
}

bool is_white_space(char32_t cp) {
  return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_WHITE_SPACE);
}

bool is_word_char(char32_t cp) {
  const auto c = static_cast<UChar32>(cp);
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC) || u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL))
    return true;
  return (U_GET_GC_MASK(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

const std::array<char32_t, 256>& byte_to_char() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[b] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

int char_to_byte(char32_t cp) {
  // The table's characters all lie below U+0144: a dense inverse.
  static const std::array<int16_t, 324> inverse = [] {
    std::array<int16_t, 324> inv{};
    inv.fill(-1);
    const auto& fwd = byte_to_char();
    for (int b = 0; b < 256; ++b) inv[fwd[b]] = static_cast<int16_t>(b);
    return inv;
  }();
  return cp < inverse.size() ? inverse[cp] : -1;
}

}  // namespace steptp::tokenizer
