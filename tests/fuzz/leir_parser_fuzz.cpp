// tests/fuzz/leir_parser_fuzz.cpp — libFuzzer target for the LEIR parser, printer and
// well-formedness checker.
//
// Property: any input gives a value or a typed parse_error; a parsed program prints to text
// that parses back to an equal program and prints identically; the checker never crashes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace steptp;
  using namespace steptp::leir;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseLimits limits;
  limits.max_input_bytes = 1 << 16;  // keep each run fast; size limits are tested separately
  auto parsed = parse_program(text, "<fuzz>", limits);
  if (!parsed.ok()) {
    STEPTP_CHECK(parsed.error().category == "parse_error", "untyped parser error");
    (void)parsed.error().render();
    return 0;
  }
  std::string printed = print_program(*parsed);
  auto again = parse_program(printed, "<printed>");
  STEPTP_CHECK(again.ok(), "printed program does not parse: " + printed);
  STEPTP_CHECK(*again == *parsed, "print/parse round trip changed the program: " + printed);
  STEPTP_CHECK(print_program(*again) == printed, "printing is not a fixed point: " + printed);
  (void)check_well_formed(*parsed, WellFormedOptions{false, true});
  (void)check_well_formed(*parsed);
  return 0;
}
