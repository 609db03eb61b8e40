// dataset/reduced_instance.cpp — programs compared with their numbers masked.
#include "dataset/reduced_instance.h"

#include <cctype>

#include "leir/printer.h"

namespace steptp::dataset {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Replaces each number (digits, an optional fraction and exponent) that is not part of a name.
std::string mask_numbers(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const bool starts_number = is_digit(text[i]) && (i == 0 || !is_name_char(text[i - 1]));
    if (!starts_number) {
      out += text[i++];
      continue;
    }
    while (i < text.size() && (is_digit(text[i]) || text[i] == '.')) ++i;
    if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E') &&
        (is_digit(text[i + 1]) || text[i + 1] == '-' || text[i + 1] == '+')) {
      i += 2;
      while (i < text.size() && is_digit(text[i])) ++i;
    }
    out += '#';
  }
  return out;
}

}  // namespace

std::string shape_free_text(const leir::Program& p) {
  std::string text;
  for (const leir::TensorDecl& d : p.decls) text += leir::print(d) + "\n";
  text += leir::print_body(p.blocks);
  return mask_numbers(text);
}

bool same_up_to_sizes(const leir::Program& a, const leir::Program& b) {
  return a.blocks.size() == b.blocks.size() && a.decls.size() == b.decls.size() &&
         shape_free_text(a) == shape_free_text(b);
}

}  // namespace steptp::dataset
