// strategy/memory/set_storage_scope.cpp — moves one intermediate to another memory scope
// (global, shared or local), consistently in every reference of every block.
//
//   before:
//   ...[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];...[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx});];...
//   after:
//   ...[D^{f64,l}_{tx}=max(D^{f64,l}_{tx},A^{f64,g}_{tx,a});];...[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,l}_{tx});];...
//
// Preconditions: 1. the tensor occurs in the program; 2. it is an intermediate (a declared
// input, param, const or output keeps its global buffer: moving an output out of global memory
// was a reference bug); 3. the scope is g, s or l; 4. some reference is not already in it.
// Values are unchanged: the scope says where the buffer lives, not what it holds (a code
// generator keeps a buffer shared across kernels in global memory).
#include <fmt/format.h>

#include "leir/tensor_table.h"
#include "leir/visit.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"
#include "strategy/surgery.h"

namespace steptp::strategy {
namespace {

using leir::Expr;
using leir::ExprKind;
using leir::ExprRef;

constexpr leir::Scope kScopes[] = {leir::Scope::kGlobal, leir::Scope::kShared, leir::Scope::kLocal};

struct ScopePlan {
  std::string tensor;
  leir::Scope scope = leir::Scope::kGlobal;
  int references = 0;
  int blocks = 0;
};

class SetStorageScope final : public ResolvedStrategy<ScopePlan> {
 public:
  std::string_view name() const override { return "set_storage_scope"; }
  Category category() const override { return Category::kMemory; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "move one intermediate to global, shared or local memory in all its references";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (const std::string& t : intermediates(p)) {
      for (leir::Scope scope : kScopes) {
        Site s = Site(std::string(name()))
                     .set("tensor", t)
                     .set("scope", std::string(1, leir::scope_letter(scope)));
        if (resolve(p, s).ok()) out.push_back(std::move(s));
      }
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const ScopePlan& plan) const override {
    leir::Program out = p;
    out.blocks = leir::rewrite_exprs(p.blocks, [&](const ExprRef& e) -> ExprRef {
      if (e->kind() != ExprKind::kAccess || e->name() != plan.tensor || e->scope() == plan.scope)
        return e;
      return Expr::access(e->name(), e->dtype(), plan.scope, e->indices());
    });
    return out;
  }

  std::string describe(const leir::Program& /*p*/, const Site& /*s*/,
                       const ScopePlan& plan) const override {
    return fmt::format(
        "{} is an intermediate, not a declared tensor, so where it lives is free to choose: its "
        "{} references in {} blocks now all say scope {} ({} memory). The values it holds are "
        "the same; only the buffer's placement (and so its access latency) changes",
        plan.tensor, plan.references, plan.blocks, leir::scope_letter(plan.scope),
        leir::scope_word(plan.scope));
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[4,8]\noutput C f64[4,8]\n"
        "B^{4}_{tx=0}L^{8}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];"
        "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}-D^{f64,g}_{tx};];\n",
        "set_storage_scope(tensor=D, scope=l)"};
  }

 private:
  // Intermediates by first appearance (the names that are referenced but not declared).
  static std::vector<std::string> intermediates(const leir::Program& p) {
    std::vector<std::string> out;
    leir::for_each_stmt(p.blocks, [&](const leir::Stmt& s, const leir::StmtContext&) {
      auto note = [&](const ExprRef& n) {
        if (n->kind() != ExprKind::kAccess || p.find_decl(n->name()) != nullptr) return;
        if (std::find(out.begin(), out.end(), n->name()) == out.end()) out.push_back(n->name());
      };
      leir::for_each_expr(s.lhs, note);
      leir::for_each_expr(s.rhs, note);
    });
    return out;
  }

  Outcome<ScopePlan> resolve(const leir::Program& p, const Site& s) const override {
    if (s.strategy() != name()) return wrong_strategy(*this, s);
    Outcome<std::string> tensor = s.name("tensor");
    STEPTP_TRY(tensor);
    Outcome<std::string> scope = s.name("scope");
    STEPTP_TRY(scope);
    // 2. Declared tensors keep their global buffers.
    if (const leir::TensorDecl* d = p.find_decl(*tensor))
      return infeasible("set_storage_scope.known_tensor",
                        "{} is a declared {}, whose buffer must stay in global memory", *tensor,
                        leir::tensor_role_name(d->role));
    // 3. A scope letter.
    std::optional<leir::Scope> target =
        scope->size() == 1 ? leir::scope_from_letter((*scope)[0]) : std::nullopt;
    if (!target)
      return infeasible("set_storage_scope.bad_scope", "scope '{}' is none of g, s, l", *scope);
    ScopePlan plan{*tensor, *target, 0, 0};
    bool differs = false;
    for (const leir::Block& b : p.blocks) {
      int before = plan.references;
      leir::for_each_stmt({b}, [&](const leir::Stmt& st, const leir::StmtContext&) {
        auto note = [&](const ExprRef& n) {
          if (n->kind() != ExprKind::kAccess || n->name() != *tensor) return;
          ++plan.references;
          differs = differs || n->scope() != *target;
        };
        leir::for_each_expr(st.lhs, note);
        leir::for_each_expr(st.rhs, note);
      });
      if (plan.references > before) ++plan.blocks;
    }
    // 1. The tensor exists.
    if (plan.references == 0)
      return infeasible("set_storage_scope.no_such_tensor", "no block references {}", *tensor);
    // 4. Something changes.
    if (!differs)
      return infeasible("set_storage_scope.same_scope",
                        "every reference of {} is already in "
                        "scope {}",
                        *tensor, *scope);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_set_storage_scope() { return std::make_unique<SetStorageScope>(); }

}  // namespace steptp::strategy
