// cot/chain_of_thought.cpp — assembles the five CoT parts of a step.
#include "cot/chain_of_thought.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/access.h"
#include "cost/cost_model.h"
#include "cot/effect.h"
#include "cot/strategy_notes.h"
#include "leir/printer.h"

namespace steptp::cot {
namespace {

std::string capitalized(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
  return out;
}

std::string loop_header(const leir::Block& b) {
  if (b.loops.empty()) return "(no loops)";
  std::string s;
  for (const leir::Loop& l : b.loops) s += leir::print(l);
  return s;
}

// "block #1 (loops B^{16}_{tx=0}L^{32}_{a=0}) writes `F` and reads `D` and `E`"; a clause with
// no tensor is left out rather than filled with "nothing".
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
  std::string s = fmt::format("block #{} (loops {})", index, loop_header(b));
  if (!written.empty()) s += " writes " + marked_list(written);
  if (!read.empty()) s += (written.empty() ? " reads " : " and reads ") + marked_list(read);
  return s;
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
  if (diff.empty())
    return "The top-level block list is unchanged; only inside a block does it change.";
  std::vector<std::string> parts;
  if (!diff.removed.empty()) {
    std::string r = fmt::format("{} of {} top-level blocks {} removed", diff.removed.size(),
                                before.blocks.size(), diff.removed.size() == 1 ? "is" : "are");
    for (size_t k = 0; k < diff.removed.size(); ++k)
      r += fmt::format("{} #{} {}", k == 0 ? ":" : ";", diff.removed[k],
                       leir::print(before.blocks[diff.removed[k]]));
    parts.push_back(r);
  }
  if (!diff.added.empty()) {
    std::string a = fmt::format("{} {} added", diff.added.size(),
                                diff.added.size() == 1 ? "block is" : "blocks are");
    for (size_t k = 0; k < diff.added.size(); ++k)
      a += fmt::format("{} #{} {}", k == 0 ? ":" : ";", diff.added[k],
                       leir::print(after.blocks[diff.added[k]]));
    parts.push_back(a);
  }
  if (diff.kept > 0)
    parts.push_back(fmt::format("the other {} {} unchanged", diff.kept,
                                diff.kept == 1 ? "block is" : "blocks are"));
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i)
    s += (i == 0 ? capitalized(parts[i]) : ". " + capitalized(parts[i]));
  return s + fmt::format(", giving {} top-level blocks.", after.blocks.size());
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
  return explain_step(chosen, before, site, after, cost::CostModelOptions{});
}

ChainOfThought explain_step(const strategy::Strategy& chosen, const leir::Program& before,
                            const strategy::Site& site, const leir::Program& after,
                            const cost::CostModelOptions& options) {
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
  c.cost_before = cost::estimated_cost(before, options);
  c.cost_after = cost::estimated_cost(after, options);
  c.performance =
      performance_part(chosen.name(), notes, before, after, c.cost_before, c.cost_after);
  return c;
}

}  // namespace steptp::cot
