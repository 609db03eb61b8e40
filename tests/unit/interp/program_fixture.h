// tests/unit/interp/program_fixture.h — parses a LEIR program file for a test, makes seeded
// inputs, and runs it through the interpreter. Expected values are never computed here.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "leir/parser.h"

namespace steptp::interp::testing {

inline leir::Program parse_or_die(const std::string& text) {
  auto p = leir::parse_program(text);
  if (!p.ok()) ADD_FAILURE() << p.error().render();
  return p.ok() ? p.value() : leir::Program{};
}

// Deterministic values in [lo, hi): a tiny LCG so that tests do not depend on <random>.
inline std::vector<double> seeded_values(int64_t n, uint64_t seed, double lo = -2.0,
                                         double hi = 2.0) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (double& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  return v;
}

// One seeded TensorData per declared non-output tensor, rounded to its dtype.
inline std::vector<leir::TensorData> seeded_inputs(const leir::Program& p, uint64_t seed = 1) {
  std::vector<leir::TensorData> out;
  for (const leir::TensorDecl& d : p.decls) {
    if (d.role == leir::TensorRole::kOutput) continue;
    leir::TensorData t{d.name, d.dtype, d.shape,
                       seeded_values(leir::element_count(d.shape), seed++)};
    for (double& x : t.values) x = leir::round_to_dtype(x, d.dtype);
    out.push_back(std::move(t));
  }
  return out;
}

inline const leir::TensorData* find_input(const std::vector<leir::TensorData>& ins,
                                          const std::string& name) {
  for (const auto& t : ins)
    if (t.name == name) return &t;
  return nullptr;
}

// Runs and returns the outputs by name; fails the test on an error.
inline std::map<std::string, leir::TensorData> run_ok(const leir::Program& p,
                                                      const std::vector<leir::TensorData>& ins,
                                                      const RunOptions& options = {}) {
  std::map<std::string, leir::TensorData> out;
  auto r = run_program(p, ins, options);
  if (!r.ok()) {
    ADD_FAILURE() << r.error().render();
    return out;
  }
  for (auto& t : r.value()) out[t.name] = t;
  return out;
}

// The error of a run that must fail.
inline Error run_error(const leir::Program& p, const std::vector<leir::TensorData>& ins,
                       const RunOptions& options = {}) {
  auto r = run_program(p, ins, options);
  if (r.ok()) {
    ADD_FAILURE() << "expected the run to fail";
    return Error::make("none", "");
  }
  return r.error();
}

}  // namespace steptp::interp::testing
