// leir/ir.h — the LEIR intermediate representation: types, expression nodes, statements, loop
// nests, tensor declarations and the Program value.
//
// Nodes are immutable values: expressions are shared `const Expr` trees built only through the
// checked factories below (Expr::number, Expr::access, ...), statements and blocks are plain
// values that copy cheaply. One list of node kinds (ExprKind) drives printer, equality, hashing
// and the visitors; switches over it have no `default:`. Parsing and printing live elsewhere.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace steptp::leir {

// ---------------------------------------------------------------------------------------------
// Scalar types, scopes, loop kinds
// ---------------------------------------------------------------------------------------------

enum class DType : uint8_t {
  kF16,
  kBF16,
  kF32,
  kF64,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kBool,
  kC64,
  kC128,
  kF8E4M3FN,
  kF8E4M3FNUZ,
  kF8E5M2,
  kU4,
  kI4,
};
inline constexpr DType kAllDTypes[] = {
    DType::kF16,      DType::kBF16,       DType::kF32,    DType::kF64, DType::kI8,
    DType::kI16,      DType::kI32,        DType::kI64,    DType::kU8,  DType::kU16,
    DType::kU32,      DType::kU64,        DType::kBool,   DType::kC64, DType::kC128,
    DType::kF8E4M3FN, DType::kF8E4M3FNUZ, DType::kF8E5M2, DType::kU4,  DType::kI4};

std::string_view dtype_name(DType t);                      // "f64", "bf16", "bool", ...
std::optional<DType> dtype_from_name(std::string_view s);  // inverse of dtype_name
bool is_float(DType t);       // f16 bf16 f32 f64 (the fp8 types count too)
bool is_integer(DType t);     // signed/unsigned ints incl. u4/i4
bool is_complex(DType t);     // c64 c128: parsed and printed, not executable
bool is_executable(DType t);  // what the interpreter and code generators support

enum class Scope : uint8_t { kGlobal, kShared, kLocal };
char scope_letter(Scope s);            // 'g' 's' 'l'
std::string_view scope_word(Scope s);  // "global" "shared" "local"
std::optional<Scope> scope_from_letter(char c);

enum class LoopKind : uint8_t { kSerial, kBound, kParallel, kVectorized, kUnrolled };
char loop_kind_letter(LoopKind k);  // 'L' 'B' 'P' 'V' 'U'
std::optional<LoopKind> loop_kind_from_letter(char c);
std::string_view loop_kind_name(LoopKind k);  // "serial", "bound", ...

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

// The one list of expression node kinds.
enum class ExprKind : uint8_t {
  kNumber,    // 2, 0.5, 1e-05            (value + the spelling it was written with)
  kInf,       // inf                      (-inf is kNeg of kInf)
  kIndexVar,  // a, tx, bza               (a loop variable, integer valued)
  kAccess,    // A^{f64,g}_{tx,a}         (tensor reference; no indices = 0-d scalar)
  kNeg,       // -e
  kBinary,    // e op e                   (+ - * / // % ** & |)
  kCompare,   // e0 < e1 <= e2 ...        (Python-style chain of one or more comparisons)
  kCall,      // max(a,b) exp(x) if_then_else(c,t,f) ...
};

enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kAnd, kOr };
std::string_view binary_op_spelling(BinaryOp op);  // "+", "//", "**", "&", ...

enum class CompareOp : uint8_t { kLt, kLe, kGt, kGe, kEq, kNe };
std::string_view compare_op_spelling(CompareOp op);

enum class Function : uint8_t { kMax, kMin, kExp, kLog, kSqrt, kAbs, kErf, kIfThenElse };
std::string_view function_name(Function f);
std::optional<Function> function_from_name(std::string_view s);
int function_arity(Function f);  // 2 for max/min, 3 for if_then_else, 1 otherwise

class Expr;
using ExprRef = std::shared_ptr<const Expr>;

// An immutable expression node. Fields are read through accessors; which ones are meaningful
// depends on kind() and is checked (STEPTP_CHECK) by the accessors.
class Expr {
 public:
  // ---- checked factories (the only way to make nodes) ----
  // A number from its source spelling (must be a valid LEIR number: digits[.digits][e[+-]digits]).
  static ExprRef number_from_spelling(std::string spelling);
  // A number from a value; spelled as an integer when integral and |v| < 2^53, else shortest
  // round-trip decimal. Negative values become kNeg of the absolute value.
  static ExprRef number(double value);
  static ExprRef integer(int64_t value);  // negative values become kNeg
  static ExprRef inf();
  static ExprRef index_var(std::string name);
  static ExprRef access(std::string tensor, DType dtype, Scope scope, std::vector<ExprRef> indices);
  static ExprRef neg(ExprRef operand);
  static ExprRef binary(BinaryOp op, ExprRef lhs, ExprRef rhs);
  static ExprRef compare(std::vector<ExprRef> operands, std::vector<CompareOp> ops);
  static ExprRef call(Function f, std::vector<ExprRef> args);
  // The same node marked as written inside parentheses in the source (printing keeps them so
  // that a parsed program prints back to the identical text). Equality ignores the mark.
  static ExprRef grouped(const ExprRef& e);
  static ExprRef ungrouped(const ExprRef& e);

  ExprKind kind() const { return kind_; }
  bool is_grouped() const { return grouped_; }
  size_t hash() const { return hash_; }

  // kNumber
  double number_value() const;
  const std::string& number_spelling() const;
  bool is_integer_literal() const;  // spelled without '.' or exponent
  // kIndexVar: the variable; kAccess: the tensor name
  const std::string& name() const;
  // kAccess
  DType dtype() const;
  Scope scope() const;
  const std::vector<ExprRef>& indices() const;
  // kNeg
  const ExprRef& operand() const;
  // kBinary
  BinaryOp binary_op() const;
  const ExprRef& lhs() const;
  const ExprRef& rhs() const;
  // kCompare: operands().size() == compare_ops().size() + 1
  const std::vector<ExprRef>& operands() const;
  const std::vector<CompareOp>& compare_ops() const;
  // kCall
  Function function() const;
  const std::vector<ExprRef>& args() const;

  // Generic children in source order (indices, operand, lhs/rhs, operands, args).
  const std::vector<ExprRef>& children() const { return children_; }
  // The same node with other children (same count); used by the mutator.
  ExprRef with_children(std::vector<ExprRef> children) const;

 private:
  struct Token {};

 public:
  explicit Expr(Token) {}

 private:
  void seal();  // computes the hash after construction

  ExprKind kind_ = ExprKind::kNumber;
  bool grouped_ = false;
  bool integer_literal_ = false;
  DType dtype_ = DType::kF64;
  Scope scope_ = Scope::kGlobal;
  BinaryOp binary_op_ = BinaryOp::kAdd;
  Function function_ = Function::kMax;
  double number_value_ = 0.0;
  std::string text_;  // number spelling / variable name / tensor name
  std::vector<CompareOp> compare_ops_;
  std::vector<ExprRef> children_;
  size_t hash_ = 0;
};

// Structural equality: same kinds, names, types and values; ignores parentheses marks and
// number spellings that denote the same value with the same integer-ness ("1e2" vs "100.0"
// differ only in spelling).
bool equal(const Expr& a, const Expr& b);
bool equal(const ExprRef& a, const ExprRef& b);

// ---------------------------------------------------------------------------------------------
// Statements, loops, blocks
// ---------------------------------------------------------------------------------------------

struct Stmt {
  ExprRef lhs;  // always a kAccess
  ExprRef rhs;
};

struct Loop {
  LoopKind kind = LoopKind::kSerial;
  int64_t extent = 1;  // >= 1
  std::string var;
};

struct Item;

// A loop header (possibly empty) and a body of statements and nested blocks.
struct Block {
  std::vector<Loop> loops;  // outermost first
  std::vector<Item> body;
};

struct Item {
  // Exactly one of the two is set; a nested block is held by pointer to keep Item small.
  std::optional<Stmt> stmt;
  std::shared_ptr<const Block> block;

  static Item of(Stmt s);
  static Item of(Block b);
  bool is_stmt() const { return stmt.has_value(); }
  bool is_block() const { return block != nullptr; }
};

// ---------------------------------------------------------------------------------------------
// Declarations and programs
// ---------------------------------------------------------------------------------------------

enum class TensorRole : uint8_t { kInput, kParam, kConst, kOutput, kIntermediate };
std::string_view tensor_role_name(TensorRole r);  // "input" "param" "const" "output" "intermediate"
std::optional<TensorRole> tensor_role_from_name(std::string_view s);  // not "intermediate"

struct TensorDecl {
  std::string name;
  TensorRole role = TensorRole::kInput;
  DType dtype = DType::kF64;
  std::vector<int64_t> shape;  // empty = 0-d scalar
};

// A LEIR program: the declared (known) tensors in argument order, and the body's top-level
// blocks in execution order. Intermediates are not declared; see tensor_table.h.
struct Program {
  std::vector<TensorDecl> decls;
  std::vector<Block> blocks;

  const TensorDecl* find_decl(std::string_view name) const;
};

bool operator==(const Stmt& a, const Stmt& b);
bool operator==(const Loop& a, const Loop& b);
bool operator==(const Block& a, const Block& b);
bool operator==(const Item& a, const Item& b);
bool operator==(const TensorDecl& a, const TensorDecl& b);
bool operator==(const Program& a, const Program& b);

size_t hash_value(const Block& b);
size_t hash_value(const Program& p);  // structural; equal programs hash equal

int64_t element_count(const std::vector<int64_t>& shape);  // 1 for a scalar; saturates at INT64_MAX

// Tensor-name and loop-variable spelling rules of the surface syntax.
bool is_tensor_name(std::string_view s);     // [A-Z][a-z]*
bool is_index_var_name(std::string_view s);  // [a-z]+, not a function name, not "inf"

}  // namespace steptp::leir
