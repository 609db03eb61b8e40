// cot/cot_check.cpp — the checks of cot_check.h.
#include "cot/cot_check.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <set>

#include "cot/effect.h"
#include "leir/tensor_table.h"

namespace steptp::cot {
namespace {

void add_loop_vars(const leir::Block& b, std::set<std::string>& out) {
  for (const leir::Loop& l : b.loops) out.insert(l.var);
  for (const leir::Item& item : b.body)
    if (item.is_block()) add_loop_vars(*item.block, out);
}

void add_names(const leir::Program& p, std::set<std::string>& out) {
  for (const leir::TensorDecl& d : p.decls) out.insert(d.name);
  if (auto table = leir::infer_tensor_table(p); table.ok())
    for (const leir::TensorInfo& t : table->tensors) out.insert(t.name);
  for (const leir::Block& b : p.blocks) add_loop_vars(b, out);
}

// The performance line: "5. Performance: ..." up to the end of the text or the next line.
std::string_view performance_line(std::string_view text) {
  const size_t at = text.find("5. Performance: ");
  if (at == std::string_view::npos) return {};
  std::string_view rest = text.substr(at + 16);
  return rest.substr(0, rest.find('\n'));
}

bool close_to(double printed, double actual) {
  // Figures print as whole numbers above 10 and with three digits below (effect.cpp).
  return std::abs(printed - actual) <= std::max(0.5, 0.006 * std::abs(actual));
}

void check_direction(std::string_view line, const CostFigures& f, std::vector<std::string>& out) {
  struct Phrase {
    std::string_view text;
    CostDirection direction;
  };
  const Phrase phrases[] = {{"lowers the modelled cost from ", CostDirection::kLower},
                            {"raises the modelled cost from ", CostDirection::kHigher},
                            {"leaves the modelled cost unchanged at ", CostDirection::kUnchanged}};
  const Phrase* found = nullptr;
  size_t where = 0;
  int count = 0;
  for (const Phrase& p : phrases)
    for (size_t at = line.find(p.text); at != std::string_view::npos;
         at = line.find(p.text, at + 1)) {
      ++count;
      found = &p;
      where = at + p.text.size();
    }
  if (count != 1) {
    out.push_back(fmt::format("performance part has {} direction phrases, not 1", count));
    return;
  }
  const std::string numbers(line.substr(where));
  char* end = nullptr;
  const double first = std::strtod(numbers.c_str(), &end);
  if (end == numbers.c_str()) {
    out.push_back("performance part: no figure after the direction phrase");
    return;
  }
  if (!close_to(first, f.before))
    out.push_back(fmt::format("performance part cites {} as the cost before, the figure is {}",
                              first, f.before));
  if (found->direction != CostDirection::kUnchanged) {
    const std::string_view to = " to ";
    if (std::string_view(end).substr(0, to.size()) != to) {
      out.push_back("performance part: no \"to\" figure");
    } else {
      const double second = std::strtod(end + to.size(), nullptr);
      if (!close_to(second, f.after))
        out.push_back(fmt::format("performance part cites {} as the cost after, the figure is {}",
                                  second, f.after));
    }
  }
  const CostDirection actual = cost_direction(f.before, f.after);
  if (found->direction != actual)
    out.push_back(
        fmt::format("performance part claims \"{}\" but the modelled cost goes from {} "
                    "to {}",
                    found->text.substr(0, found->text.find(' ')), f.before, f.after));
}

}  // namespace

std::vector<std::string> check_cot(std::string_view strategy_name, const leir::Program& before,
                                   const leir::Program& after, std::string_view cot_text,
                                   const CostFigures& figures) {
  std::vector<std::string> out;
  std::set<std::string> names;
  add_names(before, names);
  add_names(after, names);
  for (size_t open = cot_text.find('`'); open != std::string_view::npos;) {
    const size_t close = cot_text.find('`', open + 1);
    if (close == std::string_view::npos) {
      out.push_back(fmt::format("unmatched backtick at offset {}", open));
      break;
    }
    const std::string name(cot_text.substr(open + 1, close - open - 1));
    if (!names.count(name))
      out.push_back(
          fmt::format("`{}` is neither a tensor nor a loop variable of either program", name));
    open = cot_text.find('`', close + 1);
  }
  const size_t blocks = std::max(before.blocks.size(), after.blocks.size());
  for (size_t at = cot_text.find('#'); at != std::string_view::npos;
       at = cot_text.find('#', at + 1)) {
    size_t end = at + 1;
    size_t index = 0;
    while (end < cot_text.size() && cot_text[end] >= '0' && cot_text[end] <= '9')
      index = index * 10 + static_cast<size_t>(cot_text[end++] - '0');
    if (end == at + 1) continue;  // a '#' that is no block index
    if (index >= blocks)
      out.push_back(fmt::format("block #{} does not exist (the programs have {} and {} blocks)",
                                index, before.blocks.size(), after.blocks.size()));
  }
  const std::string_view line = performance_line(cot_text);
  if (line.empty()) {
    out.push_back("no performance part");
    return out;
  }
  if (line.substr(0, strategy_name.size()) != strategy_name ||
      line.size() == strategy_name.size() || line[strategy_name.size()] != ' ')
    out.push_back("performance part does not start with the strategy's effect phrase");
  check_direction(line, figures, out);
  return out;
}

}  // namespace steptp::cot
