// codegen/code_writer.h — the indented line writer the C and CUDA emitters write their source
// with: two spaces per open scope.
#pragma once

#include <string>
#include <utility>

namespace steptp::codegen {

// Indented line writer.
class Writer {
 public:
  void line(const std::string& s) {
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
    out_ += s;
    out_ += '\n';
  }
  void open(const std::string& s) {
    line(s);
    ++indent_;
  }
  void close(const std::string& s = "}") {
    --indent_;
    line(s);
  }
  // Closes a scope and opens the next at the same depth: `} else {`.
  void reopen(const std::string& s) {
    --indent_;
    line(s);
    ++indent_;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  int indent_ = 0;
};

}  // namespace steptp::codegen
