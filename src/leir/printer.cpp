// leir/printer.cpp — canonical LEIR text (see printer.h).
//
// Parentheses: a node marked grouped always gets them (so parsed text prints back verbatim);
// otherwise only where precedence needs them: a tighter-or-equal right operand of a
// left-associative operator, a non-primary power base, a comparison inside a comparison chain,
// a non-unary operand of '-'. A power's exponent is bare only when it is a plain number literal,
// because the reference lowering accepts no other unparenthesised exponent.
#include "leir/printer.h"

#include <string>

namespace steptp::leir {
namespace {

// Binding strength, loosest first; kPrimary needs no parentheses anywhere.
enum Precedence : int {
  kOr = 1,
  kAnd = 2,
  kCompare = 3,
  kAdditive = 4,
  kMultiplicative = 5,
  kUnary = 6,
  kPower = 7,
  kPrimary = 8,
};

int precedence(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kNumber:
    case ExprKind::kInf:
    case ExprKind::kIndexVar:
    case ExprKind::kAccess:
    case ExprKind::kCall:
      return kPrimary;
    case ExprKind::kNeg:
      return kUnary;
    case ExprKind::kCompare:
      return kCompare;
    case ExprKind::kBinary:
      switch (e.binary_op()) {
        case BinaryOp::kOr:
          return kOr;
        case BinaryOp::kAnd:
          return kAnd;
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
          return kAdditive;
        case BinaryOp::kMul:
        case BinaryOp::kDiv:
        case BinaryOp::kFloorDiv:
        case BinaryOp::kMod:
          return kMultiplicative;
        case BinaryOp::kPow:
          return kPower;
      }
      break;
  }
  return kPrimary;
}

void print_to(std::string& out, const Expr& e);

// Prints `e` as an operand, in parentheses when it is grouped or `needs_parens`.
void print_operand(std::string& out, const Expr& e, bool needs_parens) {
  if (needs_parens || e.is_grouped()) {
    out += '(';
    print_to(out, e);
    out += ')';
  } else {
    print_to(out, e);
  }
}

void print_list(std::string& out, const std::vector<ExprRef>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    print_operand(out, *items[i], false);
  }
}

// Prints the node itself; its own grouping mark is handled by the caller.
void print_to(std::string& out, const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kNumber:
      out += e.number_spelling();
      return;
    case ExprKind::kInf:
      out += "inf";
      return;
    case ExprKind::kIndexVar:
      out += e.name();
      return;
    case ExprKind::kAccess:
      out += e.name();
      out += "^{";
      out += dtype_name(e.dtype());
      out += ',';
      out += scope_letter(e.scope());
      out += '}';
      if (!e.indices().empty()) {
        out += "_{";
        print_list(out, e.indices());
        out += '}';
      }
      return;
    case ExprKind::kNeg:
      out += '-';
      print_operand(out, *e.operand(), precedence(*e.operand()) < kUnary);
      return;
    case ExprKind::kBinary: {
      const Expr& lhs = *e.lhs();
      const Expr& rhs = *e.rhs();
      if (e.binary_op() == BinaryOp::kPow) {
        print_operand(out, lhs, precedence(lhs) < kPrimary);
        out += "**";
        print_operand(out, rhs, rhs.kind() != ExprKind::kNumber);
        return;
      }
      int p = precedence(e);
      print_operand(out, lhs, precedence(lhs) < p);
      out += binary_op_spelling(e.binary_op());
      print_operand(out, rhs, precedence(rhs) <= p);
      return;
    }
    case ExprKind::kCompare: {
      const auto& operands = e.operands();
      for (size_t i = 0; i < operands.size(); ++i) {
        if (i > 0) out += compare_op_spelling(e.compare_ops()[i - 1]);
        print_operand(out, *operands[i], precedence(*operands[i]) <= kCompare);
      }
      return;
    }
    case ExprKind::kCall:
      out += function_name(e.function());
      out += '(';
      print_list(out, e.args());
      out += ')';
      return;
  }
}

void print_block_to(std::string& out, const Block& b) {
  for (const Loop& l : b.loops) out += print(l);
  out += '[';
  for (const Item& item : b.body) {
    if (item.is_stmt()) {
      out += print(*item.stmt);
      out += ';';
    } else {
      print_block_to(out, *item.block);
    }
  }
  out += "];";
}

}  // namespace

std::string print(const Expr& e) {
  std::string out;
  print_operand(out, e, false);
  return out;
}

std::string print(const ExprRef& e) { return print(*e); }

std::string print(const Stmt& s) { return print(*s.lhs) + "=" + print(*s.rhs); }

std::string print(const Loop& l) {
  return std::string(1, loop_kind_letter(l.kind)) + "^{" + std::to_string(l.extent) + "}_{" +
         l.var + "=0}";
}

std::string print(const Block& b) {
  std::string out;
  print_block_to(out, b);
  return out;
}

std::string print_body(const std::vector<Block>& blocks) {
  std::string out;
  for (const Block& b : blocks) print_block_to(out, b);
  return out;
}

std::string print(const TensorDecl& d) {
  std::string out(tensor_role_name(d.role));
  out += ' ';
  out += d.name;
  out += ' ';
  out += dtype_name(d.dtype);
  out += '[';
  for (size_t i = 0; i < d.shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(d.shape[i]);
  }
  out += ']';
  return out;
}

std::string print_program(const Program& p) {
  std::string out;
  for (const TensorDecl& d : p.decls) {
    out += print(d);
    out += '\n';
  }
  out += print_body(p.blocks);
  out += '\n';
  return out;
}

}  // namespace steptp::leir
