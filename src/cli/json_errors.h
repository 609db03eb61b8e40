// cli/json_errors.h — with `--json`, a failure is JSON too.
//
// A subcommand given --json promises machine-readable output; when it fails before printing any
// (bad flags, an unreadable file, an internal error), scripts would otherwise get empty stdout
// and prose on stderr. JsonErrorScope watches stdout and copies stderr while the command runs;
// if the command exits non-zero having printed nothing on stdout, it prints one object there:
//   {"ok": false, "exit_code": N, "category": "...", "message": "..."}
// stderr keeps its text for people. Commands that already report their own failures as JSON
// (run, verify, ...) are left alone because they wrote to stdout.
#pragma once

#include <memory>
#include <string>

namespace steptp::cli {

class JsonErrorScope {
 public:
  // Active only when argv holds "--json" before any "--".
  JsonErrorScope(int argc, char** argv);
  ~JsonErrorScope();
  JsonErrorScope(const JsonErrorScope&) = delete;
  JsonErrorScope& operator=(const JsonErrorScope&) = delete;

  // Call once with the process's exit code; `category_hint` (e.g. "bad_flags") wins over the
  // category read from the error text. Returns exit_code.
  int finish(int exit_code, const std::string& category_hint = "");

  // The category of an error text: "steptp: CATEGORY: ..." or "steptp CMD: CATEGORY: ..." gives
  // CATEGORY, "cannot read/write" gives "io_error", anything else "bad_input".
  static std::string category_of(const std::string& text);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

}  // namespace steptp::cli
