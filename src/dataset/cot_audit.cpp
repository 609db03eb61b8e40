// dataset/cot_audit.cpp — rebuild sampled archive records and check their chain of thought.
#include "dataset/cot_audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cost/cost_model.h"
#include "cot/cot_check.h"
#include "dataset/record.h"
#include "dataset/seeded_random.h"
#include "leir/parser.h"

namespace steptp::dataset {
namespace {

struct Checked {
  std::vector<std::string> violations;
  std::string effect;  // the performance part up to its figures
};

Checked check_line(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return {{"not a JSON record"}, ""};
  StepRecord r;
  try {
    r = step_record_from_json(j);
  } catch (const std::exception& e) {
    return {{std::string("not a step record: ") + e.what()}, ""};
  }
  auto before = leir::parse_program(r.declarations + r.original + "\n");
  if (!before) return {{"original: " + before.error().render()}, ""};
  auto body = leir::parse_body(r.transformed);
  if (!body) return {{"transformed: " + body.error().render()}, ""};
  const leir::Program after{before->decls, std::move(*body)};
  Checked c;
  c.violations = cot::check_cot(r.strategy, *before, after, r.cot,
                                {cost::estimated_cost(*before), cost::estimated_cost(after)});
  const size_t at = r.cot.find("5. Performance: ");
  if (at != std::string::npos) {
    std::string line = r.cot.substr(at + 16);
    line = line.substr(0, std::min(line.find(". This step"), line.find("; ")));
    // Without the strategy's name in front, so that two strategies with one phrase collide.
    if (line.starts_with(r.strategy + " ")) c.effect = line.substr(r.strategy.size() + 1);
  }
  return c;
}

}  // namespace

Result<CotAudit> audit_archive_cot(const std::string& archive, int64_t sample, uint64_t seed) {
  std::ifstream in(archive);
  if (!in) return Error::make("io_error", "cannot read " + archive);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(std::move(line));
  CotAudit a;
  a.records = static_cast<int64_t>(lines.size());
  // A seeded sample: the lines whose seeded hash of their number is smallest, in file order.
  std::vector<size_t> order(lines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (sample > 0 && static_cast<size_t>(sample) < order.size()) {
    std::sort(order.begin(), order.end(), [seed](size_t x, size_t y) {
      return mix64(seed ^ mix64(x)) < mix64(seed ^ mix64(y));
    });
    order.resize(static_cast<size_t>(sample));
    std::sort(order.begin(), order.end());
  }
  std::map<std::string, std::set<std::string>> users;  // effect sentence → strategies
  std::set<std::string> strategies;
  for (size_t i : order) {
    Checked c = check_line(lines[i]);
    ++a.checked;
    const nlohmann::json j = nlohmann::json::parse(lines[i], nullptr, false);
    const std::string strategy =
        j.is_object() && j.contains("strategy") && j["strategy"].is_string()
            ? j["strategy"].get<std::string>()
            : "?";
    strategies.insert(strategy);
    if (!c.effect.empty()) users[c.effect].insert(strategy);
    if (c.violations.empty()) continue;
    ++a.failed;
    for (const std::string& v : c.violations)
      if (a.failures.size() < 20)
        a.failures.push_back(fmt::format("line {} ({}): {}", i + 1, strategy, v));
  }
  a.strategies = static_cast<int64_t>(strategies.size());
  for (const auto& [sentence, names] : users) {
    if (names.size() < 2) continue;
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    a.shared_effects[sentence] = list;
  }
  return a;
}

}  // namespace steptp::dataset
