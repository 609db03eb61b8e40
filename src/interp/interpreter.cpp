// interp/interpreter.cpp — the public face of the interpreter: compile once, run many.
#include "interp/interpreter.h"

#include "interp/compiled_program.h"

namespace steptp::interp {

Interpreter::Interpreter(std::unique_ptr<CompiledProgram> impl) : impl_(std::move(impl)) {}
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;
Interpreter::~Interpreter() = default;

Result<Interpreter> Interpreter::compile(const leir::Program& program, const RunOptions& options) {
  auto cp = compile_program(program, options);
  if (!cp.ok()) return std::move(cp).error();
  return Interpreter(std::move(cp).value());
}

Result<std::vector<leir::TensorData>> Interpreter::run(const std::vector<leir::TensorData>& inputs,
                                                       RunStats* stats) const {
  return execute(*impl_, inputs, stats);
}

const leir::TensorTable& Interpreter::tensors() const { return impl_->table; }

bool Interpreter::statically_in_bounds() const {
  for (const Access& a : impl_->accesses)
    if (!a.static_in_bounds) return false;
  return true;
}

Result<std::vector<leir::TensorData>> run_program(const leir::Program& program,
                                                  const std::vector<leir::TensorData>& inputs,
                                                  const RunOptions& options) {
  auto interp = Interpreter::compile(program, options);
  if (!interp.ok()) return std::move(interp).error();
  return interp->run(inputs);
}

}  // namespace steptp::interp
