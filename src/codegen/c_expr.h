// codegen/c_expr.h — LEIR expressions as C / CUDA C++ expression text, shared by the C and CUDA
// emitters, and the numeric prelude (conversions, floor division, f16/bf16 rounding) both embed.
//
// Values are computed in double and rounded to the destination dtype on store, exactly as the
// interpreter does; subscripts are int64 arithmetic with floor `//` and `%`, and so are the
// operands of a comparison made only of index arithmetic (where int64 and double agree).
// Names are mangled (tensor A → t_A, loop variable a → i_a) so no LEIR name can collide with C
// or libm names.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "leir/ir.h"
#include "leir/tensor_table.h"

namespace steptp::codegen {

std::string c_tensor_name(const std::string& tensor);  // "t_A"
std::string c_var_name(const std::string& var);        // "i_a"
std::string c_storage_type(leir::DType t);             // "double", "float", "uint16_t", ...
int dtype_bytes(leir::DType t);                        // storage size of c_storage_type

// The helper functions every emitted translation unit starts with. `fn_prefix` is the
// qualifier of each helper ("static inline" for C, "__host__ __device__ static inline" for CUDA).
std::string c_numeric_prelude(const std::string& fn_prefix);

class CExprPrinter {
 public:
  explicit CExprPrinter(const leir::TensorTable& table);

  std::string value(const leir::ExprRef& e) const;         // a double-valued expression
  std::string condition(const leir::ExprRef& e) const;     // an int-valued truth expression
  std::string index(const leir::ExprRef& e) const;         // an int64 expression
  std::string element(const leir::ExprRef& access) const;  // lvalue of the native element
  std::string load(const leir::ExprRef& access) const;     // element converted to double
  // `value_text` converted to the native type of the accessed tensor.
  std::string convert_for_store(const leir::ExprRef& access, const std::string& value_text) const;
  std::string offset(const leir::ExprRef& access) const;  // row-major element offset

  const leir::TensorInfo& info(const std::string& tensor) const;

  // Until cleared, loads of exactly this access print as `text` (the CUDA backend's CAS loop
  // evaluates an accumulation on the value it read atomically; register tiles read their
  // accumulators). Several accesses may be substituted at once.
  void substitute(leir::ExprRef access, std::string text);
  void clear_substitution();

  // The tensor lives in an array holding one slice of it (codegen::LocalArrayPlan): the
  // subscripts at `fixed` positions are implied by the enclosing loops and left out of offsets.
  void store_as_slice(const std::string& tensor, std::vector<bool> fixed);

  // Vector math (the C emitter turns it on for blocks that call log or erf and read only what
  // their selects let them read: reads_unconditionally, lowering_facts.h). log prints as
  // stp_vlog, libmvec's call (c_emitter.cpp), and every select, comparison value and logical
  // connective without a branch (stp_select's bit blend, & and |): GCC if-converts no loop
  // that holds a call besides a built-in, so one branch anywhere in the loop would keep it
  // scalar. Off, log prints as the inline stp_log, which GCC if-converts along with the
  // branches. exp is always the inline stp_exp.
  void set_vector_math(bool on) { vector_math_ = on; }

 private:
  const leir::TensorTable& table_;
  std::map<std::string, std::vector<bool>> slices_;
  std::vector<std::pair<leir::ExprRef, std::string>> substitutions_;
  bool vector_math_ = false;
};

std::string c_double_literal(const leir::Expr& number);
// An accumulation identity (0, 1, ±inf) as a C double expression.
std::string c_identity_literal(double identity);

}  // namespace steptp::codegen
