// leir/parser.cpp — recursive-descent parser for LEIR bodies, expressions and program files.
//
// Every recursion (nested blocks, parentheses, subscripts, call arguments, unary minus, power
// exponents) is counted against ParseLimits::max_nesting_depth, and every expression tree's
// height against kMaxExprHeight, so no input can exhaust the stack here or in the recursive
// printer, equality and destructors downstream. Errors unwind through a private exception that
// never leaves this file: the public functions return Result.
#include "leir/parser.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "leir/lexer.h"

namespace steptp::leir {
namespace {

// Longest operator chain in one expression (a+b+c+... of this many terms). Far above anything
// real programs contain; it keeps recursive consumers of the tree within a small stack.
constexpr int kMaxExprHeight = 4096;
constexpr int64_t kMaxExtent = int64_t{1} << 62;

constexpr std::string_view kDTypeList =
    "f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool, c64, c128, f8e4m3fn, "
    "f8e4m3fnuz, f8e5m2, u4, i4";
constexpr std::string_view kFunctionList = "max, min, exp, log, sqrt, abs, erf, if_then_else";

// Thrown inside this file only; converted to a Result at the API boundary.
struct ParseFailure {
  Error error;
};

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kUpperWord:
    case TokenKind::kLowerWord:
    case TokenKind::kNumber:
    case TokenKind::kPunct:
    case TokenKind::kError:
      break;
  }
  constexpr size_t kShown = 24;
  if (t.text.size() > kShown) return "'" + std::string(t.text.substr(0, kShown)) + "...'";
  return "'" + std::string(t.text) + "'";
}

// Parses a decimal integer without overflow; nullopt if not all digits or above `limit`.
std::optional<int64_t> parse_bounded_integer(std::string_view s, int64_t limit) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (v > (limit - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

struct Node {
  ExprRef e;
  int height = 1;
};

class Parser {
 public:
  Parser(std::string_view text, size_t begin, std::string_view file, const ParseLimits& limits)
      : text_(text), file_(file), limits_(limits), lex_(text, begin) {}

  std::vector<Block> body() {
    std::vector<Block> blocks;
    while (lex_.peek().kind != TokenKind::kEnd) blocks.push_back(block(/*top_level=*/true));
    if (blocks.empty())
      fail(lex_.peek(), "expected a block such as 'B^{16}_{tx=0}[...;];', found end of input");
    return blocks;
  }

  ExprRef whole_expr() {
    ExprRef e = expr().e;
    if (lex_.peek().kind != TokenKind::kEnd)
      fail(lex_.peek(),
           "expected an operator or the end of the expression, found " + describe(lex_.peek()));
    return e;
  }

 private:
  // ---- errors -------------------------------------------------------------------------------
  [[noreturn]] void fail_at(size_t offset, std::string message) {
    TextPosition p = position_of(text_, offset);
    Diagnostic d;
    d.where = SourceLocation{std::string(file_), p.line, p.column};
    d.message = std::move(message);
    // Keep only what the caret rendering can show; a one-line program can be megabytes.
    size_t keep = static_cast<size_t>(p.column) + 200;
    d.source_line = std::string(p.line_text.substr(0, keep));
    throw ParseFailure{Error::at("parse_error", std::move(d))};
  }
  [[noreturn]] void fail(const Token& t, std::string message) {
    if (t.kind == TokenKind::kError) fail_at(t.offset, lex_.error_message());
    fail_at(t.offset, std::move(message));
  }
  void expect(std::string_view punct, std::string_view what) {
    const Token& t = lex_.peek();
    if (!t.is(punct)) fail(t, std::string(what) + ", found " + describe(t));
    lex_.next();
  }

  // ---- depth accounting ---------------------------------------------------------------------
  struct DepthGuard {
    explicit DepthGuard(Parser& p, const Token& at) : parser(p) {
      if (++parser.depth_ > parser.limits_.max_nesting_depth)
        parser.fail_at(at.offset, "nesting is deeper than the limit of " +
                                      std::to_string(parser.limits_.max_nesting_depth) +
                                      " (blocks, parentheses and subscripts together)");
    }
    ~DepthGuard() { --parser.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Parser& parser;
  };

  Node make(ExprRef e, int height, size_t offset) {
    if (height > kMaxExprHeight)
      fail_at(offset, "expression is too large: more than " + std::to_string(kMaxExprHeight) +
                          " nested operators; split it into several statements");
    return Node{std::move(e), height};
  }

  // ---- blocks and loops ---------------------------------------------------------------------
  bool at_loop_header() {
    return lex_.peek(0).kind == TokenKind::kUpperWord && lex_.peek(1).is("^") &&
           lex_.peek(2).is("{") && lex_.peek(3).kind == TokenKind::kNumber;
  }

  Block block(bool top_level) {
    const Token& first = lex_.peek();
    DepthGuard guard(*this, first);
    Block b;
    while (at_loop_header()) b.loops.push_back(loop());
    const Token& t = lex_.peek();
    if (!t.is("[")) {
      if (b.loops.empty() && top_level) top_level_start_error(t);
      fail(t, "expected another loop header or '[' to open the block's body, found " + describe(t));
    }
    lex_.next();
    while (!lex_.peek().is("]")) {
      const Token& it = lex_.peek();
      if (it.is("[") || at_loop_header()) {
        b.body.push_back(Item::of(block(/*top_level=*/false)));
      } else if (it.kind == TokenKind::kUpperWord) {
        b.body.push_back(Item::of(statement()));
      } else if (it.kind == TokenKind::kEnd) {
        fail(it, "block is missing its closing ']' (found end of input)");
      } else {
        fail(it,
             "expected a statement (a tensor such as 'C^{f64,g}_{tx}=...') or a nested "
             "block, found " +
                 describe(it));
      }
    }
    if (b.body.empty())
      fail(lex_.peek(), "a block needs at least one statement; found ']' right after '['");
    lex_.next();  // ']'
    expect(";", "block is missing its ';' after ']'; expected ';'");
    return b;
  }

  [[noreturn]] void top_level_start_error(const Token& t) {
    if (t.kind == TokenKind::kLowerWord && tensor_role_from_name(t.text))
      fail(t, "declaration '" + std::string(t.text) +
                  "' after the body started; declarations must come before the first block");
    if (t.kind == TokenKind::kUpperWord)
      fail(t, "expected a loop header such as 'L^{8}_{a=0}' or '[' to start a block, found " +
                  describe(t) + "; statements must be inside a block's [...]");
    fail(t, "expected a loop header such as 'L^{8}_{a=0}' or '[' to start a block, found " +
                describe(t));
  }

  Loop loop() {
    Token kind = lex_.next();
    std::optional<LoopKind> k;
    if (kind.text.size() == 1) k = loop_kind_from_letter(kind.text[0]);
    if (!k) fail(kind, "unknown loop kind " + describe(kind) + " (expected L, B, P, V or U)");
    lex_.next();  // '^'
    lex_.next();  // '{'
    Token ext = lex_.next();
    if (!all_digits(ext.text))
      fail(ext, "loop extent must be a decimal integer, found " + describe(ext));
    std::optional<int64_t> extent = parse_bounded_integer(ext.text, kMaxExtent);
    if (!extent)
      fail(ext, "loop extent " + describe(ext) + " exceeds the limit 2^62 (" +
                    std::to_string(kMaxExtent) + ")");
    if (*extent < 1) fail(ext, "loop extent must be at least 1, found " + describe(ext));
    expect("}", "expected '}' after the loop extent");
    expect("_", "expected '_{var=0}' after the loop extent");
    expect("{", "expected '{' to open the loop variable '_{var=0}'");
    Token var = lex_.next();
    if (var.kind != TokenKind::kLowerWord)
      fail(var,
           "expected a loop variable (lower-case letters) in '_{var=0}', found " + describe(var));
    check_index_var_name(var);
    expect("=", "expected '=0' after the loop variable");
    Token start = lex_.peek();
    if (!(start.kind == TokenKind::kNumber && start.text == "0"))
      fail(start,
           "loop start must be 0 (loops always run from 0 to extent-1), found " + describe(start));
    lex_.next();
    expect("}", "expected '}' after the loop start");
    return Loop{*k, *extent, std::string(var.text)};
  }

  void check_index_var_name(const Token& var) {
    if (is_index_var_name(var.text)) return;
    if (var.text == "inf" || function_from_name(var.text))
      fail(var, describe(var) + " is reserved and cannot name a loop variable");
    fail(var, describe(var) + " is not a valid loop variable name (lower-case letters only)");
  }

  Stmt statement() {
    ExprRef lhs = access().e;
    expect("=", "expected '=' after the statement's left-hand side");
    ExprRef rhs = expr().e;
    expect(";", "statement is missing its ';'; expected ';' after the statement");
    return Stmt{std::move(lhs), std::move(rhs)};
  }

  // ---- expressions --------------------------------------------------------------------------
  Node expr() {
    DepthGuard guard(*this, lex_.peek());
    return or_expr();
  }

  Node binary_level(Node (Parser::*operand)(),
                    std::initializer_list<std::pair<std::string_view, BinaryOp>> ops) {
    Node lhs = (this->*operand)();
    for (;;) {
      const Token& t = lex_.peek();
      std::optional<BinaryOp> op;
      for (const auto& [spelling, o] : ops)
        if (t.is(spelling)) op = o;
      if (!op) return lhs;
      size_t at = t.offset;
      lex_.next();
      Node rhs = (this->*operand)();
      lhs = make(Expr::binary(*op, lhs.e, rhs.e), std::max(lhs.height, rhs.height) + 1, at);
    }
  }

  Node or_expr() { return binary_level(&Parser::and_expr, {{"|", BinaryOp::kOr}}); }
  Node and_expr() { return binary_level(&Parser::compare_chain, {{"&", BinaryOp::kAnd}}); }

  Node compare_chain() {
    Node first = add_expr();
    std::vector<ExprRef> operands{first.e};
    std::vector<CompareOp> ops;
    int height = first.height;
    size_t at = lex_.peek().offset;
    for (;;) {
      const Token& t = lex_.peek();
      std::optional<CompareOp> op;
      if (t.is("<")) op = CompareOp::kLt;
      if (t.is("<=")) op = CompareOp::kLe;
      if (t.is(">")) op = CompareOp::kGt;
      if (t.is(">=")) op = CompareOp::kGe;
      if (t.is("==")) op = CompareOp::kEq;
      if (t.is("!=")) op = CompareOp::kNe;
      if (!op) break;
      lex_.next();
      Node next = add_expr();
      height = std::max(height, next.height);
      operands.push_back(next.e);
      ops.push_back(*op);
    }
    if (ops.empty()) return first;
    return make(Expr::compare(std::move(operands), std::move(ops)), height + 1, at);
  }

  Node add_expr() {
    return binary_level(&Parser::mul_expr, {{"+", BinaryOp::kAdd}, {"-", BinaryOp::kSub}});
  }
  Node mul_expr() {
    return binary_level(&Parser::unary, {{"*", BinaryOp::kMul},
                                         {"/", BinaryOp::kDiv},
                                         {"//", BinaryOp::kFloorDiv},
                                         {"%", BinaryOp::kMod}});
  }

  Node unary() {
    const Token& t = lex_.peek();
    if (t.is("-")) {
      size_t at = t.offset;
      DepthGuard guard(*this, t);
      lex_.next();
      Node operand = unary();
      return make(Expr::neg(operand.e), operand.height + 1, at);
    }
    return power();
  }

  Node power() {
    Node base = primary();
    const Token& t = lex_.peek();
    if (!t.is("**")) return base;
    size_t at = t.offset;
    DepthGuard guard(*this, t);
    lex_.next();
    Node exponent = unary();  // right-associative; may itself be negated: x**-1
    return make(Expr::binary(BinaryOp::kPow, base.e, exponent.e),
                std::max(base.height, exponent.height) + 1, at);
  }

  Node primary() {
    const Token t = lex_.peek();
    switch (t.kind) {
      case TokenKind::kNumber: {
        lex_.next();
        std::string spelling(t.text);
        double v = std::strtod(spelling.c_str(), nullptr);
        if (std::isinf(v))
          fail(t, "number too large: " + describe(t) + " does not fit in a double");
        return Node{Expr::number_from_spelling(std::move(spelling)), 1};
      }
      case TokenKind::kUpperWord:
        return access();
      case TokenKind::kLowerWord:
        return word();
      case TokenKind::kPunct:
        if (t.is("(")) {
          lex_.next();
          Node inner = expr();
          expect(")", "expected ')' to close the parenthesis");
          return Node{Expr::grouped(inner.e), inner.height};
        }
        break;
      case TokenKind::kEnd:
      case TokenKind::kError:
        break;
    }
    fail(t,
         "expected a value (a number, inf, a loop variable, a tensor, a function call or "
         "'('), found " +
             describe(t));
  }

  Node word() {
    const Token t = lex_.next();
    if (lex_.peek().is("(")) {
      std::optional<Function> f = function_from_name(t.text);
      if (!f)
        fail(t, "unknown function " + describe(t) + " (the functions are " +
                    std::string(kFunctionList) + ")");
      return call(*f, t);
    }
    if (t.text == "inf") return Node{Expr::inf(), 1};
    if (function_from_name(t.text))
      fail(t, "function " + describe(t) + " must be called: expected '(' after it");
    check_index_var_name(t);
    return Node{Expr::index_var(std::string(t.text)), 1};
  }

  Node call(Function f, const Token& name) {
    DepthGuard guard(*this, lex_.peek());
    lex_.next();  // '('
    std::vector<ExprRef> args;
    int height = 0;
    for (;;) {
      Node a = expr();
      height = std::max(height, a.height);
      args.push_back(a.e);
      const Token& t = lex_.peek();
      if (t.is(",")) {
        lex_.next();
        continue;
      }
      if (t.is(")")) break;
      fail(t,
           "expected ',' or ')' in the arguments of " + describe(name) + ", found " + describe(t));
    }
    lex_.next();  // ')'
    int arity = function_arity(f);
    if (static_cast<int>(args.size()) != arity)
      fail_at(name.offset, describe(name) + " takes " + std::to_string(arity) + " argument" +
                               (arity == 1 ? "" : "s") + ", found " + std::to_string(args.size()));
    return make(Expr::call(f, std::move(args)), height + 1, name.offset);
  }

  Node access() {
    const Token name = lex_.next();
    if (name.kind != TokenKind::kUpperWord)
      fail(name,
           "expected a tensor name (a capital letter followed by lower-case letters), "
           "found " +
               describe(name));
    if (!is_tensor_name(name.text))
      fail(name, describe(name) +
                     " is not a tensor name (one capital letter followed by lower-case letters)");
    if (!lex_.peek().is("^"))
      fail(lex_.peek(), "expected '^{dtype,scope}' after tensor name " + describe(name) +
                            ", found " + describe(lex_.peek()));
    lex_.next();
    expect("{", "expected '{' after '^' in a superscript");
    Token dt = lex_.next();
    std::optional<DType> dtype;
    if (dt.kind == TokenKind::kLowerWord) dtype = dtype_from_name(dt.text);
    if (!dtype) {
      if (dt.kind == TokenKind::kLowerWord)
        fail(dt, "unknown dtype " + describe(dt) + " (expected one of " + std::string(kDTypeList) +
                     ")");
      fail(dt, "expected a dtype such as f64 in the superscript of " + describe(name) + ", found " +
                   describe(dt));
    }
    expect(",", "expected ',' between dtype and scope in a superscript");
    Token sc = lex_.next();
    std::optional<Scope> scope;
    if (sc.kind == TokenKind::kLowerWord && sc.text.size() == 1)
      scope = scope_from_letter(sc.text[0]);
    if (!scope) fail(sc, "unknown scope " + describe(sc) + " (expected g, s or l)");
    expect("}", "expected '}' to close the superscript '^{dtype,scope}'");
    std::vector<ExprRef> indices;
    int height = 0;
    if (lex_.peek().is("_")) {
      DepthGuard guard(*this, lex_.peek());
      lex_.next();
      expect("{", "expected '{' after '_' to open a subscript");
      for (;;) {
        Node i = expr();
        height = std::max(height, i.height);
        indices.push_back(i.e);
        const Token& t = lex_.peek();
        if (t.is(",")) {
          lex_.next();
          continue;
        }
        if (t.is("}")) break;
        fail(t, "expected ',' or '}' in the subscript of " + describe(name) + ", found " +
                    describe(t));
      }
      lex_.next();  // '}'
    }
    return make(Expr::access(std::string(name.text), *dtype, *scope, std::move(indices)),
                height + 1, name.offset);
  }

  std::string_view text_;
  std::string_view file_;
  ParseLimits limits_;
  Lexer lex_;
  int depth_ = 0;
};

std::optional<Error> check_size(std::string_view text, const ParseLimits& limits) {
  if (text.size() <= limits.max_input_bytes) return std::nullopt;
  return Error::make("parse_error", "input is " + std::to_string(text.size()) +
                                        " bytes, over the limit of " +
                                        std::to_string(limits.max_input_bytes) + " bytes");
}

// ---- declarations -------------------------------------------------------------------------

class DeclLineParser {
 public:
  DeclLineParser(std::string_view text, size_t line_begin, size_t line_end, std::string_view file)
      : text_(text), pos_(line_begin), end_(line_end), file_(file) {}

  TensorDecl parse() {
    skip_blanks();
    std::string_view role = word();
    TensorDecl d;
    d.role = *tensor_role_from_name(role);  // the caller only hands us lines starting with a role
    need_blank("after the role '" + std::string(role) + "'");
    size_t name_at = pos_;
    std::string_view name = word();
    if (!is_tensor_name(name))
      fail(name_at,
           "expected a tensor name (a capital letter followed by lower-case letters) "
           "after '" +
               std::string(role) + "', found " + shown(name_at, name));
    d.name = std::string(name);
    need_blank("after the tensor name '" + d.name + "'");
    size_t dtype_at = pos_;
    std::string_view dt = word();
    std::optional<DType> dtype = dtype_from_name(dt);
    if (!dtype)
      fail(dtype_at, dt.empty() ? "expected a dtype such as f64 after the tensor name, found " +
                                      shown(dtype_at, dt)
                                : "unknown dtype '" + std::string(dt) + "' (expected one of " +
                                      std::string(kDTypeList) + ")");
    d.dtype = *dtype;
    skip_blanks();
    if (!take('['))
      fail(pos_,
           "expected '[' to open the shape (write [] for a scalar), found " + shown(pos_, {}));
    skip_blanks();
    if (!take(']')) {
      for (;;) {
        skip_blanks();
        size_t dim_at = pos_;
        while (pos_ < end_ && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
        std::string_view digits = text_.substr(dim_at, pos_ - dim_at);
        if (digits.empty())
          fail(dim_at, "expected a dimension (a positive integer), found " + shown(dim_at, {}));
        std::optional<int64_t> dim = parse_bounded_integer(digits, kMaxExtent);
        if (!dim) fail(dim_at, "dimension '" + std::string(digits) + "' exceeds the limit 2^62");
        if (*dim < 1) fail(dim_at, "dimension must be at least 1, found '0'");
        d.shape.push_back(*dim);
        skip_blanks();
        if (take(',')) continue;
        if (take(']')) break;
        fail(pos_, "expected ',' or ']' in the shape, found " + shown(pos_, {}));
      }
    }
    skip_blanks();
    if (pos_ < end_) fail(pos_, "unexpected " + shown(pos_, {}) + " after the declaration");
    return d;
  }

 private:
  [[noreturn]] void fail(size_t offset, std::string message) {
    TextPosition p = position_of(text_, offset);
    Diagnostic d{SourceLocation{std::string(file_), p.line, p.column}, std::move(message),
                 std::string(p.line_text.substr(0, static_cast<size_t>(p.column) + 200))};
    throw ParseFailure{Error::at("parse_error", std::move(d))};
  }
  std::string shown(size_t at, std::string_view word) {
    if (!word.empty()) return "'" + std::string(word.substr(0, 24)) + "'";
    if (at >= end_) return "end of line";
    return "'" + std::string(1, text_[at]) + "'";
  }
  void skip_blanks() {
    while (pos_ < end_ && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  void need_blank(const std::string& where) {
    if (pos_ < end_ && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      skip_blanks();
      return;
    }
    fail(pos_, "expected a space " + where + ", found " + shown(pos_, {}));
  }
  std::string_view word() {
    size_t start = pos_;
    while (pos_ < end_) {
      char c = text_[pos_];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
        ++pos_;
      else
        break;
    }
    return text_.substr(start, pos_ - start);
  }
  bool take(char c) {
    if (pos_ < end_ && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::string_view text_;
  size_t pos_;
  size_t end_;
  std::string_view file_;
};

// The first word of the line starting at `begin` is a role name: the line is a declaration.
bool is_declaration_line(std::string_view text, size_t begin, size_t end) {
  size_t i = begin;
  while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
  size_t w = i;
  while (i < end && text[i] >= 'a' && text[i] <= 'z') ++i;
  if (!tensor_role_from_name(text.substr(w, i - w))) return false;
  return i == end || text[i] == ' ' || text[i] == '\t' || text[i] == '\r';
}

bool is_blank_or_comment_line(std::string_view text, size_t begin, size_t end) {
  size_t i = begin;
  while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
  return i == end || text[i] == '#';
}

// Reads declaration lines from the top; returns the offset where the body starts. With
// `only_declarations`, any other non-comment line is an error.
size_t read_declarations(std::string_view text, std::string_view file, std::vector<TensorDecl>& out,
                         bool only_declarations) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    if (is_blank_or_comment_line(text, pos, eol)) {
      pos = eol + 1;
      continue;
    }
    if (!is_declaration_line(text, pos, eol)) {
      if (!only_declarations) return pos;
      TextPosition at = position_of(text, pos);
      Diagnostic d{SourceLocation{std::string(file), at.line, at.column},
                   "expected a declaration such as 'input A f64[16,1024]' (roles: input, "
                   "param, const, output)",
                   std::string(at.line_text.substr(0, 200))};
      throw ParseFailure{Error::at("parse_error", std::move(d))};
    }
    out.push_back(DeclLineParser(text, pos, eol, file).parse());
    pos = eol + 1;
  }
  return text.size();
}

}  // namespace

Result<std::vector<Block>> parse_body(std::string_view text, std::string_view file,
                                      const ParseLimits& limits) {
  if (auto e = check_size(text, limits)) return *e;
  try {
    return Parser(text, 0, file, limits).body();
  } catch (ParseFailure& f) {
    return std::move(f.error);
  }
}

Result<ExprRef> parse_expr(std::string_view text, std::string_view file,
                           const ParseLimits& limits) {
  if (auto e = check_size(text, limits)) return *e;
  try {
    return Parser(text, 0, file, limits).whole_expr();
  } catch (ParseFailure& f) {
    return std::move(f.error);
  }
}

Result<Program> parse_program(std::string_view text, std::string_view file,
                              const ParseLimits& limits) {
  if (auto e = check_size(text, limits)) return *e;
  try {
    Program p;
    size_t body_at = read_declarations(text, file, p.decls, /*only_declarations=*/false);
    p.blocks = Parser(text, body_at, file, limits).body();
    return p;
  } catch (ParseFailure& f) {
    return std::move(f.error);
  }
}

Result<std::vector<TensorDecl>> parse_declarations(std::string_view text, std::string_view file) {
  if (auto e = check_size(text, ParseLimits{})) return *e;
  try {
    std::vector<TensorDecl> decls;
    read_declarations(text, file, decls, /*only_declarations=*/true);
    return decls;
  } catch (ParseFailure& f) {
    return std::move(f.error);
  }
}

}  // namespace steptp::leir
