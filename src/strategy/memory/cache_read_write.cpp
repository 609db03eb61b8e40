// strategy/memory/cache_read_write.cpp — stages a tensor through a fast (shared or local) buffer:
// a cache read copies what a block reads into a new buffer before it; a cache write lets the
// block compute into a new buffer and copies the result back to the tensor after it.
//
//   before:
//   B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//   read C: B^{6}_{tx=0}L^{8}_{c=0}[D^{f64,l}_{c,tx}=C^{f64,g}_{c,tx};];
//           B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*D^{f64,l}_{c,a};];
//   write E:
//   B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[D^{f64,s}_{tx,a}=D^{f64,s}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];
//            B^{4}_{tx=0}L^{6}_{a=0}[E^{f64,g}_{tx,a}=D^{f64,s}_{tx,a};];
//
// Preconditions: 1. a top-level block; 2. mode is read or write, scope is s or l; 3. (read) the
// block reads the tensor without writing it, and (write) the block writes it; 4. all its accesses
// in the block share one subscript, made of the block's header loop variables (at least one) and
// no tensor reference; 5. (read) a read inside an if_then_else branch is staged only from a
// declared input/param/const and in bounds; 6. (write) no earlier block writes the tensor, so the
// new buffer starts exactly where the tensor started (accumulation identities included).
// The copy nest runs over the header loops the subscript uses (tx repair as in staging.h). A
// declared tensor never leaves global memory: only the new buffer is shared or local. Values are
// unchanged: the copy holds exactly the elements the block reads, or writes, with their values.
#include <fmt/format.h>

#include "analysis/access.h"
#include "leir/printer.h"
#include "leir/visit.h"
#include "strategy/memory/staging.h"
#include "strategy/registry.h"
#include "strategy/resolved_strategy.h"

namespace steptp::strategy {
namespace {

using leir::ExprRef;

struct CachePlan {
  size_t block = 0;
  bool read = true;
  leir::Scope scope = leir::Scope::kShared;
  memory::StagedAccess staged;
};

class CacheReadWrite final : public ResolvedStrategy<CachePlan> {
 public:
  std::string_view name() const override { return "cache_read_write"; }
  Category category() const override { return Category::kMemory; }
  Difficulty difficulty() const override { return Difficulty::kHard; }
  std::string_view summary() const override {
    return "stage a block's reads (or its result) through a new shared/local buffer";
  }

  std::vector<Site> sites(const leir::Program& p) const override {
    std::vector<Site> out;
    for (size_t i = 0; i < p.blocks.size(); ++i) {
      auto add = [&](const std::string& tensor, const char* mode) {
        for (const char* scope : {"s", "l"})
          out.push_back(Site(std::string(name()))
                            .set_block(BlockPath{i, {}})
                            .set("tensor", tensor)
                            .set("mode", mode)
                            .set("scope", scope));
      };
      for (const std::string& t : memory::read_only_tensors(p.blocks[i]))
        if (memory::resolve_reads(p, i, t, name()).ok()) add(t, "read");
      for (const std::string& t : analysis::written_tensors(p.blocks[i]))
        if (resolve_write(p, i, t).ok()) add(t, "write");
    }
    return out;
  }

  Outcome<leir::Program> rewrite(const leir::Program& p, const Site& /*s*/,
                                 const CachePlan& plan) const override {
    const ExprRef& access = plan.staged.access;
    const std::string tensor = access->name();
    surgery::NameAllocator names(p);
    const std::string buffer = names.fresh_tensor();
    ExprRef cached = memory::with_name_scope(access, buffer, plan.scope);
    leir::Block consumer = memory::replace_accesses(
        p.blocks[plan.block], tensor,
        [&](const ExprRef& a) { return memory::with_name_scope(a, buffer, plan.scope); });
    std::vector<leir::Block> blocks;
    if (plan.read) {
      blocks.push_back(memory::make_nest(plan.staged.loops, leir::Stmt{cached, access}, names));
      blocks.push_back(std::move(consumer));
    } else {
      blocks.push_back(std::move(consumer));
      blocks.push_back(memory::make_nest(plan.staged.loops, leir::Stmt{access, cached}, names));
    }
    return surgery::replace_top_block(p, plan.block, std::move(blocks));
  }

  std::string describe(const leir::Program& p, const Site& /*s*/,
                       const CachePlan& plan) const override {
    const ExprRef& a = plan.staged.access;
    const std::string buffer = surgery::NameAllocator(p).fresh_tensor();
    const char* where = plan.scope == leir::Scope::kShared ? "shared" : "local";
    std::vector<std::string> loops;
    for (const leir::Loop& l : plan.staged.loops)
      loops.push_back(fmt::format("{}({})", l.var, l.extent));
    if (plan.read)
      return fmt::format(
          "block {} reads {} as {}. A new copy nest over loops {} first stages those elements "
          "into the {} buffer {}, and block {} then reads {} instead of {}. {} is not written in "
          "the block, so the copy holds exactly the values the block would have read",
          plan.block, a->name(), leir::print(a), fmt::join(loops, ", "), where, buffer, plan.block,
          buffer, a->name(), a->name());
    return fmt::format(
        "block {} computes {}. It now computes into the {} buffer {} instead, and a new copy nest "
        "over loops {} right after it writes {} back to {}. Nothing before block {} writes {}, "
        "so {} starts from the same (identity) values and ends with the same results",
        plan.block, leir::print(a), where, buffer, fmt::join(loops, ", "), buffer, a->name(),
        plan.block, a->name(), buffer);
  }

  std::optional<Example> example() const override {
    return Example{
        "input A f64[4,8]\ninput C f64[8,6]\noutput E f64[4,6]\n"
        "B^{4}_{tx=0}L^{6}_{a=0}L^{8}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+"
        "A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];\n",
        "cache_read_write(block=0, tensor=C, mode=read, scope=l)"};
  }

 private:
  Outcome<memory::StagedAccess> resolve_write(const leir::Program& p, size_t block,
                                              const std::string& tensor) const {
    Outcome<memory::StagedAccess> staged = memory::resolve_writes(p, block, tensor, name());
    STEPTP_TRY(staged);
    // 6. The buffer starts where the tensor started only if nothing wrote the tensor before.
    std::vector<leir::Block> earlier(p.blocks.begin(),
                                     p.blocks.begin() + static_cast<std::ptrdiff_t>(block));
    std::optional<size_t> writer;
    leir::for_each_stmt(earlier, [&](const leir::Stmt& e, const leir::StmtContext& ctx) {
      if (!writer && e.lhs->name() == tensor) writer = ctx.top_block;
    });
    if (writer)
      return infeasible("cache_read_write.written_before",
                        "block {} already writes {} before block {}, so a fresh buffer would "
                        "not start from {}'s values",
                        *writer, tensor, block, tensor);
    return staged;
  }

  Outcome<CachePlan> resolve(const leir::Program& p, const Site& s) const override {
    // 1. A top-level block.
    Outcome<size_t> block = memory::top_level_block(p, s, name());
    STEPTP_TRY(block);
    // 2. Mode and scope.
    Outcome<std::string> mode = s.name("mode");
    STEPTP_TRY(mode);
    Outcome<std::string> scope = s.name("scope");
    STEPTP_TRY(scope);
    Outcome<std::string> tensor = s.name("tensor");
    STEPTP_TRY(tensor);
    if (*mode != "read" && *mode != "write")
      return infeasible("cache_read_write.bad_mode", "mode '{}' is neither read nor write", *mode);
    if (*scope != "s" && *scope != "l")
      return infeasible("cache_read_write.bad_scope",
                        "scope '{}' is not a cache scope (s for shared, l for local)", *scope);
    CachePlan plan;
    plan.block = *block;
    plan.read = *mode == "read";
    plan.scope = *scope == "s" ? leir::Scope::kShared : leir::Scope::kLocal;
    // 3.-5. (read) or 3., 4., 6. (write).
    Outcome<memory::StagedAccess> staged = plan.read
                                               ? memory::resolve_reads(p, *block, *tensor, name())
                                               : resolve_write(p, *block, *tensor);
    STEPTP_TRY(staged);
    plan.staged = std::move(staged).value();
    return plan;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_cache_read_write() { return std::make_unique<CacheReadWrite>(); }

}  // namespace steptp::strategy
