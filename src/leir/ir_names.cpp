// leir/ir_names.cpp — the names and spellings of the IR's enumerations (ir.h): dtypes, scopes,
// loop kinds, operators, functions and their arities, tensor roles; each with its inverse.
#include <string_view>

#include "leir/ir.h"
#include "support/error.h"

namespace steptp::leir {
namespace {

struct DTypeName {
  DType type;
  std::string_view name;
};
constexpr DTypeName kDTypeNames[] = {
    {DType::kF16, "f16"},
    {DType::kBF16, "bf16"},
    {DType::kF32, "f32"},
    {DType::kF64, "f64"},
    {DType::kI8, "i8"},
    {DType::kI16, "i16"},
    {DType::kI32, "i32"},
    {DType::kI64, "i64"},
    {DType::kU8, "u8"},
    {DType::kU16, "u16"},
    {DType::kU32, "u32"},
    {DType::kU64, "u64"},
    {DType::kBool, "bool"},
    {DType::kC64, "c64"},
    {DType::kC128, "c128"},
    {DType::kF8E4M3FN, "f8e4m3fn"},
    {DType::kF8E4M3FNUZ, "f8e4m3fnuz"},
    {DType::kF8E5M2, "f8e5m2"},
    {DType::kU4, "u4"},
    {DType::kI4, "i4"},
};

}  // namespace

std::string_view dtype_name(DType t) {
  for (const auto& e : kDTypeNames)
    if (e.type == t) return e.name;
  STEPTP_CHECK(false, "unknown dtype");
}

std::optional<DType> dtype_from_name(std::string_view s) {
  for (const auto& e : kDTypeNames)
    if (e.name == s) return e.type;
  return std::nullopt;
}

bool is_float(DType t) {
  switch (t) {
    case DType::kF16:
    case DType::kBF16:
    case DType::kF32:
    case DType::kF64:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
      return true;
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kBool:
    case DType::kC64:
    case DType::kC128:
    case DType::kU4:
    case DType::kI4:
      return false;
  }
  return false;
}

bool is_integer(DType t) {
  switch (t) {
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kU4:
    case DType::kI4:
      return true;
    case DType::kF16:
    case DType::kBF16:
    case DType::kF32:
    case DType::kF64:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kBool:
    case DType::kC64:
    case DType::kC128:
      return false;
  }
  return false;
}

bool is_complex(DType t) { return t == DType::kC64 || t == DType::kC128; }

bool is_executable(DType t) {
  switch (t) {
    case DType::kF16:
    case DType::kBF16:
    case DType::kF32:
    case DType::kF64:
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kBool:
      return true;
    case DType::kC64:
    case DType::kC128:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2:
    case DType::kU4:
    case DType::kI4:
      return false;
  }
  return false;
}

std::string_view scope_word(Scope s) {
  switch (s) {
    case Scope::kGlobal:
      return "global";
    case Scope::kShared:
      return "shared";
    case Scope::kLocal:
      return "local";
  }
  return "?";
}

char scope_letter(Scope s) {
  switch (s) {
    case Scope::kGlobal:
      return 'g';
    case Scope::kShared:
      return 's';
    case Scope::kLocal:
      return 'l';
  }
  return '?';
}

std::optional<Scope> scope_from_letter(char c) {
  switch (c) {
    case 'g':
      return Scope::kGlobal;
    case 's':
      return Scope::kShared;
    case 'l':
      return Scope::kLocal;
    default:
      return std::nullopt;
  }
}

char loop_kind_letter(LoopKind k) {
  switch (k) {
    case LoopKind::kSerial:
      return 'L';
    case LoopKind::kBound:
      return 'B';
    case LoopKind::kParallel:
      return 'P';
    case LoopKind::kVectorized:
      return 'V';
    case LoopKind::kUnrolled:
      return 'U';
  }
  return '?';
}

std::optional<LoopKind> loop_kind_from_letter(char c) {
  switch (c) {
    case 'L':
      return LoopKind::kSerial;
    case 'B':
      return LoopKind::kBound;
    case 'P':
      return LoopKind::kParallel;
    case 'V':
      return LoopKind::kVectorized;
    case 'U':
      return LoopKind::kUnrolled;
    default:
      return std::nullopt;
  }
}

std::string_view loop_kind_name(LoopKind k) {
  switch (k) {
    case LoopKind::kSerial:
      return "serial";
    case LoopKind::kBound:
      return "bound";
    case LoopKind::kParallel:
      return "parallel";
    case LoopKind::kVectorized:
      return "vectorized";
    case LoopKind::kUnrolled:
      return "unrolled";
  }
  return "?";
}

std::string_view binary_op_spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kPow:
      return "**";
    case BinaryOp::kAnd:
      return "&";
    case BinaryOp::kOr:
      return "|";
  }
  return "?";
}

std::string_view compare_op_spelling(CompareOp op) {
  switch (op) {
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
    case CompareOp::kEq:
      return "==";
    case CompareOp::kNe:
      return "!=";
  }
  return "?";
}

std::string_view function_name(Function f) {
  switch (f) {
    case Function::kMax:
      return "max";
    case Function::kMin:
      return "min";
    case Function::kExp:
      return "exp";
    case Function::kLog:
      return "log";
    case Function::kSqrt:
      return "sqrt";
    case Function::kAbs:
      return "abs";
    case Function::kErf:
      return "erf";
    case Function::kIfThenElse:
      return "if_then_else";
  }
  return "?";
}

std::optional<Function> function_from_name(std::string_view s) {
  for (Function f : {Function::kMax, Function::kMin, Function::kExp, Function::kLog,
                     Function::kSqrt, Function::kAbs, Function::kErf, Function::kIfThenElse})
    if (function_name(f) == s) return f;
  return std::nullopt;
}

int function_arity(Function f) {
  switch (f) {
    case Function::kMax:
    case Function::kMin:
      return 2;
    case Function::kIfThenElse:
      return 3;
    case Function::kExp:
    case Function::kLog:
    case Function::kSqrt:
    case Function::kAbs:
    case Function::kErf:
      return 1;
  }
  return 1;
}

std::string_view tensor_role_name(TensorRole r) {
  switch (r) {
    case TensorRole::kInput:
      return "input";
    case TensorRole::kParam:
      return "param";
    case TensorRole::kConst:
      return "const";
    case TensorRole::kOutput:
      return "output";
    case TensorRole::kIntermediate:
      return "intermediate";
  }
  return "?";
}

std::optional<TensorRole> tensor_role_from_name(std::string_view s) {
  if (s == "input") return TensorRole::kInput;
  if (s == "param") return TensorRole::kParam;
  if (s == "const") return TensorRole::kConst;
  if (s == "output") return TensorRole::kOutput;
  return std::nullopt;
}

const TensorDecl* Program::find_decl(std::string_view name) const {
  for (const auto& d : decls)
    if (d.name == name) return &d;
  return nullptr;
}

bool operator==(const Stmt& a, const Stmt& b) { return equal(a.lhs, b.lhs) && equal(a.rhs, b.rhs); }
}  // namespace steptp::leir
