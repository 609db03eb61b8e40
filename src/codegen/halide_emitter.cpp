#include "codegen/halide_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "codegen/c_emitter.h"
#include "codegen/lowering_facts.h"
#include "codegen/tir_emitter.h"
#include "leir/visit.h"

namespace steptp::codegen {
namespace {

using leir::BinaryOp;
using leir::DType;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

bool stores_float(DType t) { return t == DType::kF64 || t == DType::kF32 || t == DType::kF16; }

// Halide's type for a dtype, or "" where the bindings have none numpy can hand over (bfloat16,
// complex, float8, 4-bit).
std::string halide_type(DType t) {
  static const std::map<std::string, std::string> kTypes = {
      {"float64", "hl.Float(64)"}, {"float32", "hl.Float(32)"}, {"float16", "hl.Float(16)"},
      {"int8", "hl.Int(8)"},       {"int16", "hl.Int(16)"},     {"int32", "hl.Int(32)"},
      {"int64", "hl.Int(64)"},     {"uint8", "hl.UInt(8)"},     {"uint16", "hl.UInt(16)"},
      {"uint32", "hl.UInt(32)"},   {"uint64", "hl.UInt(64)"},   {"bool", "hl.Bool()"}};
  auto it = kTypes.find(tvm_dtype(t));
  return it == kTypes.end() ? "" : it->second;
}

// The accesses of `tensor` anywhere in `e` (indices included).
std::vector<ExprRef> reads_of(const ExprRef& e, const std::string& tensor) {
  std::vector<ExprRef> out;
  leir::for_each_expr(e, [&](const ExprRef& x) {
    if (x->kind() == ExprKind::kAccess && x->name() == tensor) out.push_back(x);
  });
  return out;
}

// The loops two statements share: the common prefix of their enclosing loops.
std::vector<const leir::Loop*> shared_loops(const StmtFacts& a, const StmtFacts& b) {
  std::vector<const leir::Loop*> out;
  for (size_t i = 0; i < a.loops.size() && i < b.loops.size() && a.loops[i] == b.loops[i]; ++i)
    out.push_back(a.loops[i]);
  return out;
}

// Every loop's variable is a whole subscript of `lhs`: different iterations of these loops
// write different elements.
bool subscripts_cover(const ExprRef& lhs, const std::vector<const leir::Loop*>& loops) {
  return std::all_of(loops.begin(), loops.end(), [&](const leir::Loop* l) {
    return std::any_of(lhs->indices().begin(), lhs->indices().end(), [&](const ExprRef& i) {
      return i->kind() == ExprKind::kIndexVar && i->name() == l->var;
    });
  });
}

Error unsupported(const std::string& why) { return Error::make("unsupported", why); }

// Halide runs each update over its whole domain before the next one starts: the statements of
// one top-level block run as if every loop were split around each statement. That keeps the
// program's values when, for every tensor written in the block, its writers write one element
// per iteration of the loops they share, and every other statement reading it comes after all
// of them and reads just that element.
Result<void> check_splittable(const std::vector<const StmtFacts*>& block) {
  std::map<std::string, std::vector<const StmtFacts*>> writers;
  for (const StmtFacts* f : block) writers[f->stmt->lhs->name()].push_back(f);
  for (const auto& [tensor, ws] : writers) {
    for (size_t i = 0; i < ws.size(); ++i)
      for (size_t j = i + 1; j < ws.size(); ++j)
        if (!leir::equal(ws[i]->stmt->lhs, ws[j]->stmt->lhs) ||
            !subscripts_cover(ws[i]->stmt->lhs, shared_loops(*ws[i], *ws[j])))
          return unsupported(fmt::format(
              "{} is written at different elements by two statements of one nest", tensor));
    for (const StmtFacts* s : block) {
      std::vector<ExprRef> reads = reads_of(s->stmt->rhs, tensor);
      for (const ExprRef& i : s->stmt->lhs->indices()) {
        std::vector<ExprRef> more = reads_of(i, tensor);
        reads.insert(reads.end(), more.begin(), more.end());
      }
      if (reads.empty()) continue;
      const bool writes = s->stmt->lhs->name() == tensor;
      for (const StmtFacts* w : ws) {
        if (w == s) continue;
        if (!writes && w->ordinal > s->ordinal)
          return unsupported(fmt::format("{} is read before a later write in one nest", tensor));
        std::vector<const leir::Loop*> shared = shared_loops(*s, *w);
        if (shared.empty() && !writes) continue;
        bool same_element = std::all_of(reads.begin(), reads.end(), [&](const ExprRef& r) {
          return leir::equal(r, w->stmt->lhs);
        });
        if (!same_element || !subscripts_cover(w->stmt->lhs, shared))
          return unsupported(fmt::format(
              "{} is read at another element than the one written in the same nest", tensor));
      }
    }
  }
  return {};
}

class HalideEmitter {
 public:
  HalideEmitter(const leir::Program& p, const leir::TensorTable& t)
      : p_(p), table_(t), facts_(analyze_statements(p)), inits_(plan_identity_inits(p, t)) {
    leir::for_each_stmt(p_.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
      leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
        if (e->kind() == ExprKind::kCall && e->function() == Function::kIfThenElse) guarded_ = true;
        if (e->kind() == ExprKind::kCall && e->function() == Function::kErf) uses_erf_ = true;
        if (e->kind() == ExprKind::kCall &&
            (e->function() == Function::kMax || e->function() == Function::kMin))
          uses_min_max_ = true;
      });
    });
  }

  Result<std::string> emit() {
    if (Result<void> ok = check_program(); !ok.ok()) return std::move(ok).error();
    header();
    for (size_t b = 0; b < p_.blocks.size(); ++b) emit_top_block(b);
    std::string params, outputs;
    for (const leir::TensorDecl& d : p_.decls) {
      if (d.role != leir::TensorRole::kOutput) {
        params += fmt::format("{}p_{}", params.empty() ? "" : ", ", d.name);
      } else {
        if (!current_.count(d.name)) return unsupported(d.name + " is never written");
        outputs += fmt::format("{}{}", outputs.empty() ? "" : ", ", current_.at(d.name));
      }
    }
    line(1, fmt::format("return [{}], [{}]", params, outputs));
    return out_;
  }

 private:
  Result<void> check_program() const {
    for (const leir::TensorInfo& t : table_.tensors) {
      if (halide_type(t.dtype).empty())
        return unsupported(fmt::format("{} has dtype {}, which Halide's bindings cannot take",
                                       t.name, tvm_dtype(t.dtype)));
    }
    for (const StmtFacts& f : facts_) {
      DType t = table_.find(f.stmt->lhs->name())->dtype;
      if (!stores_float(t))
        return unsupported(
            fmt::format("a store to {} ({}): only float stores round as the "
                        "interpreter does",
                        f.stmt->lhs->name(), tvm_dtype(t)));
    }
    for (const auto& [tensor, plan] : inits_) {
      if (plan.mode == IdentityInit::kTracked)
        return unsupported(fmt::format("{} needs per-element written flags", tensor));
    }
    for (size_t b = 0; b < p_.blocks.size(); ++b) {
      std::vector<const StmtFacts*> block;
      for (const StmtFacts& f : facts_)
        if (f.top_block == b) block.push_back(&f);
      if (Result<void> ok = check_splittable(block); !ok.ok()) return ok;
    }
    return {};
  }

  void line(int indent, const std::string& s) {
    if (!s.empty()) out_.append(static_cast<size_t>(indent) * 4, ' ');
    out_ += s;
    out_ += '\n';
  }

  // Halide has no 0-d Funcs: a scalar is one element of a 1-d one.
  int rank(const std::string& tensor) const {
    return std::max<int>(1, static_cast<int>(table_.find(tensor)->shape.size()));
  }

  void header() {
    line(0, "\"\"\"A LEIR program as a Halide pipeline (steptp lower --target halide).\"\"\"");
    if (uses_erf_) line(0, "import math");
    line(0, "");
    line(0, "import halide as hl");
    line(0, "");
    if (uses_erf_) erf_helper();
    if (uses_min_max_) min_max_helpers();
    line(0,
         "# (name, role, numpy dtype, LEIR shape) in declaration order. Halide's dimension 0 is");
    line(0, "# the shape's last axis; a 0-d tensor is a 1-d buffer of one element.");
    line(0, "TENSORS = [");
    for (const leir::TensorDecl& d : p_.decls) {
      std::string shape;
      for (size_t i = 0; i < d.shape.size(); ++i)
        shape += fmt::format("{}{}", i ? ", " : "", d.shape[i]);
      if (d.shape.size() == 1) shape += ",";
      line(1, fmt::format("(\"{}\", \"{}\", \"{}\", ({})),", d.name, leir::tensor_role_name(d.role),
                          tvm_dtype(d.dtype), shape));
    }
    line(0, "]");
    line(0, "");
    line(0, "");
    line(0, "def build():");
    line(1, "\"\"\"(the ImageParams of the non-output declarations, the output Funcs).\"\"\"");
    int max_rank = 1;
    for (const leir::TensorInfo& t : table_.tensors) max_rank = std::max(max_rank, rank(t.name));
    line(1, fmt::format("v = [hl.Var(f\"v{{i}}\") for i in range({})]", max_rank));
    for (const leir::TensorDecl& d : p_.decls) {
      if (d.role == leir::TensorRole::kOutput) continue;
      std::string type = halide_type(d.dtype);
      line(1, fmt::format("p_{0} = hl.ImageParam({1}, {2}, \"{0}\")", d.name, type, rank(d.name)));
      // if_then_else is lazy in LEIR, hl.select is not: a guarded read outside the input must
      // not trip Halide's bounds check (the value read there is never used).
      std::string read = guarded_ ? fmt::format("a_{}", d.name) : fmt::format("p_{}", d.name);
      if (guarded_)
        line(1, fmt::format("{} = hl.BoundaryConditions.constant_exterior(p_{}, hl.cast({}, 0))",
                            read, d.name, type));
      current_[d.name] = read;
    }
  }

  // hl.erf is float32 only, its rounding far outside the float64 tolerance.
  void erf_helper() {
    for (const char* l :
         {"# float64 erf (hl.erf is float32 only): the Maclaurin series for |x| < 2, beyond it",
          "# erfc's continued fraction (Laplace's) evaluated bottom-up to a fixed depth; within",
          "# 1e-15 of math.erf over [-8, 8].",
          "ERF_SERIES = [2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))",
          "              for n in range(45)]",
          "",
          "",
          "def erf64(x):",
          "    a = hl.abs(x)",
          "    z = hl.min(a, hl.f64(2))",
          "    s = hl.f64(ERF_SERIES[-1])",
          "    for c in reversed(ERF_SERIES[:-1]):",
          "        s = s * z * z + hl.f64(c)",
          "    big = hl.max(a, hl.f64(2))",
          "    k = big",
          "    for n in range(40, 0, -1):",
          "        k = big + hl.f64(n / 2) / k",
          "    erfc = hl.exp(-big * big) / (hl.f64(math.sqrt(math.pi)) * k)",
          "    r = hl.select(a < hl.f64(2), z * s, hl.f64(1) - erfc)",
          "    return hl.select(x < hl.f64(0), -r, r)",
          "",
          ""})
      line(0, l);
  }

  // hl.max and hl.min return the other operand of a NaN; the interpreter's propagate it.
  void min_max_helpers() {
    for (const char* op : {"max", "min"}) {
      line(0, fmt::format("def nan_{}(a, b):", op));
      line(1, fmt::format("return hl.select(hl.is_nan(a) | hl.is_nan(b), a + b, hl.{}(a, b))", op));
      line(0, "");
      line(0, "");
    }
  }

  std::string pure_args(const std::string& tensor) const {
    std::string s;
    for (int i = 0; i < rank(tensor); ++i) s += fmt::format("{}v[{}]", s.empty() ? "" : ", ", i);
    return s;
  }

  std::string new_func_name(const std::string& tensor) {
    int n = versions_[tensor]++;
    std::string name = n == 0 ? tensor : fmt::format("{}__v{}", tensor, n);
    while (n > 0 && table_.find(name)) name += "_";
    return name;
  }

  // Starts a Func for every tensor the block writes that has none yet, is an input, or was read
  // since its last write; statements then add update definitions to it.
  void emit_top_block(size_t b) {
    std::vector<const StmtFacts*> block;
    for (const StmtFacts& f : facts_)
      if (f.top_block == b) block.push_back(&f);
    std::set<std::string> written;
    for (const StmtFacts* f : block) written.insert(f->stmt->lhs->name());
    for (const std::string& t : written) {
      if (funcs_.count(t) && !read_since_write_.count(t)) continue;
      const StmtFacts* first = *std::find_if(block.begin(), block.end(), [&](const StmtFacts* f) {
        return f->stmt->lhs->name() == t;
      });
      std::string name = new_func_name(t);
      std::string var = fmt::format("f_{}", name);
      const leir::TensorInfo& info = *table_.find(t);
      line(1, fmt::format("{} = hl.Func({}, {}, \"{}\")", var, halide_type(info.dtype), rank(t),
                          name));
      std::string base;
      if (current_.count(t)) {
        base = fmt::format("{}[{}]", current_.at(t), pure_args(t));
      } else if (auto it = inits_.find(t); it != inits_.end()) {
        base = cast_store(t, number(it->second.identity));
      } else {
        base = cast_store(t, "hl.f64(0)");
      }
      current_[t] = var;
      funcs_.insert(t);
      read_since_write_.erase(t);
      // A first statement that writes every element once needs no base value.
      if (pure_definition(*first)) {
        pure_def_ = first->stmt;
        continue;
      }
      line(1, fmt::format("{}[{}] = {}", var, pure_args(t), base));
    }
    for (const StmtFacts* f : block) emit_stmt(*f);
    for (const StmtFacts* f : block) {
      leir::for_each_expr(f->stmt->rhs, [&](const ExprRef& e) {
        if (e->kind() != ExprKind::kAccess) return;
        if (e->name() != f->stmt->lhs->name() || !written.count(e->name()))
          read_since_write_.insert(e->name());
      });
    }
  }

  // The loop of `f` at LHS dimension d when it runs over that whole dimension and nothing else
  // ties its iterations together (no self-read of another element): a pure Var.
  std::map<std::string, int> pure_loops(const StmtFacts& f) const {
    const ExprRef& lhs = f.stmt->lhs;
    const std::vector<int64_t>& shape = table_.find(lhs->name())->shape;
    std::map<std::string, int> out;
    for (const ExprRef& r : reads_of(f.stmt->rhs, lhs->name()))
      if (!leir::equal(r, lhs)) return out;
    for (const ExprRef& i : lhs->indices())
      if (!reads_of(i, lhs->name()).empty()) return out;
    const auto& idx = lhs->indices();
    for (size_t d = 0; d < idx.size(); ++d) {
      if (idx[d]->kind() != ExprKind::kIndexVar) continue;
      const std::string& var = idx[d]->name();
      auto loop = std::find_if(f.loops.begin(), f.loops.end(),
                               [&](const leir::Loop* l) { return l->var == var; });
      int uses = 0;
      for (const ExprRef& other : idx)
        if (analysis_mentions(other, var)) ++uses;
      if (loop != f.loops.end() && (*loop)->extent == shape[d] && uses == 1)
        out[var] = static_cast<int>(idx.size() - 1 - d);
    }
    return out;
  }

  static bool analysis_mentions(const ExprRef& e, const std::string& var) {
    bool found = false;
    leir::for_each_expr(e, [&](const ExprRef& x) {
      if (x->kind() == ExprKind::kIndexVar && x->name() == var) found = true;
    });
    return found;
  }

  bool pure_definition(const StmtFacts& f) const {
    const ExprRef& lhs = f.stmt->lhs;
    if (lhs->indices().empty() || !reads_of(f.stmt->rhs, lhs->name()).empty()) return false;
    return pure_loops(f).size() == f.loops.size() && f.loops.size() == lhs->indices().size();
  }

  void emit_stmt(const StmtFacts& f) {
    const leir::Stmt& s = *f.stmt;
    vars_.clear();
    std::map<std::string, int> pure = pure_loops(f);
    for (const auto& [var, dim] : pure) vars_[var] = fmt::format("v[{}]", dim);
    std::string ranges;
    int rdom_dims = 0;
    std::string rdom = fmt::format("r{}", rdoms_);
    for (auto it = f.loops.rbegin(); it != f.loops.rend(); ++it) {
      if (pure.count((*it)->var)) continue;
      ranges += fmt::format("{}hl.Range(0, {})", ranges.empty() ? "" : ", ", (*it)->extent);
      vars_[(*it)->var] = fmt::format("{}[{}]", rdom, rdom_dims++);
    }
    if (rdom_dims > 0) {
      line(1, fmt::format("{} = hl.RDom([{}], \"{}\")", rdom, ranges, rdom));
      ++rdoms_;
    }
    std::string target = s.lhs->indices().empty() ? "0" : "";
    for (auto it = s.lhs->indices().rbegin(); it != s.lhs->indices().rend(); ++it)
      target += fmt::format("{}{}", target.empty() ? "" : ", ", index(*it));
    std::string v = value(s.rhs);
    if (pure_def_ == &s) {
      target = pure_args(s.lhs->name());
      pure_def_ = nullptr;
    }
    line(1, fmt::format("{}[{}] = {}", current_.at(s.lhs->name()), target,
                        cast_store(s.lhs->name(), v)));
  }

  std::string cast_store(const std::string& tensor, const std::string& v) const {
    DType t = table_.find(tensor)->dtype;
    return t == DType::kF64 ? v : fmt::format("hl.cast({}, {})", halide_type(t), v);
  }

  static std::string number(double v) {
    if (v == 0.0) return "hl.f64(0)";
    if (v == 1.0) return "hl.f64(1)";
    return v < 0 ? "hl.f64(float(\"-inf\"))" : "hl.f64(float(\"inf\"))";
  }

  std::string access(const ExprRef& e) const {
    std::string s = e->indices().empty() ? "0" : "";
    for (auto it = e->indices().rbegin(); it != e->indices().rend(); ++it)
      s += fmt::format("{}{}", s.empty() ? "" : ", ", index(*it));
    return fmt::format("{}[{}]", current_.at(e->name()), s);
  }

  static bool positive_literal(const ExprRef& e) {
    return e->kind() == ExprKind::kNumber && e->number_value() > 0 &&
           e->number_value() == static_cast<double>(static_cast<int64_t>(e->number_value()));
  }

  // An int32 subscript. Halide's // and % on ints round towards -inf for a positive divisor,
  // as LEIR's do; any other divisor goes through float64.
  std::string index(const ExprRef& e) const {
    switch (e->kind()) {
      case ExprKind::kNumber:
        if (positive_literal(e) || e->number_value() == 0) return e->number_spelling();
        break;
      case ExprKind::kIndexVar:
        return vars_.at(e->name());
      case ExprKind::kNeg:
        return fmt::format("(-{})", index(e->operand()));
      case ExprKind::kBinary:
        switch (e->binary_op()) {
          case BinaryOp::kAdd:
            return fmt::format("({} + {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kSub:
            return fmt::format("({} - {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kMul:
            return fmt::format("({} * {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kFloorDiv:
            if (!positive_literal(e->rhs())) break;
            return fmt::format("({} // {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kMod:
            if (!positive_literal(e->rhs())) break;
            return fmt::format("({} % {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kDiv:
          case BinaryOp::kPow:
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            break;
        }
        break;
      case ExprKind::kAccess:
      case ExprKind::kInf:
      case ExprKind::kCompare:
      case ExprKind::kCall:
        break;
    }
    return fmt::format("hl.cast(hl.Int(32), {})", value(e));
  }

  std::string condition(const ExprRef& e) const {
    switch (e->kind()) {
      case ExprKind::kCompare: {
        std::string out;
        const auto& ops = e->operands();
        for (size_t i = 0; i < e->compare_ops().size(); ++i)
          out += fmt::format("{}({} {} {})", i ? " & " : "", value(ops[i]),
                             leir::compare_op_spelling(e->compare_ops()[i]), value(ops[i + 1]));
        return e->compare_ops().size() == 1 ? out : fmt::format("({})", out);
      }
      case ExprKind::kBinary:
        if (e->binary_op() == BinaryOp::kAnd)
          return fmt::format("({} & {})", condition(e->lhs()), condition(e->rhs()));
        if (e->binary_op() == BinaryOp::kOr)
          return fmt::format("({} | {})", condition(e->lhs()), condition(e->rhs()));
        break;
      case ExprKind::kNumber:
      case ExprKind::kInf:
      case ExprKind::kIndexVar:
      case ExprKind::kAccess:
      case ExprKind::kNeg:
      case ExprKind::kCall:
        break;
    }
    return fmt::format("({} != hl.f64(0))", value(e));
  }

  static std::string as_f64(const std::string& cond) {
    return fmt::format("hl.select({}, hl.f64(1), hl.f64(0))", cond);
  }

  std::string value(const ExprRef& e) const {
    switch (e->kind()) {
      case ExprKind::kNumber:
        return fmt::format("hl.f64({})", e->number_spelling());
      case ExprKind::kInf:
        return "hl.f64(float(\"inf\"))";
      case ExprKind::kIndexVar:
        return fmt::format("hl.cast(hl.Float(64), {})", vars_.at(e->name()));
      case ExprKind::kAccess: {
        std::string a = access(e);
        return table_.find(e->name())->dtype == DType::kF64
                   ? a
                   : fmt::format("hl.cast(hl.Float(64), {})", a);
      }
      case ExprKind::kNeg:
        return fmt::format("(-{})", value(e->operand()));
      case ExprKind::kCompare:
        return as_f64(condition(e));
      case ExprKind::kBinary:
        return binary_value(e);
      case ExprKind::kCall:
        return call_value(e);
    }
    STEPTP_CHECK(false, "unhandled expression kind in the Halide printer");
    return "";
  }

  std::string binary_value(const ExprRef& e) const {
    std::string a = value(e->lhs()), b = value(e->rhs());
    switch (e->binary_op()) {
      case BinaryOp::kAdd:
        return fmt::format("({} + {})", a, b);
      case BinaryOp::kSub:
        return fmt::format("({} - {})", a, b);
      case BinaryOp::kMul:
        return fmt::format("({} * {})", a, b);
      case BinaryOp::kDiv:
        return fmt::format("({} / {})", a, b);
      case BinaryOp::kFloorDiv:
        return fmt::format("hl.floor({} / {})", a, b);
      case BinaryOp::kMod:
        return fmt::format("({0} - hl.floor({0} / {1}) * {1})", a, b);
      case BinaryOp::kPow:
        return fmt::format("hl.pow({}, {})", a, b);
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
        return as_f64(condition(e));
    }
    STEPTP_CHECK(false, "unhandled binary operator in the Halide printer");
    return "";
  }

  std::string call_value(const ExprRef& e) const {
    const auto& args = e->args();
    switch (e->function()) {
      case Function::kMax:
        return fmt::format("nan_max({}, {})", value(args[0]), value(args[1]));
      case Function::kMin:
        return fmt::format("nan_min({}, {})", value(args[0]), value(args[1]));
      case Function::kExp:
        return fmt::format("hl.exp({})", value(args[0]));
      case Function::kLog:
        return fmt::format("hl.log({})", value(args[0]));
      case Function::kSqrt:
        return fmt::format("hl.sqrt({})", value(args[0]));
      case Function::kAbs:
        return fmt::format("hl.abs({})", value(args[0]));
      case Function::kErf:
        return fmt::format("erf64({})", value(args[0]));
      case Function::kIfThenElse:
        return fmt::format("hl.select({}, {}, {})", condition(args[0]), value(args[1]),
                           value(args[2]));
    }
    STEPTP_CHECK(false, "unhandled function in the Halide printer");
    return "";
  }

  const leir::Program& p_;
  const leir::TensorTable& table_;
  std::vector<StmtFacts> facts_;
  std::map<std::string, TensorInitPlan> inits_;
  bool guarded_ = false;
  std::map<std::string, std::string> current_;  // tensor → the expression that reads it now
  std::set<std::string> funcs_;                 // tensors that have a Func
  std::set<std::string> read_since_write_;
  std::map<std::string, int> versions_;
  std::map<std::string, std::string> vars_;  // loop variable → its Var or RDom variable
  const leir::Stmt* pure_def_ = nullptr;
  int rdoms_ = 0;
  bool uses_erf_ = false;
  bool uses_min_max_ = false;
  std::string out_;
};

}  // namespace

Result<std::string> emit_halide(const leir::Program& p) {
  Result<leir::TensorTable> table = table_for_codegen(p);
  if (!table.ok()) return std::move(table).error();
  return HalideEmitter(p, *table).emit();
}

}  // namespace steptp::codegen
