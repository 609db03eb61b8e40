// cli/program_input.h — reading a LEIR program file for a subcommand, with the error printed
// the way every subcommand prints it (the rendered diagnostic on stderr).
#pragma once

#include <optional>
#include <string>

#include "leir/ir.h"

namespace steptp::cli {

// Reads and parses PATH ("-" = stdin). On failure prints the diagnostic and returns nullopt.
std::optional<leir::Program> load_program(const std::string& path);

}  // namespace steptp::cli
