// strategy/graph/compute_inline.cpp — substitutes an intermediate's defining expression into
// every statement that reads it, then removes the definition (and its block when emptied).
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];
//           B^{16}_{tx=0}L^{32}_{a=0}[G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];
//   after:  B^{16}_{tx=0}L^{32}_{a=0}[G^{f64,g}_{tx,a}=max(E^{f64,g}_{tx,a}+D^{f64,g}_{a},0);];
//
// Preconditions: 1. the tensor is an intermediate (known_tensor); 2. exactly one statement
// writes it, a direct statement of the named top-level block (not_single_definition);
// 3. that statement is elementwise: its RHS does not read the tensor, its subscript is distinct
// header variables, and header variables missing from it are not used by the RHS
// (not_elementwise); 4. the tensor is read, never inside a subscript, never before its block
// (no_readers, index_tensor, read_before_definition); 5. every read's subscript stays inside
// the defined box (read_outside_definition); 6. nothing the RHS reads is written from the
// defining block to the last reader (operand_overwritten); 7. the tensor is a float type at
// least as precise as every reader's destination, so dropping its rounding stays within the
// reader's precision (narrowing).
// A read T[r1..rk] then equals the RHS with each subscript variable vd replaced by rd.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/access.h"
#include "leir/interval.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::ExprKind;
using leir::ExprRef;

struct Definition {
  size_t block = 0;
  size_t item = 0;  // body position of the defining statement
  leir::Stmt stmt;
  size_t readers = 0;  // statements reading the tensor
};

class ComputeInline final : public ResolvedStrategy<Definition> {
 public:
  std::string_view name() const override { return "compute_inline"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "substitute an elementwise intermediate into its readers and drop its definition";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i)
      for (const leir::Item& it : p.blocks[i].body) {
        if (!it.is_stmt()) continue;
        Site s = Site(std::string(name()))
                     .set_block(BlockPath{i, {}})
                     .set("tensor", it.stmt->lhs->name());
        if (check(p, s).ok()) out.push_back(std::move(s));
      }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const Definition& d) const override {
    const leir::Stmt& def = d.stmt;
    const std::string& t = def.lhs->name();
    leir::Program out = p;
    leir::Block& home = out.blocks[d.block];
    home.body.erase(home.body.begin() + long(d.item));
    out.blocks = leir::rewrite_exprs(out.blocks, [&](const ExprRef& e) -> ExprRef {
      if (e->kind() != ExprKind::kAccess || e->name() != t) return e;
      std::map<std::string, ExprRef, std::less<>> with;
      for (size_t k = 0; k < e->indices().size(); ++k)
        with[def.lhs->indices()[k]->name()] = e->indices()[k];
      return graph::substitute_vars(def.rhs, with);
    });
    if (out.blocks[d.block].body.empty()) out = surgery::replace_top_block(out, d.block, {});
    return out;
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const Definition& d) const override {
    return fmt::format(
        "{} is an intermediate computed elementwise in block {} as {} and read by {} "
        "statement(s); its inputs do not change before those reads, so each read {}[...] is "
        "replaced by {} at the read's subscript and the definition is removed: {} no longer "
        "needs to be stored and loaded",
        d.stmt.lhs->name(), d.block, leir::print(d.stmt.rhs), d.readers, d.stmt.lhs->name(),
        leir::print(d.stmt.rhs), d.stmt.lhs->name());
  }

  std::optional<Example> example() const override {
    return Example{
        "input E f64[16,32]\ninput D f64[32]\noutput G f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];"
        "B^{16}_{tx=0}L^{32}_{a=0}[G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];\n",
        "compute_inline(block=0, tensor=F)"};
  }

 private:
  Outcome<Definition> resolve(const leir::Program& p, const Site& s) const override {
    Outcome<size_t> blk = graph::top_block(p, s, name());
    STEPTP_TRY(blk);
    Outcome<std::string> tn = s.name("tensor");
    STEPTP_TRY(tn);
    const std::string& t = *tn;
    // 1. Only an intermediate may disappear.
    if (p.find_decl(t) != nullptr)
      return infeasible("compute_inline.known_tensor",
                        "{} is a declared tensor, not an intermediate", t);
    // 2. Exactly one definition, a direct statement of the block.
    Definition d;
    d.block = *blk;
    int writes = 0;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& st, const leir::StmtContext&) {
      writes += st.lhs->name() == t;
    });
    const leir::Block& home = p.blocks[*blk];
    bool found = false;
    for (size_t k = 0; k < home.body.size() && !found; ++k)
      if (home.body[k].is_stmt() && home.body[k].stmt->lhs->name() == t) {
        d.item = k;
        d.stmt = *home.body[k].stmt;
        found = true;
      }
    if (!found || writes != 1)
      return infeasible("compute_inline.not_single_definition",
                        "{} is written by {} statement(s){}; inlining needs exactly one, directly "
                        "in block {}",
                        t, writes, found ? "" : ", none directly in this block", *blk);
    const leir::Stmt& def = d.stmt;
    // 3. Elementwise: a point-to-element map that can be inverted.
    std::vector<std::string> sub_vars;
    for (const ExprRef& ix : def.lhs->indices()) {
      bool header =
          ix->kind() == ExprKind::kIndexVar && surgery::find_loop(home, ix->name()).has_value();
      if (!header || std::find(sub_vars.begin(), sub_vars.end(), ix->name()) != sub_vars.end())
        return infeasible("compute_inline.not_elementwise",
                          "{} is not indexed by distinct loop variables of block {}",
                          leir::print(def.lhs), *blk);
      sub_vars.push_back(ix->name());
    }
    if (analysis::mentions_tensor(def.rhs, t))
      return infeasible("compute_inline.not_elementwise", "{} reads itself in {}", t,
                        leir::print(def));
    for (const leir::Loop& l : home.loops)
      if (std::find(sub_vars.begin(), sub_vars.end(), l.var) == sub_vars.end() &&
          analysis::mentions_var(def.rhs, l.var))
        return infeasible("compute_inline.not_elementwise",
                          "the RHS of {} uses loop '{}', which its subscript omits", t, l.var);
    // 4.–5., 7. Every reader.
    size_t last_reader = *blk;
    Outcome<void> readers_ok = feasible();
    std::vector<leir::Block> before(p.blocks.begin(), p.blocks.begin() + long(*blk));
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& st, const leir::StmtContext& ctx) {
      if (!readers_ok.ok() || &st == &*home.body[d.item].stmt) return;
      bool reads = false;
      leir::VarRanges ranges;
      for (const leir::Loop* l : ctx.loops) ranges[l->var] = leir::Interval{0, l->extent - 1};
      for (const ExprRef& ix : st.lhs->indices())
        if (analysis::mentions_tensor(ix, t))
          readers_ok = infeasible("compute_inline.index_tensor", "{} is used as an index in {}", t,
                                  leir::print(st));
      leir::for_each_expr(st.rhs, [&](const ExprRef& e) {
        if (!readers_ok.ok() || e->kind() != ExprKind::kAccess) return;
        for (const ExprRef& ix : e->indices())
          if (analysis::mentions_tensor(ix, t))
            readers_ok = infeasible("compute_inline.index_tensor", "{} is used as an index in {}",
                                    t, leir::print(st));
        if (e->name() != t || !readers_ok.ok()) return;
        reads = true;
        for (size_t k = 0; k < e->indices().size(); ++k) {
          const leir::Loop& l = home.loops[*surgery::find_loop(home, sub_vars[k])];
          auto iv = leir::index_interval(*e->indices()[k], ranges);
          if (!iv || iv->lo < 0 || iv->hi > l.extent - 1)
            readers_ok = infeasible("compute_inline.read_outside_definition",
                                    "{} in {} may read outside the elements block {} defines",
                                    leir::print(e), leir::print(st), *blk);
        }
      });
      if (!reads || !readers_ok.ok()) return;
      ++d.readers;
      if (ctx.top_block < *blk)
        readers_ok =
            infeasible("compute_inline.read_before_definition",
                       "block {} reads {} before block {} defines it", ctx.top_block, t, *blk);
      else if (graph::float_rank(st.lhs->dtype()) > graph::float_rank(def.lhs->dtype()) ||
               graph::float_rank(def.lhs->dtype()) < 0)
        readers_ok = infeasible(
            "compute_inline.narrowing",
            "{} is {} but its reader {} stores {}; inlining would drop a rounding", t,
            leir::dtype_name(def.lhs->dtype()), st.lhs->name(), leir::dtype_name(st.lhs->dtype()));
      last_reader = std::max(last_reader, ctx.top_block);
    });
    STEPTP_TRY(readers_ok);
    if (d.readers == 0)
      return infeasible("compute_inline.no_readers", "{} is never read (dead code, not inlining)",
                        t);
    // 6. The RHS operands keep their values from the definition to the last reader.
    std::vector<std::string> written = graph::tensors_written(p, *blk, last_reader);
    for (const std::string& in : graph::tensors_read(def.rhs))
      if (std::binary_search(written.begin(), written.end(), in))
        return infeasible("compute_inline.operand_overwritten",
                          "{} (read by the definition of {}) is written again between block {} "
                          "and block {}",
                          in, t, *blk, last_reader);
    return d;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_compute_inline() { return std::make_unique<ComputeInline>(); }

}  // namespace steptp::strategy
