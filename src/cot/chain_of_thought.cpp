// cot/chain_of_thought.cpp — assembles the five CoT parts of a step.
#include "cot/chain_of_thought.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/access.h"
#include "cot/strategy_notes.h"
#include "leir/printer.h"

namespace steptp::cot {
namespace {

std::string loop_header(const leir::Block& b) {
  if (b.loops.empty()) return "(no loops)";
  std::string s;
  for (const leir::Loop& l : b.loops) s += leir::print(l);
  return s;
}

std::string name_list(const std::vector<std::string>& names) {
  if (names.empty()) return "nothing";
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " and " : ", ";
    s += names[i];
  }
  return s;
}

// "block 1 (loops B^{16}_{tx=0}L^{32}_{a=0}) writes F and reads D and E"
std::string describe_block(const leir::Block& b, size_t index) {
  std::vector<std::string> written = analysis::written_tensors(b);
  std::set<std::string> written_set(written.begin(), written.end());
  std::vector<std::string> read;
  for (const auto& [tensor, accesses] : analysis::accesses_by_tensor(b)) {
    bool reads = false;
    for (const analysis::Access& a : accesses) reads = reads || !a.is_write;
    // An accumulation reads its own destination; that is not an operand worth naming.
    if (reads && !written_set.count(tensor)) read.push_back(tensor);
  }
  return fmt::format("block {} (loops {}) writes {} and reads {}", index, loop_header(b),
                     name_list(written), name_list(read));
}

std::string capitalized(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
  return out;
}

std::string applicability(const strategy::Strategy& chosen, const leir::Program& before,
                          const strategy::Site& site, const BlockDiff& diff,
                          const StrategyNotes& notes) {
  std::string s = fmt::format("{} {}.", chosen.name(), notes.purpose);
  std::vector<size_t> targets;
  auto block = site.block();
  if (block.ok() && block->top < before.blocks.size()) {
    targets.push_back(block->top);
  } else {
    for (size_t i : diff.removed)
      if (targets.size() < 3) targets.push_back(i);
  }
  if (targets.empty()) {
    s += fmt::format(" The current IR has {} top-level blocks.", before.blocks.size());
    return s;
  }
  s += " In the current IR, ";
  for (size_t k = 0; k < targets.size(); ++k) {
    if (k > 0) s += "; ";
    s += describe_block(before.blocks[targets[k]], targets[k]);
  }
  s += ".";
  return s;
}

std::string transition(const leir::Program& before, const leir::Program& after,
                       const BlockDiff& diff) {
  if (diff.empty()) return "The top-level block list is unchanged.";
  std::string s = fmt::format("{} of {} top-level blocks are removed", diff.removed.size(),
                              before.blocks.size());
  for (size_t k = 0; k < diff.removed.size(); ++k)
    s += fmt::format("{} [{}] {}", k == 0 ? ":" : ";", diff.removed[k],
                     leir::print(before.blocks[diff.removed[k]]));
  s += fmt::format(". {} blocks are added", diff.added.size());
  for (size_t k = 0; k < diff.added.size(); ++k)
    s += fmt::format("{} [{}] {}", k == 0 ? ":" : ";", diff.added[k],
                     leir::print(after.blocks[diff.added[k]]));
  s += fmt::format(". The other {} blocks are unchanged, giving {} blocks in total.", diff.kept,
                   after.blocks.size());
  return s;
}

}  // namespace

std::string ChainOfThought::text() const {
  return fmt::format(
      "1. Applicability: {}\n2. Decision: {}\n3. Transition: {}\n4. Preservation: {}\n"
      "5. Performance: {}",
      applicability, decision, transition, preservation, performance);
}

ChainOfThought explain_step(const strategy::Strategy& chosen, const leir::Program& before,
                            const strategy::Site& site, const leir::Program& after) {
  const StrategyNotes notes = notes_for(chosen.name(), chosen.category());
  ChainOfThought c;
  c.diff = diff_blocks(before.blocks, after.blocks);
  c.applicability = applicability(chosen, before, site, c.diff, notes);
  std::string why = chosen.explain(before, site);
  c.decision = fmt::format("apply {}{}{}", site.to_string(), why.empty() ? "" : ": ", why);
  if (!c.decision.empty() && c.decision.back() != '.') c.decision += '.';
  c.decision = capitalized(c.decision);
  c.transition = transition(before, after, c.diff);
  c.preservation = capitalized(notes.preserved) + ".";
  c.performance = capitalized(notes.performance) + ".";
  return c;
}

}  // namespace steptp::cot
