// support/error.h — the three error tiers of steptp, kept apart on purpose.
//
//   internal bug      STEPTP_CHECK(cond, msg)  throws InternalError; never caught to hide a bug
//   bad input         Result<T> holding an Error (category + message + optional source location)
//   does not apply    strategy::Infeasible (a value, defined by the strategy module)
// Nothing here knows about LEIR; diagnostics only carry text positions.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace steptp {

// A bug in steptp itself. Thrown by STEPTP_CHECK; tests and the CLI report it as such.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* condition, std::string_view message, const char* file,
                             int line);

#define STEPTP_CHECK(cond, msg)                                          \
  do {                                                                   \
    if (!(cond)) ::steptp::fail_check(#cond, (msg), __FILE__, __LINE__); \
  } while (false)

// A position in a text the user gave us: 1-based line and column.
struct SourceLocation {
  std::string file;  // "<input>" when the text did not come from a file
  int line = 1;
  int column = 1;
};

// A rendered, human-actionable report about bad input:
//   softmax.leir:3:41: error: expected ',' between dtype and scope in a superscript
//   <the source line>
//                                           ^
struct Diagnostic {
  SourceLocation where;
  std::string message;
  std::string source_line;  // the offending line, for the caret; may be empty
  std::string render() const;
};

// Bad input: a category that programs can switch on ("parse_error", "ill_formed",
// "out_of_bounds", ...) and a sentence a person can act on.
struct Error {
  std::string category;
  std::string message;
  std::optional<Diagnostic> diagnostic;  // present when the error points into a text

  static Error make(std::string category, std::string message) {
    return Error{std::move(category), std::move(message), std::nullopt};
  }
  static Error at(std::string category, Diagnostic d) {
    std::string msg = d.message;
    return Error{std::move(category), std::move(msg), std::move(d)};
  }
  // "file:line:col: error: message\n<line>\n   ^" when located, else "category: message".
  std::string render() const;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit on purpose
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit on purpose

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    STEPTP_CHECK(ok(), "value() on an error Result: " + error().render());
    return std::get<0>(state_);
  }
  T& value() & {
    STEPTP_CHECK(ok(), "value() on an error Result: " + error().render());
    return std::get<0>(state_);
  }
  T&& value() && {
    STEPTP_CHECK(ok(), "value() on an error Result: " + error().render());
    return std::get<0>(std::move(state_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const& {
    STEPTP_CHECK(!ok(), "error() on a successful Result");
    return std::get<1>(state_);
  }
  Error&& error() && {
    STEPTP_CHECK(!ok(), "error() on a successful Result");
    return std::get<1>(std::move(state_));
  }

 private:
  std::variant<T, Error> state_;
};

struct Unit {};
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& {
    STEPTP_CHECK(!ok(), "error() on a successful Result");
    return *error_;
  }
  Error&& error() && {
    STEPTP_CHECK(!ok(), "error() on a successful Result");
    return std::move(*error_);
  }

 private:
  std::optional<Error> error_;
};

inline Result<void> ok() { return Result<void>(); }

// Propagates an error Result out of the enclosing function returning Result<U>.
#define STEPTP_TRY(expr)                                                        \
  do {                                                                          \
    auto&& steptp_try_result_ = (expr);                                         \
    if (!steptp_try_result_.ok()) return std::move(steptp_try_result_).error(); \
  } while (false)

}  // namespace steptp
