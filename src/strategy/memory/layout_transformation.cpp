// strategy/memory/layout_transformation.cpp — copies what a block reads of a tensor into a new
// global buffer with another layout (a transpose, a row-major flatten, or a split of one
// dimension into i//f, i%f), and makes the block read that buffer.
//
//   before:
//   B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   flatten A: B^{4}_{tx=0}L^{8}_{c=0}[D^{f64,g}_{tx*8+c}=A^{f64,g}_{tx,c};];
//              B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{tx*8+c}*C^{f64,g}_{c,a};];
//
// Preconditions: 1. a top-level block; 2. that is not itself a plain copy (re-laying out a copy
// only stacks copies); 3. it reads the tensor without writing it, always through one subscript of
// header loop variables (at least one) and no tensor reference; a read inside an if_then_else
// branch only from a declared input/param/const, in bounds; 4. the layout fits the box the
// subscript covers (dims = the largest index + 1 per subscript component); 5. the new buffer's
// inferred shape is exactly the layout's shape. Values are unchanged: the map is a bijection of
// that box, so the block reads each element from its one new home, which holds a copy of it.
#include <fmt/format.h>

#include "leir/printer.h"
#include "leir/tensor_table.h"
#include "strategy/memory/layout_map.h"
#include "strategy/memory/staging.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::ExprKind;
using leir::ExprRef;

struct LayoutPlan {
  memory::StagedAccess staged;
  memory::LayoutMap map;
  std::string buffer;
  leir::Program result;
};

std::vector<int64_t> box_dims(const memory::StagedAccess& a) {
  std::vector<int64_t> dims;
  for (const leir::Interval& iv : a.ranges) dims.push_back(iv.hi + 1);
  return dims;
}

class LayoutTransformation final : public ResolvedStrategy<LayoutPlan> {
 public:
  std::string_view name() const override { return "layout_transformation"; }
  Category category() const override { return Category::kMemory; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "copy what a block reads into a new buffer with a transposed, flattened or split "
           "layout";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i) {
      if (is_plain_copy(p.blocks[i])) continue;
      for (const std::string& t : memory::read_only_tensors(p.blocks[i])) {
        Outcome<memory::StagedAccess> staged = memory::resolve_reads(p, i, t, name());
        if (!staged.ok()) continue;
        for (const memory::LayoutMap& m : memory::candidate_layouts(box_dims(*staged))) {
          Site s = Site(std::string(name())).set_block(BlockPath{i, {}}).set("tensor", t);
          memory::add_layout_params(s, m);
          out.push_back(std::move(s));
        }
      }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& /*p*/, const Site& /*s*/,
                                 const LayoutPlan& plan) const override {
    return plan.result;
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const LayoutPlan& plan) const override {
    const ExprRef& a = plan.staged.access;
    std::vector<ExprRef> mapped = memory::map_indices(plan.map, a->indices());
    ExprRef n =
        memory::with_indices(memory::with_name_scope(a, plan.buffer, leir::Scope::kGlobal), mapped);
    return fmt::format(
        "block {} reads {} through {}, covering a box of {}. A new copy nest stores those "
        "elements in buffer {} with {}, and block {} reads {} instead. The layout map is a "
        "bijection of the box, so every value the block reads is the same; only the order of "
        "the elements in memory (and so the access stride) changes",
        plan.staged.block, a->name(), leir::print(a),
        fmt::format("[{}]", fmt::join(plan.map.dims, ",")), plan.buffer, memory::describe(plan.map),
        plan.staged.block, leir::print(n));
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[4,8]\ninput C f64[8,6]\noutput E f64[4,6]\n"
        "B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
        "layout_transformation(block=0, tensor=A, layout=flatten)"};
  }

 private:
  static bool is_plain_copy(const leir::Block& b) {
    return b.body.size() == 1 && b.body[0].is_stmt() &&
           b.body[0].stmt->rhs->kind() == ExprKind::kAccess;
  }

  Outcome<LayoutPlan> resolve(const leir::Program& p, const Site& s) const override {
    // 1. A top-level block.
    Outcome<size_t> block = memory::top_level_block(p, s, name());
    STEPTP_TRY(block);
    Outcome<std::string> tensor = s.name("tensor");
    STEPTP_TRY(tensor);
    // 2. Not a plain copy.
    if (is_plain_copy(p.blocks[*block]))
      return infeasible("layout_transformation.already_a_copy",
                        "block {} only copies {}; give the layout to the buffer it copies into "
                        "instead (set_storage_layout)",
                        *block, leir::print(p.blocks[*block].body[0].stmt->rhs));
    // 3. One subscript over header loops, safe to copy.
    Outcome<memory::StagedAccess> staged = memory::resolve_reads(p, *block, *tensor, name());
    STEPTP_TRY(staged);
    // 4. A layout of the box the block reads.
    Outcome<memory::LayoutMap> map = memory::layout_from_site(s, box_dims(*staged), name());
    STEPTP_TRY(map);

    LayoutPlan plan{*staged, *map, "", {}};
    surgery::NameAllocator names(p);
    plan.buffer = names.fresh_tensor();
    const ExprRef& a = staged->access;
    auto relaid = [&](const ExprRef& access) {
      return memory::with_indices(
          memory::with_name_scope(access, plan.buffer, leir::Scope::kGlobal),
          memory::map_indices(*map, access->indices()));
    };
    leir::Block copy =
        memory::make_nest(staged->loops, leir::Stmt{relaid(a), a}, names,
                          memory::with_name_scope(a, plan.buffer, leir::Scope::kGlobal));
    leir::Block consumer = memory::replace_accesses(p.blocks[*block], *tensor, relaid);
    plan.result = surgery::replace_top_block(p, *block, {std::move(copy), std::move(consumer)});
    // 5. The buffer is exactly as large as the layout says.
    Result<leir::TensorTable> table = leir::infer_tensor_table(plan.result);
    const leir::TensorInfo* info = table.ok() ? table->find(plan.buffer) : nullptr;
    std::vector<int64_t> want = memory::mapped_shape(*map);
    if (info == nullptr || info->shape != want)
      return infeasible("layout_transformation.inexact_shape",
                        "the copy of {} would not fill a [{}] buffer exactly ({})", leir::print(a),
                        fmt::join(want, ","),
                        info == nullptr
                            ? std::string("no shape")
                            : fmt::format("inferred [{}]", fmt::join(info->shape, ",")));
    return plan;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_layout_transformation() {
  return std::make_unique<LayoutTransformation>();
}

}  // namespace steptp::strategy
