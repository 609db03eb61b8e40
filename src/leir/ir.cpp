// leir/ir.cpp — expression nodes (checked constructors, hashing, equality), items, and the
// program's equality and hash. The names and spellings of the IR's enumerations are in
// ir_names.cpp.
#include "leir/ir.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

#include "support/error.h"

namespace steptp::leir {
namespace {

size_t mix(size_t seed, size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

bool valid_number_spelling(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void Expr::seal() {
  size_t h = std::hash<int>()(static_cast<int>(kind_));
  switch (kind_) {
    case ExprKind::kNumber:
      h = mix(h, std::hash<double>()(number_value_));
      h = mix(h, integer_literal_);
      break;
    case ExprKind::kInf:
      break;
    case ExprKind::kIndexVar:
      h = mix(h, std::hash<std::string>()(text_));
      break;
    case ExprKind::kAccess:
      h = mix(h, std::hash<std::string>()(text_));
      h = mix(h, static_cast<size_t>(dtype_) * 4 + static_cast<size_t>(scope_));
      break;
    case ExprKind::kNeg:
      break;
    case ExprKind::kBinary:
      h = mix(h, static_cast<size_t>(binary_op_));
      break;
    case ExprKind::kCompare:
      for (CompareOp op : compare_ops_) h = mix(h, static_cast<size_t>(op));
      break;
    case ExprKind::kCall:
      h = mix(h, static_cast<size_t>(function_));
      break;
  }
  for (const ExprRef& c : children_) h = mix(h, c->hash());
  hash_ = h;
}

ExprRef Expr::number_from_spelling(std::string spelling) {
  STEPTP_CHECK(valid_number_spelling(spelling), "not a LEIR number: '" + spelling + "'");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kNumber;
  e->integer_literal_ = spelling.find_first_of(".eE") == std::string::npos;
  e->number_value_ = std::strtod(spelling.c_str(), nullptr);
  e->text_ = std::move(spelling);
  e->seal();
  return e;
}

ExprRef Expr::number(double value) {
  STEPTP_CHECK(!std::isnan(value), "a LEIR literal cannot be NaN");
  if (std::isinf(value)) return value > 0 ? inf() : neg(inf());
  if (value < 0 || (value == 0 && std::signbit(value))) return neg(number(-value));
  if (value == std::floor(value) && value < 9007199254740992.0)
    return integer(static_cast<int64_t>(value));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value);
  std::string s(buf, res.ptr);
  // to_chars may print "1e+20" or "5e-06": both are valid LEIR spellings. It never prints a
  // bare integer here because integral values were handled above.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return number_from_spelling(std::move(s));
}

ExprRef Expr::integer(int64_t value) {
  if (value < 0) {
    STEPTP_CHECK(value != std::numeric_limits<int64_t>::min(), "integer literal out of range");
    return neg(integer(-value));
  }
  return number_from_spelling(std::to_string(value));
}

ExprRef Expr::inf() {
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kInf;
  e->number_value_ = std::numeric_limits<double>::infinity();
  e->seal();
  return e;
}

ExprRef Expr::index_var(std::string name) {
  STEPTP_CHECK(is_index_var_name(name), "not a loop variable name: '" + name + "'");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kIndexVar;
  e->text_ = std::move(name);
  e->seal();
  return e;
}

ExprRef Expr::access(std::string tensor, DType dtype, Scope scope, std::vector<ExprRef> indices) {
  STEPTP_CHECK(is_tensor_name(tensor), "not a tensor name: '" + tensor + "'");
  for (const auto& i : indices) STEPTP_CHECK(i != nullptr, "null index expression");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kAccess;
  e->text_ = std::move(tensor);
  e->dtype_ = dtype;
  e->scope_ = scope;
  e->children_ = std::move(indices);
  e->seal();
  return e;
}

ExprRef Expr::neg(ExprRef operand) {
  STEPTP_CHECK(operand != nullptr, "null operand");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kNeg;
  e->children_ = {std::move(operand)};
  e->seal();
  return e;
}

ExprRef Expr::binary(BinaryOp op, ExprRef lhs, ExprRef rhs) {
  STEPTP_CHECK(lhs != nullptr && rhs != nullptr, "null operand");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kBinary;
  e->binary_op_ = op;
  e->children_ = {std::move(lhs), std::move(rhs)};
  e->seal();
  return e;
}

ExprRef Expr::compare(std::vector<ExprRef> operands, std::vector<CompareOp> ops) {
  STEPTP_CHECK(!ops.empty() && operands.size() == ops.size() + 1,
               "a comparison chain needs n+1 operands for n operators");
  for (const auto& o : operands) STEPTP_CHECK(o != nullptr, "null operand");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kCompare;
  e->compare_ops_ = std::move(ops);
  e->children_ = std::move(operands);
  e->seal();
  return e;
}

ExprRef Expr::call(Function f, std::vector<ExprRef> args) {
  STEPTP_CHECK(static_cast<int>(args.size()) == function_arity(f),
               std::string(function_name(f)) + " called with the wrong number of arguments");
  for (const auto& a : args) STEPTP_CHECK(a != nullptr, "null argument");
  auto e = std::make_shared<Expr>(Token{});
  e->kind_ = ExprKind::kCall;
  e->function_ = f;
  e->children_ = std::move(args);
  e->seal();
  return e;
}

ExprRef Expr::grouped(const ExprRef& e) {
  if (e->grouped_) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->grouped_ = true;
  return copy;
}

ExprRef Expr::ungrouped(const ExprRef& e) {
  if (!e->grouped_) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->grouped_ = false;
  return copy;
}

ExprRef Expr::with_children(std::vector<ExprRef> children) const {
  STEPTP_CHECK(children.size() == children_.size(), "with_children: child count changed");
  auto copy = std::make_shared<Expr>(*this);
  copy->children_ = std::move(children);
  copy->seal();
  return copy;
}

double Expr::number_value() const {
  STEPTP_CHECK(kind_ == ExprKind::kNumber, "number_value() of a non-number");
  return number_value_;
}
const std::string& Expr::number_spelling() const {
  STEPTP_CHECK(kind_ == ExprKind::kNumber, "number_spelling() of a non-number");
  return text_;
}
bool Expr::is_integer_literal() const { return kind_ == ExprKind::kNumber && integer_literal_; }
const std::string& Expr::name() const {
  STEPTP_CHECK(kind_ == ExprKind::kIndexVar || kind_ == ExprKind::kAccess,
               "name() of a node without a name");
  return text_;
}
DType Expr::dtype() const {
  STEPTP_CHECK(kind_ == ExprKind::kAccess, "dtype() of a non-access");
  return dtype_;
}
Scope Expr::scope() const {
  STEPTP_CHECK(kind_ == ExprKind::kAccess, "scope() of a non-access");
  return scope_;
}
const std::vector<ExprRef>& Expr::indices() const {
  STEPTP_CHECK(kind_ == ExprKind::kAccess, "indices() of a non-access");
  return children_;
}
const ExprRef& Expr::operand() const {
  STEPTP_CHECK(kind_ == ExprKind::kNeg, "operand() of a non-negation");
  return children_[0];
}
BinaryOp Expr::binary_op() const {
  STEPTP_CHECK(kind_ == ExprKind::kBinary, "binary_op() of a non-binary");
  return binary_op_;
}
const ExprRef& Expr::lhs() const {
  STEPTP_CHECK(kind_ == ExprKind::kBinary, "lhs() of a non-binary");
  return children_[0];
}
const ExprRef& Expr::rhs() const {
  STEPTP_CHECK(kind_ == ExprKind::kBinary, "rhs() of a non-binary");
  return children_[1];
}
const std::vector<ExprRef>& Expr::operands() const {
  STEPTP_CHECK(kind_ == ExprKind::kCompare, "operands() of a non-comparison");
  return children_;
}
const std::vector<CompareOp>& Expr::compare_ops() const {
  STEPTP_CHECK(kind_ == ExprKind::kCompare, "compare_ops() of a non-comparison");
  return compare_ops_;
}
Function Expr::function() const {
  STEPTP_CHECK(kind_ == ExprKind::kCall, "function() of a non-call");
  return function_;
}
const std::vector<ExprRef>& Expr::args() const {
  STEPTP_CHECK(kind_ == ExprKind::kCall, "args() of a non-call");
  return children_;
}

bool equal(const Expr& a, const Expr& b) {
  if (&a == &b) return true;
  if (a.kind() != b.kind() || a.hash() != b.hash()) return false;
  switch (a.kind()) {
    case ExprKind::kNumber:
      if (a.number_value() != b.number_value() || a.is_integer_literal() != b.is_integer_literal())
        return false;
      break;
    case ExprKind::kInf:
      break;
    case ExprKind::kIndexVar:
      if (a.name() != b.name()) return false;
      break;
    case ExprKind::kAccess:
      if (a.name() != b.name() || a.dtype() != b.dtype() || a.scope() != b.scope()) return false;
      break;
    case ExprKind::kNeg:
      break;
    case ExprKind::kBinary:
      if (a.binary_op() != b.binary_op()) return false;
      break;
    case ExprKind::kCompare:
      if (a.compare_ops() != b.compare_ops()) return false;
      break;
    case ExprKind::kCall:
      if (a.function() != b.function()) return false;
      break;
  }
  const auto& ca = a.children();
  const auto& cb = b.children();
  if (ca.size() != cb.size()) return false;
  for (size_t i = 0; i < ca.size(); ++i)
    if (!equal(*ca[i], *cb[i])) return false;
  return true;
}

bool equal(const ExprRef& a, const ExprRef& b) {
  if (!a || !b) return a == b;
  return equal(*a, *b);
}

// ---------------------------------------------------------------------------------------------

Item Item::of(Stmt s) {
  STEPTP_CHECK(s.lhs && s.lhs->kind() == ExprKind::kAccess, "statement lhs must be an access");
  STEPTP_CHECK(s.rhs != nullptr, "statement without rhs");
  Item i;
  i.stmt = std::move(s);
  return i;
}

Item Item::of(Block b) {
  Item i;
  i.block = std::make_shared<const Block>(std::move(b));
  return i;
}

bool operator==(const Loop& a, const Loop& b) {
  return a.kind == b.kind && a.extent == b.extent && a.var == b.var;
}
bool operator==(const Item& a, const Item& b) {
  if (a.is_stmt() != b.is_stmt()) return false;
  if (a.is_stmt()) return *a.stmt == *b.stmt;
  return *a.block == *b.block;
}
bool operator==(const Block& a, const Block& b) { return a.loops == b.loops && a.body == b.body; }
bool operator==(const TensorDecl& a, const TensorDecl& b) {
  return a.name == b.name && a.role == b.role && a.dtype == b.dtype && a.shape == b.shape;
}
bool operator==(const Program& a, const Program& b) {
  return a.decls == b.decls && a.blocks == b.blocks;
}

size_t hash_value(const Block& b) {
  size_t h = 0x51ed27;
  for (const Loop& l : b.loops) {
    h = mix(h, static_cast<size_t>(l.kind));
    h = mix(h, std::hash<int64_t>()(l.extent));
    h = mix(h, std::hash<std::string>()(l.var));
  }
  for (const Item& i : b.body) {
    if (i.is_stmt()) {
      h = mix(h, i.stmt->lhs->hash());
      h = mix(h, i.stmt->rhs->hash());
    } else {
      h = mix(h, hash_value(*i.block));
    }
  }
  return h;
}

size_t hash_value(const Program& p) {
  size_t h = 0x7a3b;
  for (const TensorDecl& d : p.decls) {
    h = mix(h, std::hash<std::string>()(d.name));
    h = mix(h, static_cast<size_t>(d.role) * 64 + static_cast<size_t>(d.dtype));
    for (int64_t s : d.shape) h = mix(h, std::hash<int64_t>()(s));
  }
  for (const Block& b : p.blocks) h = mix(h, hash_value(b));
  return h;
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s <= 0) return 0;
    if (n > std::numeric_limits<int64_t>::max() / s) return std::numeric_limits<int64_t>::max();
    n *= s;
  }
  return n;
}

bool is_tensor_name(std::string_view s) {
  if (s.empty() || s[0] < 'A' || s[0] > 'Z') return false;
  for (size_t i = 1; i < s.size(); ++i)
    if (s[i] < 'a' || s[i] > 'z') return false;
  return true;
}

bool is_index_var_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < 'a' || c > 'z') return false;
  return s != "inf" && !function_from_name(s).has_value();
}

}  // namespace steptp::leir
