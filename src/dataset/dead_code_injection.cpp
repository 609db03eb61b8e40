// dataset/dead_code_injection.cpp — copy a block, rename what it writes, insert it later.
#include "dataset/dead_code_injection.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>

#include "analysis/access.h"
#include "leir/visit.h"

namespace steptp::dataset {
namespace {

// "Dead", "Deadb", "Deadc", ...: tensor names are [A-Z][a-z]*, and these never collide because
// every name in use is excluded.
std::string fresh_name(std::set<std::string>& used) {
  for (uint64_t k = 0;; ++k) {
    std::string suffix;  // "", "a", ..., "z", "aa", ... (bijective base 26)
    for (uint64_t n = k; n > 0; n = (n - 1) / 26)
      suffix.insert(suffix.begin(), char('a' + (n - 1) % 26));
    std::string name = "Dead" + suffix;
    if (used.insert(name).second) return name;
  }
}

}  // namespace

std::optional<InjectedDeadCode> inject_dead_code(const leir::Program& p, SeededRandom& rng) {
  if (p.blocks.empty()) return std::nullopt;
  const size_t source = rng.below(p.blocks.size());
  // Anywhere after the source block: the copy's operands are ready there, and since it only
  // writes fresh tensors it cannot disturb anything that follows.
  const size_t at = source + 1 + rng.below(p.blocks.size() - source);
  return inject_dead_code_at(p, source, at);
}

std::optional<InjectedDeadCode> inject_dead_code_at(const leir::Program& p, size_t source,
                                                    size_t at) {
  if (source >= p.blocks.size() || at <= source || at > p.blocks.size()) return std::nullopt;
  const leir::Block& original = p.blocks[source];
  std::set<std::string> used = analysis::tensor_names_in_use(p);
  for (const leir::TensorDecl& d : p.decls) used.insert(d.name);
  std::map<std::string, std::string> renamed;
  for (const std::string& t : analysis::written_tensors(original)) renamed[t] = fresh_name(used);
  if (renamed.empty()) return std::nullopt;
  std::vector<leir::Block> copy = leir::rewrite_exprs({original}, [&](const leir::ExprRef& e) {
    if (e->kind() != leir::ExprKind::kAccess) return e;
    auto it = renamed.find(e->name());
    if (it == renamed.end()) return e;
    return leir::Expr::access(it->second, e->dtype(), e->scope(), e->indices());
  });
  leir::Program out = p;
  out.blocks.insert(out.blocks.begin() + static_cast<std::ptrdiff_t>(at), copy.front());
  return InjectedDeadCode{std::move(out),
                          fmt::format("inject_dead_code(block={}, at={})", source, at), source, at};
}

}  // namespace steptp::dataset
