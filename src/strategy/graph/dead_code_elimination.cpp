// strategy/graph/dead_code_elimination.cpp — removes every statement that writes an intermediate
// no other statement reads, and the blocks that become empty.
//
//   before: B^{16}_{tx=0}L^{32}_{a=0}[I^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});];
//           B^{16}_{tx=0}L^{32}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];
//   after:  B^{16}_{tx=0}L^{32}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];
//
// Preconditions: 1. the tensor is an intermediate: declared outputs are observable and never
// dead (known_tensor); 2. some statement writes it (not_written); 3. no statement that writes
// another tensor reads it, as a value or inside a subscript (still_read). All of its writes go,
// partial ones included, so nothing is left half-computed. Removing statements that nothing
// observes leaves every declared output unchanged.
#include <fmt/format.h>

#include "analysis/access.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/graph/graph_surgery.h"
#include "strategy/registry.h"

namespace steptp::strategy {
namespace {

class DeadCodeElimination final : public Strategy {
 public:
  std::string_view name() const override { return "dead_code_elimination"; }
  Category category() const override { return Category::kGraph; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "remove the statements of an intermediate that nothing reads";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    std::set<std::string> seen;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& st, const leir::StmtContext&) {
      if (!seen.insert(st.lhs->name()).second) return;
      Site s = Site(std::string(name())).set("tensor", st.lhs->name());
      if (check(p, s).ok()) out.push_back(std::move(s));
    });
    return out;
  }

  Check check(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<std::string> t = s.name("tensor");
    STEPTP_TRY(t);
    // 1. Outputs (and inputs) are never dead.
    if (p.find_decl(*t) != nullptr)
      return infeasible("dead_code_elimination.known_tensor",
                        "{} is a declared tensor; only intermediates can be dead", *t);
    // 2.–3. Written, and read only by its own statements.
    int writes = 0;
    std::string reader;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& st, const leir::StmtContext&) {
      if (st.lhs->name() == *t) {
        ++writes;
        return;
      }
      bool reads = analysis::mentions_tensor(st.rhs, *t);
      for (const leir::ExprRef& ix : st.lhs->indices())
        reads = reads || analysis::mentions_tensor(ix, *t);
      if (reads && reader.empty()) reader = leir::print(st);
    });
    if (writes == 0)
      return infeasible("dead_code_elimination.not_written", "no statement writes {}", *t);
    if (!reader.empty())
      return infeasible("dead_code_elimination.still_read", "{} is still read by {}", *t, reader);
    return feasible();
  }

  Outcome<leir::Program> apply(const leir::Program& p, const Site& s) const override {
    STEPTP_TRY(check(p, s));
    const std::string t = *s.name("tensor");
    leir::Program out = p;
    out.blocks.clear();
    for (const leir::Block& b : p.blocks) {
      leir::Block kept = graph::without_writes_to(b, t);
      if (!kept.body.empty()) out.blocks.push_back(std::move(kept));
    }
    return out;
  }

  std::string explain(const leir::Program& p, const Site& s) const override {
    Check c = check(p, s);
    if (!c.ok()) return c.infeasible().message;
    const std::string t = *s.name("tensor");
    int writes = 0;
    size_t emptied = 0;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& st, const leir::StmtContext&) {
      writes += st.lhs->name() == t;
    });
    for (const leir::Block& b : p.blocks) emptied += graph::without_writes_to(b, t).body.empty();
    return fmt::format(
        "{} is an intermediate that no other statement reads and that is not a declared output, "
        "so its {} statement(s) compute values nobody observes; they are removed, and with them "
        "{} block(s) that held nothing else",
        t, writes, emptied);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[16,32]\noutput C f64[16,32]\n"
        "B^{16}_{tx=0}L^{32}_{a=0}[I^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a});];"
        "B^{16}_{tx=0}L^{32}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];\n",
        "dead_code_elimination(tensor=I)"};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_dead_code_elimination() {
  return std::make_unique<DeadCodeElimination>();
}

}  // namespace steptp::strategy
