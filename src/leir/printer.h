// leir/printer.h — IR → canonical LEIR text: no whitespace, the reference's spelling, minimal
// parentheses (plus the ones a parsed expression was written with), numbers as spelled.
//
// Invariant: parse_body(print_body(b)) == b, and print_body(parse_body(t)) == t for every
// canonical text t (e.g. every row of the reference corpus).
#pragma once

#include <string>
#include <vector>

#include "leir/ir.h"

namespace steptp::leir {

std::string print(const Expr& e);
std::string print(const ExprRef& e);
std::string print(const Stmt& s);   // "C^{f64,g}_{tx}=A^{f64,g}_{tx}" (no trailing ';')
std::string print(const Loop& l);   // "B^{16}_{tx=0}"
std::string print(const Block& b);  // "B^{16}_{tx=0}[...;];"
std::string print_body(const std::vector<Block>& blocks);
std::string print(const TensorDecl& d);  // "input A f64[16,1024]"
// The program file: declarations one per line, then the body on one line, newline-terminated.
std::string print_program(const Program& p);

}  // namespace steptp::leir
