// interp/interpreter.h — the reference interpreter: the semantics of record for LEIR.
//
// A program is compiled once (to closures over precomputed strides) and then run on concrete
// inputs. Every safety violation is a typed Error, never undefined behaviour: out_of_bounds,
// uninitialized_read, incomplete_output, race, budget_exceeded. It knows nothing about
// verification policy (seeds, tolerances): that is verify/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "leir/ir.h"
#include "leir/tensor_data.h"
#include "leir/tensor_table.h"
#include "support/error.h"

namespace steptp::interp {

struct RunOptions {
  // Upper bound on statement executions (loop-body evaluations) for the whole run; checked
  // before running, from the loop extents, so a 10^12-iteration program fails immediately.
  int64_t work_budget = 4'000'000'000;
  // Upper bound on the bytes of all tensors (declared + intermediates) the run may allocate.
  int64_t memory_budget_bytes = 8LL << 30;
  // Dynamic safety checks (bounds, uninitialized reads, races, output coverage). Only turn off
  // for benchmarks of raw speed.
  bool check_safety = true;
};

struct RunStats {
  int64_t statement_executions = 0;
};

class CompiledProgram;

// A program ready to run: compile once, run many times (e.g. once per seed).
class Interpreter {
 public:
  // Errors: "ill_formed" (see leir/wellformed.h), "budget_exceeded" (work or memory).
  static Result<Interpreter> compile(const leir::Program& program, const RunOptions& options = {});

  // `inputs` holds one TensorData per declared non-output tensor (inputs, params, consts), in
  // any order, matched by name, with the declared dtype and shape. Returns the declared outputs
  // in declaration order. Errors: "bad_input" (missing/misshaped inputs), "out_of_bounds",
  // "uninitialized_read", "incomplete_output", "race", "budget_exceeded" — each message names the
  // top-level block, the statement and the element.
  Result<std::vector<leir::TensorData>> run(const std::vector<leir::TensorData>& inputs,
                                            RunStats* stats = nullptr) const;

  const leir::TensorTable& tensors() const;

  // True when every subscript of every access provably stays inside its tensor's shape for all
  // loop values (affine intervals). A program for which this holds cannot address memory outside
  // its buffers, so an engine without bounds checks may run it unsupervised.
  bool statically_in_bounds() const;

  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;
  ~Interpreter();

 private:
  explicit Interpreter(std::unique_ptr<CompiledProgram> impl);
  std::unique_ptr<CompiledProgram> impl_;
};

// Convenience: compile and run once.
Result<std::vector<leir::TensorData>> run_program(const leir::Program& program,
                                                  const std::vector<leir::TensorData>& inputs,
                                                  const RunOptions& options = {});

}  // namespace steptp::interp
