// codegen/channel_jam.cpp — see channel_jam.h.
#include "codegen/channel_jam.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "analysis/access.h"
#include "codegen/lowering_facts.h"
#include "leir/visit.h"

namespace steptp::codegen {

namespace {

using leir::Block;
using leir::ExprRef;
using leir::Item;
using leir::Loop;

// A one-row stationary tile: the block holding it, reached from the top-level block through
// the body items `path` (empty: the top-level block itself).
struct TileSite {
  std::vector<size_t> path;
  const Block* block = nullptr;
  StationaryTile tile;
};

std::optional<TileSite> first_one_row_tile(const Block& b, const leir::TensorTable& table,
                                           std::vector<size_t>& path) {
  if (std::optional<StationaryTile> t = find_stationary_tile(b, table, kWideTileVectors);
      t && t->jammed.empty())
    return TileSite{path, &b, *t};
  for (size_t k = 0; k < b.body.size(); ++k) {
    if (!b.body[k].is_block()) continue;
    path.push_back(k);
    std::optional<TileSite> found = first_one_row_tile(*b.body[k].block, table, path);
    path.pop_back();
    if (found) return found;
  }
  return std::nullopt;
}

bool nested_header_uses(const Block& b, const std::string& var) {
  for (const Item& item : b.body) {
    if (!item.is_block()) continue;
    for (const Loop& l : item.block->loops)
      if (l.var == var) return true;
    if (nested_header_uses(*item.block, var)) return true;
  }
  return false;
}

// Whether the iterations of the header loop `var` of `b` touch disjoint elements of everything
// the block writes and read nothing another iteration writes (see channel_jam.h).
bool iterations_independent(const Block& b, const std::string& var) {
  if (nested_header_uses(b, var)) return false;
  std::map<std::string, std::vector<analysis::Access>> accesses = analysis::accesses_by_tensor(b);
  for (const std::string& t : analysis::written_tensors(b))
    if (!analysis::position_fixed_by(accesses[t], var)) return false;
  return true;
}

// The jam factor for a loop of `extent` around a tile of `vectors` vectors per row, or 0.
int64_t jam_factor(int64_t extent, int64_t vectors) {
  for (int64_t j : {4, 2})
    if (extent % j == 0 && j * vectors <= kWideTileVectors.max_vectors) return j;
  return 0;
}

class FreshNames {
 public:
  explicit FreshNames(const leir::Program& p) : taken_(analysis::loop_vars_in_use(p)) {}
  std::string next() {
    static constexpr std::string_view kLetters = "ijklmnopqrsw";
    for (size_t n = 0;; ++n) {
      std::string name;
      for (size_t k = n;; k = k / kLetters.size() - 1) {
        name.insert(name.begin(), kLetters[k % kLetters.size()]);
        if (k < kLetters.size()) break;
      }
      if (leir::is_index_var_name(name) && taken_.insert(name).second) return name;
    }
  }

 private:
  std::set<std::string> taken_;
};

// The access with its subscript at `at` replaced by two: (outer, inner).
ExprRef with_split_subscript(const ExprRef& access, size_t at, ExprRef outer, ExprRef inner) {
  std::vector<ExprRef> indices = access->indices();
  indices[at] = std::move(inner);
  indices.insert(indices.begin() + static_cast<std::ptrdiff_t>(at), std::move(outer));
  return leir::Expr::access(access->name(), access->dtype(), access->scope(), std::move(indices));
}

// The rewrite of one top-level block for a chosen loop (see channel_jam.h).
struct BlockJam {
  const Block* top = nullptr;
  TileSite site;
  size_t loop = 0;  // header position of p in the top-level block
  int64_t factor = 0;
  std::string outer, inner;
  std::map<std::string, size_t> split;  // tensor -> subscript position of p

  // The rewrite of one expression node whose children are rewritten already (leir::rewrite).
  ExprRef rewrite_node(const ExprRef& n) const {
    if (n->kind() == leir::ExprKind::kIndexVar && n->name() == top->loops[loop].var)
      return leir::Expr::binary(
          leir::BinaryOp::kAdd,
          leir::Expr::binary(leir::BinaryOp::kMul, leir::Expr::index_var(outer),
                             leir::Expr::integer(factor)),
          leir::Expr::index_var(inner));
    if (n->kind() != leir::ExprKind::kAccess) return n;
    auto s = split.find(n->name());
    if (s == split.end()) return n;
    // The subscript at p's position was p's variable alone, now o*J+i: it becomes (o, i).
    return with_split_subscript(n, s->second, leir::Expr::index_var(outer),
                                leir::Expr::index_var(inner));
  }

  // `node` (already rewritten) with the inner loop carried down `path` to the tile's block.
  Block carry_inner(const Block& node, size_t depth) const {
    if (depth == site.path.size()) {
      Block tile = node;
      tile.loops.insert(tile.loops.begin() + static_cast<std::ptrdiff_t>(site.tile.first),
                        Loop{leir::LoopKind::kUnrolled, factor, inner});
      return tile;
    }
    const Loop serial{leir::LoopKind::kSerial, factor, inner};
    Block out;
    out.loops = node.loops;
    for (size_t k = 0; k < node.body.size(); ++k) {
      const Item& item = node.body[k];
      if (k == site.path[depth]) {
        out.body.push_back(Item::of(carry_inner(*item.block, depth + 1)));
      } else if (item.is_stmt()) {
        Block wrapped;
        wrapped.loops = {serial};
        wrapped.body = {item};
        out.body.push_back(Item::of(std::move(wrapped)));
      } else {
        Block wrapped = *item.block;
        wrapped.loops.insert(wrapped.loops.begin(), serial);
        out.body.push_back(Item::of(std::move(wrapped)));
      }
    }
    return out;
  }

  Block rewrite() const {
    Block b = leir::rewrite_exprs({*top}, [&](const ExprRef& n) { return rewrite_node(n); })[0];
    b.loops[loop] = Loop{top->loops[loop].kind, top->loops[loop].extent / factor, outer};
    return carry_inner(b, 0);
  }
};

const Block& block_at(const Block& top, const std::vector<size_t>& path) {
  const Block* b = &top;
  for (size_t k : path) b = b->body[k].block.get();
  return *b;
}

// Whether the rewritten tile jams the inner loop and shares a row read among its rows.
bool jams_with_shared_loads(const Block& tile_block, size_t inner_pos,
                            const leir::TensorTable& table) {
  std::optional<StationaryTile> t = find_stationary_tile(tile_block, table, kWideTileVectors);
  if (!t || std::find(t->jammed.begin(), t->jammed.end(), inner_pos) == t->jammed.end())
    return false;
  const std::vector<bool> shared = shared_row_reads(tile_block, *t);
  return std::find(shared.begin(), shared.end(), true) != shared.end();
}

// `state` with top-level block `bi` jammed as `jam` says, its split tensors split in every
// block and in the table; nullopt when the rewritten tile would not jam the inner loop with a
// shared read. Other blocks index a split dimension (0, e): the subscript e may exceed the
// new dimension, but its flat offset is the element's, which is all the C backend prints
// (as with merged_innermost_loops), and it stays affine, so their nests lower as before.
std::optional<ChannelJam> apply(const ChannelJam& state, size_t bi, const BlockJam& jam) {
  ChannelJam next = state;
  for (leir::TensorInfo& info : next.table.tensors) {
    auto s = jam.split.find(info.name);
    if (s == jam.split.end()) continue;
    info.shape[s->second] /= jam.factor;
    info.shape.insert(info.shape.begin() + static_cast<std::ptrdiff_t>(s->second) + 1, jam.factor);
  }
  Block rewritten = jam.rewrite();
  if (!jams_with_shared_loads(block_at(rewritten, jam.site.path), jam.site.tile.first, next.table))
    return std::nullopt;
  for (size_t k = 0; k < next.program.blocks.size(); ++k) {
    if (k == bi) continue;
    next.program.blocks[k] = leir::rewrite_exprs({next.program.blocks[k]}, [&](const ExprRef& n) {
      if (n->kind() != leir::ExprKind::kAccess) return n;
      auto s = jam.split.find(n->name());
      if (s == jam.split.end()) return n;
      // (0, e): the flat offset of e in the unsplit dimension, and still affine.
      return with_split_subscript(n, s->second, leir::Expr::integer(0), n->indices()[s->second]);
    })[0];
  }
  next.program.blocks[bi] = std::move(rewritten);
  next.blocks.push_back(bi);
  return next;
}

}  // namespace

std::optional<ChannelJam> jam_tile_channels(const leir::Program& p,
                                            const leir::TensorTable& table) {
  ChannelJam out{p, table, {}};
  FreshNames names(p);
  const std::map<std::string, std::set<size_t>> users = blocks_using(p);
  for (size_t bi = 0; bi < p.blocks.size(); ++bi) {
    const Block& top = out.program.blocks[bi];
    if (!has_wide_tile_version(top)) continue;  // 256-bit tiles do not jam a row of 30
    std::vector<size_t> path;
    std::optional<TileSite> site = first_one_row_tile(top, out.table, path);
    if (!site) continue;
    const leir::Stmt& update = *site->block->body[0].stmt;
    const size_t limit = site->path.empty() ? site->tile.first : top.loops.size();
    std::optional<BlockJam> chosen;
    for (size_t k = limit; k-- > 0 && !chosen;) {  // the innermost loop that qualifies
      const Loop& l = top.loops[k];
      const int64_t factor = jam_factor(l.extent, site->tile.vectors);
      if (l.kind != leir::LoopKind::kSerial || factor == 0 ||
          !analysis::mentions_var(update.lhs, l.var) ||
          std::none_of(site->tile.row_reads.begin(), site->tile.row_reads.end(),
                       [&](const ExprRef& r) { return !analysis::mentions_var(r, l.var); }) ||
          !iterations_independent(top, l.var))
        continue;
      chosen = BlockJam{&top, *site, k, factor, "", "", {}};
    }
    if (!chosen) continue;
    const std::string& var = top.loops[chosen->loop].var;
    std::map<std::string, std::vector<analysis::Access>> accesses =
        analysis::accesses_by_tensor(top);
    auto splittable = [&](const std::string& t) -> std::optional<size_t> {
      const leir::TensorInfo* info = out.table.find(t);
      const size_t at = *analysis::position_fixed_by(accesses[t], var);
      if (info == nullptr || info->shape[at] % chosen->factor != 0) return std::nullopt;
      return at;
    };
    // Local rows first: split where no other block sees the tensor.
    for (const std::string& t : analysis::written_tensors(top)) {
      const leir::TensorInfo* info = out.table.find(t);
      if (info != nullptr && info->role == leir::TensorRole::kIntermediate &&
          info->scope != leir::Scope::kGlobal && users.at(t) == std::set<size_t>{bi})
        if (std::optional<size_t> at = splittable(t)) chosen->split[t] = *at;
    }
    chosen->outer = names.next();
    chosen->inner = names.next();
    std::optional<ChannelJam> jammed = apply(out, bi, *chosen);
    // A nested tile's rows are independent (find_stationary_tile) only if its accumulated
    // tensor is subscripted by the inner loop alone: the nested block does not know the range
    // of o in o*J+i. Split that tensor too, in every block that uses it.
    const std::string& accumulated = update.lhs->name();
    if (!jammed && !chosen->split.count(accumulated))
      if (std::optional<size_t> at = splittable(accumulated)) {
        chosen->split[accumulated] = *at;
        jammed = apply(out, bi, *chosen);
      }
    if (jammed) out = std::move(*jammed);
  }
  if (out.blocks.empty()) return std::nullopt;
  return out;
}

}  // namespace steptp::codegen
