#include "support/error.h"

#include <algorithm>
#include <string>

namespace steptp {

void fail_check(const char* condition, std::string_view message, const char* file, int line) {
  std::string text = std::string(file) + ":" + std::to_string(line) + ": internal error: check '" +
                     condition + "' failed";
  if (!message.empty()) text += ": " + std::string(message);
  throw InternalError(text);
}

std::string Diagnostic::render() const {
  std::string out = where.file + ":" + std::to_string(where.line) + ":" +
                    std::to_string(where.column) + ": error: " + message;
  if (!source_line.empty()) {
    // Long lines (a one-line LEIR program can be kilobytes) are shown as a window around the
    // column so the caret stays readable.
    constexpr int kWindow = 120;
    int col = where.column - 1;
    int begin = 0;
    if (col > kWindow - 20) begin = col - (kWindow - 20);
    std::string shown = source_line.substr(static_cast<size_t>(std::max(0, begin)), kWindow);
    std::string prefix = begin > 0 ? "..." : "";
    out += "\n" + prefix + shown + "\n" + std::string(prefix.size() + (col - begin), ' ') + "^";
  }
  return out;
}

std::string Error::render() const {
  if (diagnostic) return diagnostic->render();
  return category + ": " + message;
}

}  // namespace steptp
