#include "codegen/tir_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/access.h"
#include "codegen/c_emitter.h"
#include "codegen/lowering_facts.h"
#include "leir/visit.h"

namespace steptp::codegen {
namespace {

using leir::BinaryOp;
using leir::DType;
using leir::ExprKind;
using leir::ExprRef;
using leir::Function;

const std::set<std::string>& python_reserved() {
  static const std::set<std::string> kWords = {
      "False",  "None",   "True",    "T",        "I",        "and",    "as",   "assert",
      "async",  "await",  "break",   "class",    "continue", "def",    "del",  "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",   "import",
      "in",     "is",     "lambda",  "nonlocal", "not",      "or",     "pass", "raise",
      "return", "try",    "while",   "with",     "yield",    "range",  "main"};
  return kWords;
}

// A LEIR name as a Python identifier (reserved words get a trailing underscore).
std::string py_name(const std::string& n) {
  return python_reserved().count(n) ? fmt::format("{}_", n) : n;
}

std::string block_var(const std::string& loop_var) { return fmt::format("v_{}", loop_var); }

class TirEmitter {
 public:
  TirEmitter(const leir::Program& p, const leir::TensorTable& t, TirTarget target)
      : p_(p), table_(t), target_(target), facts_(analyze_statements(p)) {
    for (const StmtFacts& f : facts_) facts_by_stmt_[f.stmt] = &f;
    plan_buffer_versions();
  }

  std::string emit() {
    line(0, "from tvm.script import ir as I");
    line(0, "from tvm.script import tirx as T");
    line(0, "");
    line(0, "");
    line(0, "@I.ir_module");
    line(0, "class Module:");
    line(1, "@T.prim_func(s_tir=True)");
    std::string params;
    for (const leir::TensorDecl& d : p_.decls) {
      if (!params.empty()) params += ", ";
      params += fmt::format("{}: T.Buffer({}, \"{}\")", py_name(d.name), shape_text(d.shape),
                            tvm_dtype(d.dtype));
    }
    line(1, fmt::format("def main({}):", params));
    line(2, "T.func_attr({\"tir.noalias\": True})");
    for (const leir::TensorInfo& t : table_.tensors) {
      if (t.role != leir::TensorRole::kIntermediate) continue;
      // Storage scopes are GPU memory spaces; on the CPU every buffer is plain memory.
      const bool gpu = target_ == TirTarget::kCuda;
      std::string scope = gpu && t.scope == leir::Scope::kShared  ? ", scope=\"shared\""
                          : gpu && t.scope == leir::Scope::kLocal ? ", scope=\"local\""
                                                                  : "";
      line(2, fmt::format("{} = T.alloc_buffer({}, \"{}\"{})", py_name(t.name), shape_text(t.shape),
                          tvm_dtype(t.dtype), scope));
    }
    for (const auto& [tensor, versions] : versions_) {
      const leir::TensorInfo& t = *table_.find(tensor);
      const bool gpu_scoped =
          target_ == TirTarget::kCuda && t.role == leir::TensorRole::kIntermediate;
      std::string scope = gpu_scoped && t.scope == leir::Scope::kShared  ? ", scope=\"shared\""
                          : gpu_scoped && t.scope == leir::Scope::kLocal ? ", scope=\"local\""
                                                                         : "";
      for (int v = 0; v + 1 < versions.count; ++v)
        line(2, fmt::format("{} = T.alloc_buffer({}, \"{}\"{})", version_name(tensor, v),
                            shape_text(t.shape), tvm_dtype(t.dtype), scope));
    }
    std::vector<const leir::Loop*> scope;
    for (size_t b = 0; b < p_.blocks.size(); ++b) {
      current_block_ = b;
      emit_block(p_.blocks[b], 2, scope);
    }
    return out_;
  }

 private:
  // Buffer versions. TVM's schedules (MetaSchedule among them) require every buffer to be
  // written by a single block; LEIR programs often rewrite a tensor in a later top-level block
  // (a bias added to an accumulated product, a normalisation in place). Such a later write is
  // given a buffer of its own when renaming cannot change the result: it is the only statement
  // of its top-level block that touches the tensor, it writes every element exactly once
  // (subscripts are the loops' variables, one per dimension over its whole extent, no reduction)
  // and reads the tensor only at the element it writes. Versions 0..count-2 are new buffers
  // (`X_v0`, ...); the last version keeps the tensor's own name, so outputs stay in place.
  struct Versions {
    std::vector<size_t> starts;  // top-level blocks whose write begins versions 1, 2, ...
    int count = 1;
  };

  void plan_buffer_versions() {
    std::map<std::string, std::vector<size_t>> writers;
    leir::for_each_stmt(p_.blocks, [&](const leir::Stmt& s, const leir::StmtContext& c) {
      std::vector<size_t>& w = writers[s.lhs->name()];
      if (w.empty() || w.back() != c.top_block) w.push_back(c.top_block);
    });
    for (const auto& [tensor, blocks] : writers) {
      Versions v;
      for (size_t i = 1; i < blocks.size(); ++i)
        if (rewrites_whole_tensor(blocks[i], tensor)) v.starts.push_back(blocks[i]);
      v.count = static_cast<int>(v.starts.size()) + 1;
      if (v.count > 1) versions_[tensor] = std::move(v);
    }
  }

  bool rewrites_whole_tensor(size_t top_block, const std::string& tensor) const {
    const leir::Stmt* writer = nullptr;
    std::vector<const leir::Loop*> writer_scope;
    bool other_use = false;
    leir::for_each_stmt(p_.blocks, [&](const leir::Stmt& s, const leir::StmtContext& c) {
      if (c.top_block != top_block) return;
      bool reads = false;
      leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
        if (e->kind() == ExprKind::kAccess && e->name() == tensor) reads = true;
      });
      if (s.lhs->name() != tensor) {
        other_use |= reads;
        return;
      }
      if (writer) other_use = true;
      writer = &s;
      writer_scope = c.loops;
    });
    if (!writer || other_use || facts_by_stmt_.at(writer)->init_before) return false;
    const leir::TensorInfo& info = *table_.find(tensor);
    const auto& idx = writer->lhs->indices();
    if (idx.size() != info.shape.size() || idx.size() != writer_scope.size()) return false;
    std::set<std::string> seen;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (idx[d]->kind() != ExprKind::kIndexVar || !seen.insert(idx[d]->name()).second)
        return false;
      auto loop = std::find_if(writer_scope.begin(), writer_scope.end(),
                               [&](const leir::Loop* l) { return l->var == idx[d]->name(); });
      if (loop == writer_scope.end() || (*loop)->extent != info.shape[d]) return false;
    }
    bool pointwise = true;
    leir::for_each_expr(writer->rhs, [&](const ExprRef& e) {
      if (e->kind() == ExprKind::kAccess && e->name() == tensor && !leir::equal(e, writer->lhs))
        pointwise = false;
    });
    return pointwise;
  }

  std::string version_name(const std::string& tensor, int version) const {
    auto it = versions_.find(tensor);
    if (it == versions_.end() || version + 1 == it->second.count) return py_name(tensor);
    std::string name = fmt::format("{}_v{}", tensor, version);
    while (table_.find(name) || python_reserved().count(name)) name += "_";  // never a LEIR name
    return name;
  }

  // The version current in the top-level block being emitted; a block that starts a version
  // writes the new one and reads the one before.
  std::string buffer_name(const std::string& tensor, bool write) const {
    auto it = versions_.find(tensor);
    if (it == versions_.end()) return py_name(tensor);
    int v = 0;
    for (size_t start : it->second.starts) {
      if (start < current_block_ || (start == current_block_ && write)) ++v;
    }
    return version_name(tensor, v);
  }

  void line(int indent, const std::string& s) {
    if (!s.empty()) out_.append(static_cast<size_t>(indent) * 4, ' ');
    out_ += s;
    out_ += '\n';
  }

  static std::string shape_text(const std::vector<int64_t>& shape) {
    if (shape.empty()) return "()";
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
  }

  void emit_block(const leir::Block& b, int indent, std::vector<const leir::Loop*>& scope) {
    size_t depth = scope.size();
    for (size_t i = 0; i < b.loops.size();) {
      const leir::Loop& l = b.loops[i];
      if (l.kind == leir::LoopKind::kSerial) {
        size_t j = i;
        std::string vars, extents;
        while (j < b.loops.size() && b.loops[j].kind == leir::LoopKind::kSerial) {
          vars += fmt::format("{}{}", j > i ? ", " : "", py_name(b.loops[j].var));
          extents += fmt::format("{}{}", j > i ? ", " : "", b.loops[j].extent);
          scope.push_back(&b.loops[j]);
          ++j;
        }
        line(indent, j - i == 1 ? fmt::format("for {} in T.serial({}):", vars, extents)
                                : fmt::format("for {} in T.grid({}):", vars, extents));
        ++indent;
        i = j;
        continue;
      }
      // TVM vectorizes lanes as independent stores: a reduction over the lanes would race.
      const bool serial_lanes = l.kind == leir::LoopKind::kVectorized && reduces_over(b, l.var);
      line(indent,
           fmt::format("for {} in {}:", py_name(l.var),
                       serial_lanes ? fmt::format("T.serial({})", l.extent) : loop_iter(l, scope)));
      scope.push_back(&l);
      ++indent;
      ++i;
    }
    for (const leir::Item& item : b.body) {
      if (item.is_stmt())
        emit_stmt(*item.stmt, indent, scope);
      else
        emit_block(*item.block, indent, scope);
    }
    scope.resize(depth);
  }

  // Whether a statement under `b` accumulates into an element that does not depend on `var`.
  static bool reduces_over(const leir::Block& b, const std::string& var) {
    for (const leir::Item& item : b.body) {
      if (!item.is_stmt()) {
        if (reduces_over(*item.block, var)) return true;
        continue;
      }
      const leir::Stmt& s = *item.stmt;
      bool self_read = false;
      leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
        if (e->kind() == ExprKind::kAccess && e->name() == s.lhs->name()) self_read = true;
      });
      if (self_read && !analysis::mentions_var(s.lhs, var)) return true;
    }
    return false;
  }

  // On the CPU, thread-bound and parallel loops run as one parallel loop per nest (the outermost;
  // LLVM's codegen rejects nested parallel loops) and serially inside it.
  std::string loop_iter(const leir::Loop& l, const std::vector<const leir::Loop*>& scope) const {
    if (target_ == TirTarget::kLlvm &&
        (l.kind == leir::LoopKind::kBound || l.kind == leir::LoopKind::kParallel)) {
      const bool inside_parallel =
          std::any_of(scope.begin(), scope.end(), [](const leir::Loop* outer) {
            return outer->kind == leir::LoopKind::kBound ||
                   outer->kind == leir::LoopKind::kParallel;
          });
      return inside_parallel ? fmt::format("T.serial({})", l.extent)
                             : fmt::format("T.parallel({})", l.extent);
    }
    switch (l.kind) {
      case leir::LoopKind::kSerial:
        return fmt::format("T.serial({})", l.extent);
      case leir::LoopKind::kBound: {
        std::string axis =
            l.var.size() >= 2 && (l.var[0] == 't' || l.var[0] == 'b') &&
                    (l.var[1] >= 'x' && l.var[1] <= 'z')
                ? fmt::format("{}.{}", l.var[0] == 't' ? "threadIdx" : "blockIdx", l.var[1])
                : std::string("threadIdx.x");
        return fmt::format("T.thread_binding({}, thread=\"{}\")", l.extent, axis);
      }
      case leir::LoopKind::kParallel:
        return fmt::format("T.parallel({})", l.extent);
      case leir::LoopKind::kVectorized:
        return fmt::format("T.vectorized({})", l.extent);
      case leir::LoopKind::kUnrolled:
        return fmt::format("T.unroll({})", l.extent);
    }
    return "";
  }

  std::string unique_block_name(const std::string& tensor) {
    int n = block_names_[tensor]++;
    return n == 0 ? tensor : fmt::format("{}_{}", tensor, n);
  }

  void emit_stmt(const leir::Stmt& s, int indent, const std::vector<const leir::Loop*>& scope) {
    const StmtFacts& f = *facts_by_stmt_.at(&s);
    bool self_read = false;
    leir::for_each_expr(s.rhs, [&](const ExprRef& e) {
      if (e->kind() == ExprKind::kAccess && e->name() == s.lhs->name()) self_read = true;
    });
    line(indent, fmt::format("with T.sblock(\"{}\"):", unique_block_name(s.lhs->name())));
    ++indent;
    std::string kinds, vars, loops;
    bool any_reduce = false;
    for (const leir::Loop* l : scope) {
      bool spatial = analysis::mentions_var(s.lhs, l->var) || !self_read;
      any_reduce |= !spatial;
      kinds += spatial ? "S" : "R";
      vars += fmt::format("{}{}", vars.empty() ? "" : ", ", block_var(l->var));
      loops += fmt::format("{}{}", loops.empty() ? "" : ", ", py_name(l->var));
    }
    if (!scope.empty())
      line(indent, fmt::format("{} = T.axis.remap(\"{}\", [{}])", vars, kinds, loops));
    std::string target = access(s.lhs, /*write=*/true);
    if (f.init_before && any_reduce) {
      line(indent, "with T.init():");
      line(indent + 1, fmt::format("{} = {}", target, store(s.lhs, identity(*f.identity))));
    } else if (f.init_before) {
      // No reduction axis to hang T.init on: the first write reads the identity directly.
      subst_ = s.lhs;
      subst_text_ = identity(*f.identity);
    }
    line(indent, fmt::format("{} = {}", target, store(s.lhs, value(s.rhs))));
    subst_.reset();
  }

  static std::string identity(double v) {
    if (v == 0.0) return "T.float64(0)";
    if (v == 1.0) return "T.float64(1)";
    return v < 0 ? "T.float64(\"-inf\")" : "T.float64(\"inf\")";
  }

  DType dtype_of(const std::string& tensor) const { return table_.find(tensor)->dtype; }

  std::string store(const ExprRef& lhs, const std::string& v) const {
    DType t = dtype_of(lhs->name());
    return t == DType::kF64 ? v : fmt::format("T.Cast(\"{}\", {})", tvm_dtype(t), v);
  }

  std::string access(const ExprRef& e, bool write = false) const {
    std::string name = buffer_name(e->name(), write);
    if (e->indices().empty()) return fmt::format("{}[()]", name);
    std::string s = fmt::format("{}[", name);
    for (size_t i = 0; i < e->indices().size(); ++i)
      s += fmt::format("{}{}", i ? ", " : "", index(e->indices()[i]));
    return s + "]";
  }

  std::string index(const ExprRef& e) const {
    switch (e->kind()) {
      case ExprKind::kNumber:
        return e->number_spelling();
      case ExprKind::kIndexVar:
        return block_var(e->name());
      case ExprKind::kAccess:
        return access(e);
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
            return fmt::format("T.floordiv({}, {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kMod:
            return fmt::format("T.floormod({}, {})", index(e->lhs()), index(e->rhs()));
          case BinaryOp::kDiv:
          case BinaryOp::kPow:
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            break;
        }
        break;
      case ExprKind::kInf:
      case ExprKind::kCompare:
      case ExprKind::kCall:
        break;
    }
    return fmt::format("T.Cast(\"int64\", {})", value(e));
  }

  std::string condition(const ExprRef& e) const {
    switch (e->kind()) {
      case ExprKind::kCompare: {
        std::string out;
        const auto& ops = e->operands();
        for (size_t i = 0; i < e->compare_ops().size(); ++i)
          out += fmt::format("{}({} {} {})", i ? " and " : "", value(ops[i]),
                             leir::compare_op_spelling(e->compare_ops()[i]), value(ops[i + 1]));
        return e->compare_ops().size() == 1 ? out : fmt::format("({})", out);
      }
      case ExprKind::kBinary:
        if (e->binary_op() == BinaryOp::kAnd)
          return fmt::format("({} and {})", condition(e->lhs()), condition(e->rhs()));
        if (e->binary_op() == BinaryOp::kOr)
          return fmt::format("({} or {})", condition(e->lhs()), condition(e->rhs()));
        break;
      case ExprKind::kNumber:
      case ExprKind::kInf:
      case ExprKind::kIndexVar:
      case ExprKind::kAccess:
      case ExprKind::kNeg:
      case ExprKind::kCall:
        break;
    }
    return fmt::format("({} != T.float64(0))", value(e));
  }

  std::string value(const ExprRef& e) const {
    switch (e->kind()) {
      case ExprKind::kNumber:
        return fmt::format("T.float64({})", e->number_spelling());
      case ExprKind::kInf:
        return "T.float64(\"inf\")";
      case ExprKind::kIndexVar:
        return fmt::format("T.Cast(\"float64\", {})", block_var(e->name()));
      case ExprKind::kAccess: {
        if (subst_ && leir::equal(e, subst_)) return subst_text_;
        std::string a = access(e);
        return dtype_of(e->name()) == DType::kF64 ? a : fmt::format("T.Cast(\"float64\", {})", a);
      }
      case ExprKind::kNeg:
        return fmt::format("(-{})", value(e->operand()));
      case ExprKind::kCompare:
        return fmt::format("T.Cast(\"float64\", {})", condition(e));
      case ExprKind::kBinary: {
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
            return fmt::format("T.floor({} / {})", a, b);
          case BinaryOp::kMod:
            return fmt::format("({0} - T.floor({0} / {1}) * {1})", a, b);
          case BinaryOp::kPow:
            return fmt::format("T.pow({}, {})", a, b);
          case BinaryOp::kAnd:
          case BinaryOp::kOr:
            return fmt::format("T.Cast(\"float64\", {})", condition(e));
        }
        break;
      }
      case ExprKind::kCall: {
        const auto& args = e->args();
        switch (e->function()) {
          case Function::kMax:
            return fmt::format("T.max({}, {})", value(args[0]), value(args[1]));
          case Function::kMin:
            return fmt::format("T.min({}, {})", value(args[0]), value(args[1]));
          case Function::kExp:
            return fmt::format("T.exp({})", value(args[0]));
          case Function::kLog:
            return fmt::format("T.log({})", value(args[0]));
          case Function::kSqrt:
            return fmt::format("T.sqrt({})", value(args[0]));
          case Function::kAbs:
            return fmt::format("T.abs({})", value(args[0]));
          case Function::kErf:
            return fmt::format("T.erf({})", value(args[0]));
          case Function::kIfThenElse:
            return fmt::format("T.if_then_else({}, {}, {})", condition(args[0]), value(args[1]),
                               value(args[2]));
        }
        break;
      }
    }
    STEPTP_CHECK(false, "unhandled expression kind in the TIR printer");
    return "";
  }

  const leir::Program& p_;
  const leir::TensorTable& table_;
  TirTarget target_;
  std::vector<StmtFacts> facts_;
  std::map<const leir::Stmt*, const StmtFacts*> facts_by_stmt_;
  std::map<std::string, int> block_names_;
  std::map<std::string, Versions> versions_;
  size_t current_block_ = 0;
  ExprRef subst_;
  std::string subst_text_;
  std::string out_;
};

}  // namespace

std::string tvm_dtype(DType t) {
  switch (t) {
    case DType::kF16:
      return "float16";
    case DType::kBF16:
      return "bfloat16";
    case DType::kF32:
      return "float32";
    case DType::kF64:
      return "float64";
    case DType::kI8:
      return "int8";
    case DType::kI16:
      return "int16";
    case DType::kI32:
      return "int32";
    case DType::kI64:
      return "int64";
    case DType::kU8:
      return "uint8";
    case DType::kU16:
      return "uint16";
    case DType::kU32:
      return "uint32";
    case DType::kU64:
      return "uint64";
    case DType::kBool:
      return "bool";
    case DType::kC64:
      return "complex64";
    case DType::kC128:
      return "complex128";
    case DType::kF8E4M3FN:
      return "float8_e4m3fn";
    case DType::kF8E4M3FNUZ:
      return "float8_e4m3fnuz";
    case DType::kF8E5M2:
      return "float8_e5m2";
    case DType::kU4:
      return "uint4";
    case DType::kI4:
      return "int4";
  }
  return "";
}

Result<std::string> emit_tir(const leir::Program& p, TirTarget target) {
  Result<leir::TensorTable> table = table_for_codegen(p);
  if (!table.ok()) return std::move(table).error();
  return TirEmitter(p, *table, target).emit();
}

}  // namespace steptp::codegen
