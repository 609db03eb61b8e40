// cli/command.h — how a subcommand plugs into the `steptp` executable.
//
// Each subcommand lives in its own file (cli/<name>_command.cpp) and exposes one setup function
// that declares its flags on a CLI11 sub-app and installs a callback. Callbacks only translate
// between the shell and the library: they never hold logic a library test could not reach.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "support/error.h"

namespace steptp::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;        // success / "yes" (e.g. equivalent, formatted)
inline constexpr int kExitNo = 1;        // a definite "no" (not equivalent, needs formatting)
inline constexpr int kExitBadInput = 2;  // bad input: unreadable file, parse error, bad flags
inline constexpr int kExitInternal = 3;  // a bug in steptp

struct CommandContext {
  int exit_code = kExitOk;
};

using CommandSetup = void (*)(CLI::App& app, CommandContext& ctx);

struct CommandEntry {
  const char* name;
  CommandSetup setup;
};

// Reads a whole file; on failure returns false and prints "steptp: cannot read FILE: reason".
bool read_file(const std::string& path, std::string& out);
// Writes atomically (temporary file + rename); on failure prints the reason and returns false.
bool write_file_atomic(const std::string& path, const std::string& contents);
// Creates the directory (and its parents) and proves a file can be written in it. Errors:
// "bad_out" naming the path and the reason.
Result<void> ensure_writable_dir(const std::string& path);

}  // namespace steptp::cli
