#include "cli/program_input.h"

#include <iostream>

#include "cli/command.h"
#include "leir/parser.h"

namespace steptp::cli {

std::optional<leir::Program> load_program(const std::string& path) {
  std::string text;
  if (!read_file(path, text)) return std::nullopt;
  auto program = leir::parse_program(text, path == "-" ? "<stdin>" : path);
  if (!program) {
    std::cerr << program.error().render() << "\n";
    return std::nullopt;
  }
  return std::move(*program);
}

}  // namespace steptp::cli
