// strategy/surgery.h — the rewrite helpers strategies share: finding a block or loop named by a
// site, substituting and renaming loop variables, rebuilding a nest, replacing blocks, and fresh
// deterministic names that never collide with anything in the program.
//
// Every helper is pure: it returns new IR and shares unchanged subtrees. None decides legality;
// that is check()'s job.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "leir/ir.h"
#include "strategy/strategy.h"

namespace steptp::strategy::surgery {

// The block a path names, or nullptr when the path does not exist.
const leir::Block* find_block(const leir::Program& p, const BlockPath& path);
// Every block of the program (top-level blocks and nested ones, pre-order), by path.
std::vector<BlockPath> all_block_paths(const leir::Program& p);

// The block a site's "block" parameter names, or an Infeasible "<strategy>.no_such_block".
Outcome<const leir::Block*> site_block(const leir::Program& p, const Site& s,
                                       std::string_view strategy);
// The position of a header loop by variable, or nullopt.
std::optional<size_t> find_loop(const leir::Block& b, std::string_view var);
// The header loop a site's parameter (default "loop") names, or an Infeasible
// "<strategy>.no_such_loop".
Outcome<size_t> site_loop(const leir::Block& b, const Site& s, std::string_view strategy,
                          std::string_view key = "loop");

// The same block with header loop `pos` changed to `kind`.
leir::Block with_loop_kind(const leir::Block& b, size_t pos, leir::LoopKind kind);

// A site's block and one of its header loops, resolved (for the one-loop strategies).
struct LoopSite {
  BlockPath path;
  const leir::Block* block = nullptr;
  size_t pos = 0;
  const leir::Loop& loop() const { return block->loops[pos]; }
};
Outcome<LoopSite> resolve_loop_site(const leir::Program& p, const Site& s,
                                    std::string_view strategy, std::string_view key = "loop");

// The program with the block at `path` replaced.
leir::Program replace_block(const leir::Program& p, const BlockPath& path, leir::Block b);
// The program with top-level block `index` replaced by `blocks` (zero or more).
leir::Program replace_top_block(const leir::Program& p, size_t index,
                                std::vector<leir::Block> blocks);

// Rewrites every expression of a block body (statements of nested blocks included).
leir::Block rewrite_body(const leir::Block& b,
                         const std::function<leir::ExprRef(const leir::ExprRef&)>& fn);
// Replaces every use of index variable `var` (values and subscripts) by `replacement`.
leir::Block substitute_var(const leir::Block& b, std::string_view var,
                           const leir::ExprRef& replacement);
// Renames a loop variable in headers (nested ones too) and in every use.
leir::Block rename_var(const leir::Block& b, std::string_view from, const std::string& to);
// Renames every access of tensor `from` to `to` (dtype and scope kept).
leir::ExprRef rename_tensor(const leir::ExprRef& e, std::string_view from, const std::string& to);

// `outer*factor+inner`, the index of a loop split into an outer and an inner loop.
leir::ExprRef split_index(const std::string& outer, int64_t factor, const std::string& inner);
// Replaces every use of `inner` by split_index(outer, factor, inner), where inner runs over
// [0, factor) and outer is non-negative, then folds what that makes of a division or remainder
// by a divisor g of factor: (outer*factor+inner)//g = outer*(factor/g)+inner//g and
// (outer*factor+inner)%g = inner%g, so (o*4+a)//4 is o and (o*4+a)%4 is a. Exact for every
// value in range. A dimension split by set_storage_layout (i//f, i%f) and a loop split by the
// same factor thus give plain variables, which fusion and local arrays need.
leir::Block substitute_split(const leir::Block& b, const std::string& inner,
                             const std::string& outer, int64_t factor);

// The factors a sites() list offers for splitting a loop of extent n: the divisors f with
// 1 < f < n, then the powers of two below n that do not divide it (at most 2^20).
std::vector<int64_t> split_factors(int64_t n);

// Fresh names, allocated from the names actually used in the program plus `taken` (which the
// call extends, so several fresh names in one rewrite stay distinct).
//   loop variables: a c d f g h i j k l m n o p q r s u w, then aa ac ... (never 'e', never a
//                   binding prefix t/b/v/x/y/z as first letter, never a function name);
//   binding variables: <level><axis><base>, e.g. "tya", lengthened until free;
//   tensors: A C D E F G H I J K M N O Q R S W X Y Z, then Aa Ac ... ([A-Z][a-z]*, never a
//            loop-kind letter L P V B U T).
class NameAllocator {
 public:
  explicit NameAllocator(const leir::Program& p);
  std::string fresh_loop_var();
  std::string fresh_binding_var(char level, char axis, std::string_view base);
  std::string fresh_tensor();

 private:
  std::set<std::string> vars_;
  std::set<std::string> tensors_;
};

}  // namespace steptp::strategy::surgery
