// strategy/memory/set_storage_layout.cpp — changes how one intermediate is stored: every write
// and every read of it, in every block, is re-indexed through one layout map (a permutation of
// its dimensions, a row-major flatten, or a split of one dimension into i//f, i%f).
//
//   before:
//   ...[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];...[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];
//   after:
//   ...[E^{f64,g}_{a,tx}=E^{f64,g}_{a,tx}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];...[F^{f64,g}_{tx,a}=E^{f64,g}_{a,tx}+D^{f64,g}_{a};];
//
// Preconditions: 1. the tensor is an intermediate (a declared tensor's layout is fixed by its
// declaration); 2. the program's tensor table can be inferred (its shape is the box the map
// re-indexes); 3. the layout fits that shape; 4. the inferred shape after the change is exactly
// the layout's shape. No copy is made. Values are unchanged: the map is a bijection of the
// tensor's box applied to every reference alike, so each element keeps one home, every
// accumulation still reads the element it writes, and a reference outside the box was an error
// before as well.
#include <fmt/format.h>

#include "leir/printer.h"
#include "leir/tensor_table.h"
#include "leir/visit.h"
#include "strategy/memory/layout_map.h"
#include "strategy/memory/staging.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::ExprKind;
using leir::ExprRef;

struct StoragePlan {
  std::string tensor;
  memory::LayoutMap map;
  leir::Program result;
  int references = 0;
};

class SetStorageLayout final : public ResolvedStrategy<StoragePlan> {
 public:
  std::string_view name() const override { return "set_storage_layout"; }
  Category category() const override { return Category::kMemory; }
  Difficulty difficulty() const override { return Difficulty::kEasy; }
  std::string_view summary() const override {
    return "re-index one intermediate everywhere through a transpose, flatten or split layout";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    Result<leir::TensorTable> table = leir::infer_tensor_table(p);
    if (!table.ok()) return out;
    for (const leir::TensorInfo& t : table->tensors) {
      if (t.role != leir::TensorRole::kIntermediate) continue;
      for (const memory::LayoutMap& m : memory::candidate_layouts(t.shape)) {
        Site s = Site(std::string(name())).set("tensor", t.name);
        memory::add_layout_params(s, m);
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& /*p*/, const Site& /*s*/,
                                 const StoragePlan& plan) const override {
    return plan.result;
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const StoragePlan& plan) const override {
    std::string first;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& st, const leir::StmtContext&) {
      if (first.empty() && st.lhs->name() == plan.tensor) first = leir::print(st.lhs);
    });
    std::string after;
    leir::for_each_stmt(plan.result.blocks, [&](const leir::Stmt& st, const leir::StmtContext&) {
      if (after.empty() && st.lhs->name() == plan.tensor) after = leir::print(st.lhs);
    });
    return fmt::format(
        "intermediate {} (shape [{}]) is stored with {}: all {} of its references are "
        "re-indexed alike, so {} becomes {}. The map is a bijection of the tensor's box, so every "
        "element keeps exactly one home and all values are unchanged; only the memory order "
        "(and the stride of each loop over it) changes",
        plan.tensor, fmt::join(plan.map.dims, ","), memory::describe(plan.map), plan.references,
        first, after);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[4,8]\ninput C f64[8,6]\ninput D f64[6]\noutput F f64[4,6]\n"
        "B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];B^{4}_{tx=0}L^{6}_{a=0}[F^{f64,g}_{tx,a}="
        "E^{f64,g}_{tx,a}+D^{f64,g}_{a};];\n",
        "set_storage_layout(tensor=E, layout=permute, perm=1,0)"};
  }

 private:
  Outcome<StoragePlan> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<std::string> tensor = s.name("tensor");
    STEPTP_TRY(tensor);
    // 1. Only an intermediate's storage is ours to choose.
    if (const leir::TensorDecl* d = p.find_decl(*tensor))
      return infeasible("set_storage_layout.known_tensor",
                        "{} is a declared {} whose layout [{}] is fixed by its declaration",
                        *tensor, leir::tensor_role_name(d->role), fmt::join(d->shape, ","));
    // 2. Its shape.
    Result<leir::TensorTable> table = leir::infer_tensor_table(p);
    if (!table.ok())
      return infeasible("set_storage_layout.ill_formed",
                        "the tensor shapes of the program cannot be inferred: {}",
                        table.error().message);
    const leir::TensorInfo* info = table->find(*tensor);
    if (info == nullptr)
      return infeasible("set_storage_layout.no_such_tensor", "no block references {}", *tensor);
    // 3. A layout of that shape.
    Outcome<memory::LayoutMap> map = memory::layout_from_site(s, info->shape, name());
    STEPTP_TRY(map);

    StoragePlan plan{*tensor, *map, p, 0};
    plan.result.blocks = leir::rewrite_exprs(p.blocks, [&](const ExprRef& e) -> ExprRef {
      if (e->kind() != ExprKind::kAccess || e->name() != *tensor) return e;
      ++plan.references;
      return memory::with_indices(e, memory::map_indices(*map, e->indices()));
    });
    // 4. The new shape is exactly the layout's.
    Result<leir::TensorTable> after = leir::infer_tensor_table(plan.result);
    const leir::TensorInfo* now = after.ok() ? after->find(*tensor) : nullptr;
    std::vector<int64_t> want = memory::mapped_shape(*map);
    if (now == nullptr || now->shape != want)
      return infeasible("set_storage_layout.inexact_shape",
                        "re-indexing {} would not give exactly shape [{}] ({}), so the writes do "
                        "not cover the new box the way they covered [{}]",
                        *tensor, fmt::join(want, ","),
                        now == nullptr ? std::string("not inferable")
                                       : fmt::format("inferred [{}]", fmt::join(now->shape, ",")),
                        fmt::join(info->shape, ","));
    return plan;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_set_storage_layout() { return std::make_unique<SetStorageLayout>(); }

}  // namespace steptp::strategy
