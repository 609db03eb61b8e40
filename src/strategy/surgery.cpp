// strategy/surgery.cpp — shared rewrite helpers and the fresh-name allocator.
#include "strategy/surgery.h"

#include <optional>

#include "analysis/access.h"
#include "leir/visit.h"

namespace steptp::strategy::surgery {

using leir::Block;
using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

const Block* find_block(const leir::Program& p, const BlockPath& path) {
  if (path.top >= p.blocks.size()) return nullptr;
  const Block* b = &p.blocks[path.top];
  for (size_t i : path.nested) {
    if (i >= b->body.size() || !b->body[i].is_block()) return nullptr;
    b = b->body[i].block.get();
  }
  return b;
}

namespace {
void collect_paths(const Block& b, BlockPath path, std::vector<BlockPath>& out) {
  out.push_back(path);
  for (size_t i = 0; i < b.body.size(); ++i) {
    if (!b.body[i].is_block()) continue;
    BlockPath inner = path;
    inner.nested.push_back(i);
    collect_paths(*b.body[i].block, inner, out);
  }
}
}  // namespace

std::vector<BlockPath> all_block_paths(const leir::Program& p) {
  std::vector<BlockPath> out;
  for (size_t i = 0; i < p.blocks.size(); ++i) collect_paths(p.blocks[i], BlockPath{i, {}}, out);
  return out;
}

Block with_loop_kind(const Block& b, size_t pos, leir::LoopKind kind) {
  STEPTP_CHECK(pos < b.loops.size(), "with_loop_kind: no such loop");
  Block out = b;
  out.loops[pos].kind = kind;
  return out;
}

Outcome<const Block*> site_block(const leir::Program& p, const Site& s, std::string_view strategy) {
  if (s.strategy() != strategy)
    return infeasible("site.wrong_strategy", "step {} is not a {} step", s.to_string(), strategy);
  Outcome<BlockPath> path = s.block();
  STEPTP_TRY(path);
  const Block* b = find_block(p, *path);
  if (b == nullptr)
    return infeasible(std::string(strategy) + ".no_such_block",
                      "block {} does not exist (the program has {} top-level blocks)",
                      path->to_string(), p.blocks.size());
  return b;
}

std::optional<size_t> find_loop(const Block& b, std::string_view var) {
  for (size_t i = 0; i < b.loops.size(); ++i)
    if (b.loops[i].var == var) return i;
  return std::nullopt;
}

Outcome<size_t> site_loop(const Block& b, const Site& s, std::string_view strategy,
                          std::string_view key) {
  Outcome<std::string> var = s.name(key);
  STEPTP_TRY(var);
  std::optional<size_t> pos = find_loop(b, *var);
  if (!pos)
    return infeasible(std::string(strategy) + ".no_such_loop",
                      "block {} has no loop '{}' in its header", s.values("block").front(), *var);
  return *pos;
}

Outcome<LoopSite> resolve_loop_site(const leir::Program& p, const Site& s,
                                    std::string_view strategy, std::string_view key) {
  Outcome<const Block*> block = site_block(p, s, strategy);
  STEPTP_TRY(block);
  Outcome<size_t> pos = site_loop(**block, s, strategy, key);
  STEPTP_TRY(pos);
  return LoopSite{*s.block(), *block, *pos};
}

namespace {

Block replace_in(const Block& b, const std::vector<size_t>& nested, size_t depth, Block repl) {
  if (depth == nested.size()) return repl;
  Block out = b;
  size_t i = nested[depth];
  out.body[i] = leir::Item::of(replace_in(*b.body[i].block, nested, depth + 1, std::move(repl)));
  return out;
}

}  // namespace

leir::Program replace_block(const leir::Program& p, const BlockPath& path, Block b) {
  STEPTP_CHECK(find_block(p, path) != nullptr, "replace_block: no block " + path.to_string());
  leir::Program out = p;
  out.blocks[path.top] = replace_in(p.blocks[path.top], path.nested, 0, std::move(b));
  return out;
}

leir::Program replace_top_block(const leir::Program& p, size_t index, std::vector<Block> blocks) {
  STEPTP_CHECK(index < p.blocks.size(), "replace_top_block: index out of range");
  leir::Program out;
  out.decls = p.decls;
  for (size_t i = 0; i < p.blocks.size(); ++i) {
    if (i != index) {
      out.blocks.push_back(p.blocks[i]);
      continue;
    }
    for (Block& b : blocks) out.blocks.push_back(std::move(b));
  }
  return out;
}

Block rewrite_body(const Block& b, const std::function<ExprRef(const ExprRef&)>& fn) {
  Block out;
  out.loops = b.loops;
  for (const leir::Item& item : b.body) {
    if (item.is_stmt()) {
      out.body.push_back(leir::Item::of(
          leir::Stmt{leir::rewrite(item.stmt->lhs, fn), leir::rewrite(item.stmt->rhs, fn)}));
    } else {
      out.body.push_back(leir::Item::of(rewrite_body(*item.block, fn)));
    }
  }
  return out;
}

Block substitute_var(const Block& b, std::string_view var, const ExprRef& replacement) {
  return rewrite_body(b, [&](const ExprRef& e) -> ExprRef {
    if (e->kind() == ExprKind::kIndexVar && e->name() == var) return replacement;
    return e;
  });
}

namespace {
void rename_headers(Block& b, std::string_view from, const std::string& to) {
  for (leir::Loop& l : b.loops)
    if (l.var == from) l.var = to;
  for (leir::Item& item : b.body) {
    if (!item.is_block()) continue;
    Block inner = *item.block;
    rename_headers(inner, from, to);
    item = leir::Item::of(std::move(inner));
  }
}
}  // namespace

Block rename_var(const Block& b, std::string_view from, const std::string& to) {
  Block out = substitute_var(b, from, Expr::index_var(to));
  rename_headers(out, from, to);
  return out;
}

ExprRef rename_tensor(const ExprRef& e, std::string_view from, const std::string& to) {
  return leir::rewrite(e, [&](const ExprRef& n) -> ExprRef {
    if (n->kind() != ExprKind::kAccess || n->name() != from) return n;
    return Expr::access(to, n->dtype(), n->scope(), n->indices());
  });
}

ExprRef split_index(const std::string& outer, int64_t factor, const std::string& inner) {
  return Expr::binary(
      leir::BinaryOp::kAdd,
      Expr::binary(leir::BinaryOp::kMul, Expr::index_var(outer), Expr::integer(factor)),
      Expr::index_var(inner));
}

namespace {
bool is_var(const ExprRef& e, const std::string& v) {
  return e->kind() == ExprKind::kIndexVar && e->name() == v;
}
std::optional<int64_t> integer_of(const ExprRef& e) {
  if (e->kind() != ExprKind::kNumber || !e->is_integer_literal()) return std::nullopt;
  return static_cast<int64_t>(e->number_value());
}
// e is outer*factor+inner exactly as split_index spells it.
bool is_split_index(const ExprRef& e, const std::string& outer, int64_t factor,
                    const std::string& inner) {
  if (e->kind() != ExprKind::kBinary || e->binary_op() != leir::BinaryOp::kAdd) return false;
  const ExprRef& scaled = e->lhs();
  return is_var(e->rhs(), inner) && scaled->kind() == ExprKind::kBinary &&
         scaled->binary_op() == leir::BinaryOp::kMul && is_var(scaled->lhs(), outer) &&
         integer_of(scaled->rhs()) == factor;
}
}  // namespace

Block substitute_split(const Block& b, const std::string& inner, const std::string& outer,
                       int64_t factor) {
  Block split = substitute_var(b, inner, split_index(outer, factor, inner));
  return rewrite_body(split, [&](const ExprRef& e) -> ExprRef {
    if (e->kind() != ExprKind::kBinary) return e;
    const leir::BinaryOp op = e->binary_op();
    if (op != leir::BinaryOp::kFloorDiv && op != leir::BinaryOp::kMod) return e;
    std::optional<int64_t> g = integer_of(e->rhs());
    if (!g || *g <= 0 || factor % *g != 0 || !is_split_index(e->lhs(), outer, factor, inner))
      return e;
    const ExprRef in = Expr::index_var(inner);
    if (op == leir::BinaryOp::kMod) return *g == factor ? in : Expr::binary(op, in, e->rhs());
    if (*g == factor) return Expr::index_var(outer);
    ExprRef outer_part = factor / *g == 1
                             ? Expr::index_var(outer)
                             : Expr::binary(leir::BinaryOp::kMul, Expr::index_var(outer),
                                            Expr::integer(factor / *g));
    return Expr::binary(leir::BinaryOp::kAdd, outer_part, Expr::binary(op, in, e->rhs()));
  });
}

// ---------------------------------------------------------------------------------------------
// Fresh names
// ---------------------------------------------------------------------------------------------

namespace {

// The reference's key alphabet: lowercase minus t b v x y z e (t/b start binding names, 'e'
// reads as an exponent after a digit, v x y z are kept for hardware-ish names).
constexpr std::string_view kLoopLetters = "acdfghijklmnopqrsuw";
// The reference's tensor alphabet: capitals minus the loop-kind letters L P V B U T.
constexpr std::string_view kTensorLetters = "ACDEFGHIJKMNOQRSWXYZ";

std::string nth_name(size_t n, std::string_view first, std::string_view rest) {
  // 0..|first|-1: one letter; then first letter × rest letters, then three letters, ...
  if (n < first.size()) return std::string(1, first[n]);
  n -= first.size();
  std::string suffix;
  size_t width = 1;
  size_t block = first.size() * rest.size();
  while (n >= block) {
    n -= block;
    ++width;
    block *= rest.size();
  }
  for (size_t i = 0; i < width; ++i) {
    suffix.insert(suffix.begin(), rest[n % rest.size()]);
    n /= rest.size();
  }
  return std::string(1, first[n]) + suffix;
}

}  // namespace

NameAllocator::NameAllocator(const leir::Program& p)
    : vars_(analysis::loop_vars_in_use(p)), tensors_(analysis::tensor_names_in_use(p)) {}

std::string NameAllocator::fresh_loop_var() {
  for (size_t n = 0;; ++n) {
    std::string name = nth_name(n, kLoopLetters, kLoopLetters);
    if (!leir::is_index_var_name(name) || vars_.count(name)) continue;
    vars_.insert(name);
    return name;
  }
}

std::string NameAllocator::fresh_binding_var(char level, char axis, std::string_view base) {
  std::string name = std::string{level, axis} + std::string(base);
  while (vars_.count(name) || !leir::is_index_var_name(name)) name += 'a';
  vars_.insert(name);
  return name;
}

std::string NameAllocator::fresh_tensor() {
  static constexpr std::string_view kLower = "abcdefghijklmnopqrstuvwxyz";
  for (size_t n = 0;; ++n) {
    std::string name = nth_name(n, kTensorLetters, kLower);
    if (tensors_.count(name)) continue;
    tensors_.insert(name);
    return name;
  }
}

std::vector<int64_t> split_factors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t f = 2; f < n && f <= (1 << 20); ++f)
    if (n % f == 0) out.push_back(f);
  for (int64_t f = 2; f < n && f <= (1 << 20); f *= 2)
    if (n % f != 0) out.push_back(f);
  return out;
}

}  // namespace steptp::strategy::surgery
