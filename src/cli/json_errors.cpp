#include "cli/json_errors.h"

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <streambuf>

#include "cli/command.h"

namespace steptp::cli {

namespace {

// Forwards every character to `next` and remembers how many passed (stdout) or what they were
// (stderr).
class TeeBuf : public std::streambuf {
 public:
  TeeBuf(std::streambuf* next, bool keep) : next_(next), keep_(keep) {}
  size_t count() const { return count_; }
  const std::string& text() const { return text_; }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    ++count_;
    if (keep_ && text_.size() < kMaxKept) text_.push_back(static_cast<char>(c));
    return next_->sputc(static_cast<char>(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    count_ += static_cast<size_t>(n);
    if (keep_ && text_.size() < kMaxKept)
      text_.append(s, std::min<size_t>(static_cast<size_t>(n), kMaxKept - text_.size()));
    return next_->sputn(s, n);
  }
  int sync() override { return next_->pubsync(); }

 private:
  static constexpr size_t kMaxKept = 4096;
  std::streambuf* next_;
  bool keep_;
  size_t count_ = 0;
  std::string text_;
};

}  // namespace

struct JsonErrorScope::Buffers {
  std::streambuf* cout_orig;
  std::streambuf* cerr_orig;
  TeeBuf out, err;
  Buffers()
      : cout_orig(std::cout.rdbuf()),
        cerr_orig(std::cerr.rdbuf()),
        out(cout_orig, /*keep=*/false),
        err(cerr_orig, /*keep=*/true) {}
};

JsonErrorScope::JsonErrorScope(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) break;
    if (std::strcmp(argv[i], "--json") == 0) {
      buffers_ = std::make_unique<Buffers>();
      std::cout.rdbuf(&buffers_->out);
      std::cerr.rdbuf(&buffers_->err);
      break;
    }
  }
}

JsonErrorScope::~JsonErrorScope() {
  if (!buffers_) return;
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(buffers_->cout_orig);
  std::cerr.rdbuf(buffers_->cerr_orig);
}

std::string JsonErrorScope::category_of(const std::string& text) {
  static const std::regex kTyped(R"(^steptp(?: [a-z-]+)?: ([a-z_]+): )");
  std::smatch m;
  if (std::regex_search(text, m, kTyped)) return m[1];
  if (text.find("cannot read") != std::string::npos ||
      text.find("cannot write") != std::string::npos)
    return "io_error";
  return "bad_input";
}

int JsonErrorScope::finish(int exit_code, const std::string& category_hint) {
  if (!buffers_ || exit_code == kExitOk) return exit_code;
  std::cout.flush();
  if (buffers_->out.count() > 0) return exit_code;
  std::string message = buffers_->err.text();
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  std::string category = !category_hint.empty()       ? category_hint
                         : exit_code == kExitInternal ? std::string("internal")
                                                      : category_of(message);
  nlohmann::json j{
      {"ok", false}, {"exit_code", exit_code}, {"category", category}, {"message", message}};
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  std::cout.flush();
  return exit_code;
}

}  // namespace steptp::cli
