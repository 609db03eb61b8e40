// Mutation test of the verifier: every mutant of every program in tests/data/verify must be
// rejected with a category that fits the mutation, and every program must be accepted against
// itself and against its re-printed copy. The kill rate is printed; it must be 100%.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/tensor_table.h"
#include "leir/visit.h"
#include "verify/verify.h"

namespace steptp::verify {
namespace {

using leir::Block;
using leir::ExprKind;
using leir::ExprRef;
using leir::Item;
using leir::Program;
using leir::Stmt;

struct Mutant {
  std::string kind;
  std::string description;
  Program program;
};

std::vector<std::pair<std::string, Program>> load_programs() {
  std::vector<std::pair<std::string, Program>> out;
  std::filesystem::path dir = std::filesystem::path(STEPTP_SOURCE_DIR) / "tests/data/verify";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".leir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    auto p = leir::parse_program(ss.str(), f.string());
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().render());
    if (p.ok()) out.emplace_back(f.filename().string(), *p);
  }
  return out;
}

// Rebuilds a body, letting `fn` replace (or drop, with nullopt) each statement in program order.
std::vector<Block> map_statements(const std::vector<Block>& blocks,
                                  const std::function<std::optional<Stmt>(const Stmt&, int)>& fn) {
  int ordinal = 0;
  std::function<std::optional<Block>(const Block&)> walk =
      [&](const Block& b) -> std::optional<Block> {
    Block out;
    out.loops = b.loops;
    for (const Item& item : b.body) {
      if (item.is_stmt()) {
        if (auto s = fn(*item.stmt, ordinal++)) out.body.push_back(Item::of(*s));
      } else if (auto nested = walk(*item.block)) {
        out.body.push_back(Item::of(*nested));
      }
    }
    if (out.body.empty()) return std::nullopt;
    return out;
  };
  std::vector<Block> result;
  for (const Block& b : blocks)
    if (auto nb = walk(b)) result.push_back(*nb);
  return result;
}

int count_statements(const Program& p) {
  int n = 0;
  leir::for_each_stmt(p.blocks, [&](const Stmt&, const leir::StmtContext&) { ++n; });
  return n;
}

// Value-level binary nodes (not inside subscripts), counted in pre-order over one expression.
void value_binaries(const ExprRef& e, std::vector<const leir::Expr*>& out) {
  if (e->kind() == ExprKind::kAccess) return;  // do not descend into subscripts
  if (e->kind() == ExprKind::kBinary) out.push_back(e.get());
  for (const ExprRef& c : e->children()) value_binaries(c, out);
}

bool is_literal(const ExprRef& e, double v) {
  return e->kind() == ExprKind::kNumber && e->number_value() == v;
}

std::optional<leir::BinaryOp> swapped(leir::BinaryOp op) {
  switch (op) {
    case leir::BinaryOp::kAdd:
      return leir::BinaryOp::kSub;
    case leir::BinaryOp::kSub:
      return leir::BinaryOp::kAdd;
    case leir::BinaryOp::kMul:
      return leir::BinaryOp::kDiv;
    case leir::BinaryOp::kDiv:
      return leir::BinaryOp::kMul;
    case leir::BinaryOp::kAnd:
      return leir::BinaryOp::kOr;
    case leir::BinaryOp::kOr:
      return leir::BinaryOp::kAnd;
    case leir::BinaryOp::kFloorDiv:
    case leir::BinaryOp::kMod:
    case leir::BinaryOp::kPow:
      return std::nullopt;
  }
  return std::nullopt;
}

// Replaces the node `target` (by identity) inside e, without descending into subscripts.
ExprRef replace_node(const ExprRef& e, const leir::Expr* target, const ExprRef& with) {
  if (e.get() == target) return with;
  if (e->kind() == ExprKind::kAccess) return e;
  std::vector<ExprRef> kids;
  bool changed = false;
  for (const ExprRef& c : e->children()) {
    kids.push_back(replace_node(c, target, with));
    changed |= kids.back() != c;
  }
  return changed ? e->with_children(kids) : e;
}

void add_operator_swaps(const Program& p, std::vector<Mutant>& out) {
  int total = count_statements(p);
  for (int s = 0; s < total; ++s) {
    std::vector<const leir::Expr*> nodes;
    leir::for_each_stmt(p.blocks, [&, k = 0](const Stmt& st, const leir::StmtContext&) mutable {
      if (k++ == s) value_binaries(st.rhs, nodes);
    });
    for (const leir::Expr* node : nodes) {
      auto op = swapped(node->binary_op());
      if (!op) continue;
      bool additive =
          node->binary_op() == leir::BinaryOp::kAdd || node->binary_op() == leir::BinaryOp::kSub;
      if (additive && is_literal(node->rhs(), 0)) continue;   // x±0: an equivalent mutant
      if (!additive && is_literal(node->rhs(), 1)) continue;  // x*1 vs x/1: equivalent
      ExprRef with = leir::Expr::binary(*op, node->lhs(), node->rhs());
      Program m = p;
      m.blocks = map_statements(p.blocks, [&](const Stmt& st, int k) -> std::optional<Stmt> {
        if (k != s) return st;
        return Stmt{st.lhs, replace_node(st.rhs, node, with)};
      });
      out.push_back({"operator_swapped",
                     "statement " + std::to_string(s) + ": '" +
                         std::string(leir::binary_op_spelling(node->binary_op())) + "' → '" +
                         std::string(leir::binary_op_spelling(*op)) + "'",
                     m});
    }
  }
}

// Every access (read or write) of every statement, every dimension: index → index+1.
void add_index_shifts(const Program& p, std::vector<Mutant>& out) {
  int total = count_statements(p);
  for (int s = 0; s < total; ++s) {
    std::vector<const leir::Expr*> accesses;
    leir::for_each_stmt(p.blocks, [&, k = 0](const Stmt& st, const leir::StmtContext&) mutable {
      if (k++ != s) return;
      for (const ExprRef& root : {st.lhs, st.rhs})
        leir::for_each_expr(root, [&](const ExprRef& n) {
          if (n->kind() == ExprKind::kAccess && !n->indices().empty()) accesses.push_back(n.get());
        });
    });
    for (const leir::Expr* acc : accesses) {
      for (size_t d = 0; d < acc->indices().size(); ++d) {
        std::vector<ExprRef> idx = acc->indices();
        idx[d] = leir::Expr::binary(leir::BinaryOp::kAdd, idx[d], leir::Expr::integer(1));
        ExprRef shifted = acc->with_children(idx);
        auto repl = [&](const ExprRef& e) {
          return leir::rewrite(
              e, [&](const ExprRef& n) -> ExprRef { return n.get() == acc ? shifted : n; });
        };
        Program m = p;
        m.blocks = map_statements(p.blocks, [&](const Stmt& st, int k) -> std::optional<Stmt> {
          if (k != s) return st;
          return Stmt{repl(st.lhs), repl(st.rhs)};
        });
        out.push_back({"index_shifted",
                       "statement " + std::to_string(s) + ": " + acc->name() + " dim " +
                           std::to_string(d) + " +1",
                       m});
      }
    }
  }
}

void add_statement_drops(const Program& p, std::vector<Mutant>& out) {
  int total = count_statements(p);
  for (int s = 0; s < total; ++s) {
    Program m = p;
    m.blocks = map_statements(p.blocks, [&](const Stmt& st, int k) -> std::optional<Stmt> {
      if (k == s) return std::nullopt;
      return st;
    });
    out.push_back({"statement_dropped", "statement " + std::to_string(s), m});
  }
}

void add_extent_swaps(const Program& p, std::vector<Mutant>& out) {
  for (size_t b = 0; b < p.blocks.size(); ++b) {
    const auto& loops = p.blocks[b].loops;
    for (size_t i = 0; i + 1 < loops.size(); ++i) {
      if (loops[i].extent == loops[i + 1].extent) continue;  // swapping equal extents is a no-op
      Program m = p;
      std::swap(m.blocks[b].loops[i].extent, m.blocks[b].loops[i + 1].extent);
      out.push_back(
          {"extents_swapped",
           "block " + std::to_string(b) + ": " + loops[i].var + " <-> " + loops[i + 1].var, m});
    }
  }
}

// A statement X=X op e (or op(X,e)) gets an explicit init block with a value that is not the
// identity of op, so the accumulation starts from the wrong value.
void add_wrong_identities(const Program& p, std::vector<Mutant>& out) {
  int s = 0;
  std::set<std::string> written;
  leir::for_each_stmt(p.blocks, [&](const Stmt& st, const leir::StmtContext& ctx) {
    int ordinal = s++;
    // The identity only matters on the first write of a tensor in program order.
    bool first_write = written.insert(st.lhs->name()).second;
    if (!first_write) return;
    const ExprRef& r = st.rhs;
    std::optional<double> wrong;
    if (r->kind() == ExprKind::kBinary && leir::equal(r->lhs(), st.lhs)) {
      if (r->binary_op() == leir::BinaryOp::kAdd || r->binary_op() == leir::BinaryOp::kSub)
        wrong = 1;
      if (r->binary_op() == leir::BinaryOp::kMul) wrong = 2;
    } else if (r->kind() == ExprKind::kCall && leir::equal(r->args()[0], st.lhs)) {
      if (r->function() == leir::Function::kMax) wrong = 1e9;
      if (r->function() == leir::Function::kMin) wrong = -1e9;
    }
    if (!wrong) return;
    Block init;
    for (const leir::Loop* l : ctx.loops)
      init.loops.push_back({leir::LoopKind::kSerial, l->extent, l->var});
    init.body.push_back(Item::of(Stmt{st.lhs, leir::Expr::number(*wrong)}));
    Program m = p;
    m.blocks.insert(m.blocks.begin() + static_cast<long>(ctx.top_block), init);
    out.push_back({"wrong_identity",
                   "statement " + std::to_string(ordinal) + " starts from " +
                       leir::print(leir::Expr::number(*wrong)),
                   m});
  });
}

void add_wrong_dtypes(const Program& p, std::vector<Mutant>& out) {
  auto table = leir::infer_tensor_table(p);
  ASSERT_TRUE(table.ok());
  bool any = false;
  for (const auto& t : table->tensors) {
    if (t.role != leir::TensorRole::kIntermediate) continue;
    leir::DType to = t.dtype == leir::DType::kF64 ? leir::DType::kF32 : leir::DType::kF64;
    Program m = p;
    m.blocks = leir::rewrite_exprs(p.blocks, [&](const ExprRef& n) -> ExprRef {
      if (n->kind() != ExprKind::kAccess || n->name() != t.name) return n;
      return leir::Expr::access(n->name(), to, n->scope(), n->indices());
    });
    out.push_back(
        {"wrong_dtype", "intermediate " + t.name + " → " + std::string(leir::dtype_name(to)), m});
    any = true;
  }
  if (!any) {
    Program m = p;
    for (auto& d : m.decls)
      if (d.role == leir::TensorRole::kOutput)
        d.dtype = d.dtype == leir::DType::kF64 ? leir::DType::kF32 : leir::DType::kF64;
    out.push_back({"wrong_dtype", "output declaration dtype changed", m});
  }
}

const std::map<std::string, std::set<Status>>& allowed_statuses() {
  static const std::map<std::string, std::set<Status>> kAllowed = {
      {"operator_swapped", {Status::kMismatch, Status::kOutOfBounds, Status::kUninitializedRead}},
      {"index_shifted",
       {Status::kOutOfBounds, Status::kMismatch, Status::kUninitializedRead,
        Status::kIncompleteOutput, Status::kRace}},
      {"statement_dropped",
       {Status::kUninitializedRead, Status::kIncompleteOutput, Status::kMismatch,
        Status::kIllFormed}},
      {"extents_swapped",
       {Status::kOutOfBounds, Status::kIncompleteOutput, Status::kMismatch,
        Status::kUninitializedRead}},
      {"wrong_identity", {Status::kMismatch}},
      {"wrong_dtype", {Status::kMismatch, Status::kIllFormed}},
  };
  return kAllowed;
}

// Mutants that are truly equivalent, with the reason. They must be *accepted*: rejecting them
// would be a false alarm. Softmax and logsumexp subtract the row maximum only for numerical
// safety; the result does not depend on the shift, so computing the maximum in f32 is harmless.
struct KnownEquivalent {
  const char* program;
  const char* description;
};
constexpr KnownEquivalent kKnownEquivalent[] = {
    {"softmax.leir", "intermediate D \u2192 f32"},
    {"softmax_online.leir", "intermediate F \u2192 f32"},
    {"logsumexp.leir", "intermediate D \u2192 f32"},
};

bool is_known_equivalent(const std::string& program, const std::string& description) {
  for (const auto& k : kKnownEquivalent)
    if (program == k.program && description == k.description) return true;
  return false;
}

TEST(VerifierMutation, EveryProgramIsEquivalentToItselfAndItsReprintedCopy) {
  auto programs = load_programs();
  ASSERT_GE(programs.size(), 20u);
  for (const auto& [name, p] : programs) {
    VerifyReport self = verify(p, p);
    EXPECT_TRUE(self.equivalent()) << name << ": " << self.render();
    auto reparsed = leir::parse_program(leir::print_program(p));
    ASSERT_TRUE(reparsed.ok()) << name;
    VerifyReport copy = verify(p, *reparsed);
    EXPECT_TRUE(copy.equivalent()) << name << ": " << copy.render();
    EXPECT_EQ(copy.max_abs_error, 0.0) << name;
  }
}

TEST(VerifierMutation, KillsEveryMutantWithTheRightCategory) {
  auto programs = load_programs();
  ASSERT_GE(programs.size(), 20u);
  std::map<std::string, std::pair<int, int>> per_kind;  // kind → (killed, total)
  int killed = 0, total = 0, known_equivalent = 0;
  for (const auto& [name, p] : programs) {
    std::vector<Mutant> mutants;
    add_operator_swaps(p, mutants);
    add_index_shifts(p, mutants);
    add_statement_drops(p, mutants);
    add_extent_swaps(p, mutants);
    add_wrong_identities(p, mutants);
    add_wrong_dtypes(p, mutants);
    Verifier verifier(p, VerifyOptions{});
    ASSERT_FALSE(verifier.original_failure())
        << name << ": " << verifier.original_failure()->render();
    for (const Mutant& m : mutants) {
      VerifyReport r = verifier.check(m.program);
      if (is_known_equivalent(name, m.description)) {
        EXPECT_TRUE(r.equivalent()) << name << " / " << m.description << ": " << r.render();
        ++known_equivalent;
        continue;
      }
      const auto& allowed = allowed_statuses().at(m.kind);
      bool ok = !r.equivalent() && allowed.count(r.status) > 0;
      ++total;
      ++per_kind[m.kind].second;
      if (ok) {
        ++killed;
        ++per_kind[m.kind].first;
      }
      EXPECT_TRUE(ok) << name << " / " << m.kind << " (" << m.description << "): got "
                      << status_name(r.status) << "\n"
                      << leir::print_body(m.program.blocks) << "\n"
                      << r.render();
    }
  }
  std::cout << "[ mutation ] kill rate " << killed << "/" << total
            << " non-equivalent mutants over " << programs.size() << " programs ("
            << known_equivalent << " known-equivalent mutants accepted)\n";
  for (const auto& [kind, kt] : per_kind)
    std::cout << "[ mutation ]   " << kind << ": " << kt.first << "/" << kt.second << "\n";
  EXPECT_EQ(killed, total);
  EXPECT_EQ(known_equivalent, static_cast<int>(std::size(kKnownEquivalent)));
  EXPECT_GE(total, 200);
}

}  // namespace
}  // namespace steptp::verify
