// cot/effect.cpp — builds the performance part (see effect.h).
#include "cot/effect.h"

#include <fmt/format.h>

#include <cmath>

#include "leir/tensor_table.h"

namespace steptp::cot {
namespace {

// Who can see a buffer in scope `s`: true of the scope itself, whichever way the step moved it.
std::string_view reach(leir::Scope s) {
  switch (s) {
    case leir::Scope::kGlobal:
      return "visible to every thread block";
    case leir::Scope::kShared:
      return "shared by the threads of one block";
    case leir::Scope::kLocal:
      return "private to each thread";
  }
  return "";
}

// Costs are in arbitrary units: whole numbers read best above 10, three digits below.
std::string figure(double v) {
  return std::abs(v) >= 10 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

// What the step changed in the tensor table: scopes that moved, tensors added or dropped.
std::vector<std::string> table_changes(const leir::Program& before, const leir::Program& after) {
  auto tb = leir::infer_tensor_table(before);
  auto ta = leir::infer_tensor_table(after);
  if (!tb.ok() || !ta.ok()) return {};
  std::vector<std::string> out;
  std::vector<std::string> added;
  std::vector<std::string> dropped;
  for (const leir::TensorInfo& t : ta->tensors) {
    const leir::TensorInfo* old = tb->find(t.name);
    if (!old) {
      added.push_back(t.name);
    } else if (old->scope != t.scope) {
      out.push_back(fmt::format("`{}` moves from {} to {} memory, {}", t.name,
                                leir::scope_word(old->scope), leir::scope_word(t.scope),
                                reach(t.scope)));
    }
  }
  for (const leir::TensorInfo& t : tb->tensors)
    if (!ta->find(t.name)) dropped.push_back(t.name);
  if (!added.empty()) out.push_back("it introduces " + marked_list(added));
  if (!dropped.empty()) out.push_back("it drops " + marked_list(dropped));
  return out;
}

}  // namespace

CostDirection cost_direction(double before, double after) {
  const double scale = std::max(std::abs(before), 1e-12);
  const double change = (after - before) / scale;
  if (std::abs(change) < kNeutralChange) return CostDirection::kUnchanged;
  return change < 0 ? CostDirection::kLower : CostDirection::kHigher;
}

std::string marked_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " and " : ", ";
    s += "`" + names[i] + "`";
  }
  return s;
}

std::string performance_part(std::string_view strategy_name, const StrategyNotes& notes,
                             const leir::Program& before, const leir::Program& after,
                             double cost_before, double cost_after) {
  std::string s = fmt::format("{} {}", strategy_name, notes.performance);
  for (const std::string& c : table_changes(before, after)) s += "; " + c;
  s += ". This step ";
  const CostDirection d = cost_direction(cost_before, cost_after);
  const double percent = 100 * (cost_after - cost_before) / std::max(std::abs(cost_before), 1e-12);
  switch (d) {
    case CostDirection::kLower:
      s += fmt::format("lowers the modelled cost from {} to {} ({:.1f}%)", figure(cost_before),
                       figure(cost_after), percent);
      break;
    case CostDirection::kHigher:
      s += fmt::format(
          "raises the modelled cost from {} to {} (+{:.1f}%), so on its own it does not pay off "
          "under the cost model",
          figure(cost_before), figure(cost_after), percent);
      break;
    case CostDirection::kUnchanged:
      s += fmt::format(
          "leaves the modelled cost unchanged at {}: the cost model prices both programs the "
          "same",
          figure(cost_before));
      break;
  }
  if (d != CostDirection::kLower && !notes.enables.empty())
    s += fmt::format("; its value is what it enables: {}", notes.enables);
  return s + ".";
}

}  // namespace steptp::cot
