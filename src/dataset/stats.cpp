// dataset/stats.cpp — rendering of DatasetStats.
#include "dataset/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace steptp::dataset {
namespace {

std::string percent(double x) { return fmt::format("{:.2f}%", 100.0 * x); }

std::string share(int64_t part, int64_t whole) {
  return whole ? percent(static_cast<double>(part) / whole) : "-";
}

std::string lengths_row(std::string_view name, const LengthSummary& l) {
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", name, l.count, l.mean,
                     l.median, l.p90, l.p99, l.max, share(l.over_4k, l.count),
                     share(l.over_8k, l.count), share(l.over_10k, l.count));
}

std::string_view difficulty_colour(const std::string& d) {
  if (d == "hard") return "#c0392b";
  if (d == "easy") return "#2980b9";
  return "#95a5a6";
}

}  // namespace

nlohmann::json to_json(const LengthSummary& l) {
  return {{"count", l.count},     {"mean", l.mean},       {"p50", l.median},
          {"p90", l.p90},         {"p99", l.p99},         {"max", l.max},
          {"over_4k", l.over_4k}, {"over_8k", l.over_8k}, {"over_10k", l.over_10k}};
}

LengthSummary summarize_lengths(std::vector<int64_t> lengths) {
  LengthSummary s;
  s.count = static_cast<int64_t>(lengths.size());
  if (lengths.empty()) return s;
  std::sort(lengths.begin(), lengths.end());
  int64_t total = 0;
  for (int64_t l : lengths) total += l;
  s.mean = total / s.count;
  auto rank = [&](int64_t percent) {  // nearest rank: the ceil(p·n)-th smallest
    const int64_t r = (percent * s.count + 99) / 100;
    return lengths[static_cast<size_t>(std::max<int64_t>(r, 1) - 1)];
  };
  s.median = rank(50);
  s.p90 = rank(90);
  s.p99 = rank(99);
  s.max = lengths.back();
  for (int64_t l : lengths) {
    s.over_4k += l > 4096;
    s.over_8k += l > 8192;
    s.over_10k += l > 10240;
  }
  return s;
}

nlohmann::json to_json(const DatasetStats& s) {
  nlohmann::json per = nlohmann::json::object();
  for (const auto& [name, c] : s.per_strategy)
    per[name] = {{"category", c.category},       {"difficulty", c.difficulty},
                 {"verified", c.verified},       {"unique", c.unique},
                 {"single_kept", c.single_kept}, {"multi_labels", c.multi_labels}};
  nlohmann::json depth = nlohmann::json::object();
  for (const auto& [d, n] : s.single_by_depth) depth[std::to_string(d)] = n;
  nlohmann::json tokens{{"single", to_json(s.single_tokens)}, {"multi", to_json(s.multi_tokens)}};
  for (const auto& [file, l] : s.tokens) {
    tokens[file] = to_json(l);
    if (auto p = s.prompt_tokens.find(file); p != s.prompt_tokens.end())
      tokens[file]["prompt"] = to_json(p->second);
    if (auto a = s.answer_tokens.find(file); a != s.answer_tokens.end())
      tokens[file]["answer"] = to_json(a->second);
  }
  return {{"units", s.units},
          {"units_skipped", s.units_skipped},
          {"skipped_units", s.skipped_units},
          {"states", s.states},
          {"candidates", s.candidates},
          {"verified", s.verified},
          {"unique", s.unique},
          {"duplicates", s.duplicates},
          {"rejected", s.rejected},
          {"per_strategy", per},
          {"single_by_category", s.single_by_category},
          {"single_by_difficulty", s.single_by_difficulty},
          {"single_by_depth", depth},
          {"single_by_shape_class", s.single_by_shape_class},
          {"multi_by_shape_class", s.multi_by_shape_class},
          {"full_shape_check",
           {{"candidates", s.full_shape.candidates},
            {"eligible", s.full_shape.eligible},
            {"checked", s.full_shape.checked},
            {"passed", s.full_shape.passed},
            {"failures", s.full_shape.failures}}},
          {"filter_verdicts", s.filter_verdicts},
          {"single_train", s.single_train},
          {"single_test", s.single_test},
          {"multi_train", s.multi_train},
          {"multi_test", s.multi_test},
          {"train_workloads", s.train_workloads},
          {"test_workloads", s.test_workloads},
          {"hard_share_single", s.hard_share_single},
          {"hard_share_labels", s.hard_share_labels},
          {"token_budget",
           {{"counter", s.token_counter},
            {"max_tokens", s.max_tokens},
            {"dropped_over_budget_single", s.budget.dropped_over_budget_single},
            {"reduced_multi", s.budget.reduced_multi},
            {"labels_removed", s.budget.labels_removed},
            {"dropped_over_budget_multi", s.budget.dropped_over_budget_multi},
            {"dropped_duplicate_multi", s.budget.dropped_duplicate_multi}}},
          {"tokens", tokens}};
}

namespace {

std::string shape_class_markdown(const DatasetStats& s) {
  std::string md =
      "\n## Samples by shape class\n\n| shape class | single | share | multi | share |\n"
      "|---|---|---|---|---|\n";
  int64_t singles = 0, multis = 0;
  std::set<std::string> classes;
  for (const auto& [c, n] : s.single_by_shape_class) singles += n, classes.insert(c);
  for (const auto& [c, n] : s.multi_by_shape_class) multis += n, classes.insert(c);
  auto count = [](const std::map<std::string, int64_t>& m, const std::string& c) {
    auto it = m.find(c);
    return it == m.end() ? int64_t{0} : it->second;
  };
  for (const std::string& c : classes) {
    const int64_t a = count(s.single_by_shape_class, c), b = count(s.multi_by_shape_class, c);
    md += fmt::format("| {} | {} | {} | {} | {} |\n", c, a, share(a, singles), b, share(b, multis));
  }
  auto at_default = [](const std::map<std::string, int64_t>& m) {
    int64_t n = 0;
    for (const auto& [c, k] : m)
      if (c.rfind("default", 0) == 0) n += k;
    return n;
  };
  const int64_t single_default = at_default(s.single_by_shape_class);
  const int64_t multi_default = at_default(s.multi_by_shape_class);
  md += fmt::format(
      "\nShown at KernelBench default shapes: {} of {} single samples ({}), {} of {} multi "
      "samples ({}), {} of {} kept samples ({}).\n",
      single_default, singles, share(single_default, singles), multi_default, multis,
      share(multi_default, multis), single_default + multi_default, singles + multis,
      share(single_default + multi_default, singles + multis));
  const FullShapeCheck& f = s.full_shape;
  md += fmt::format(
      "\nFull-shape check (compiled C, as shown): {} of {} sampled default-shape samples pass "
      "({} single samples were verified on their reduced instance, {} of them within the work "
      "limit).\n",
      f.passed, f.checked, f.candidates, f.eligible);
  for (const std::string& why : f.failures) md += "- FAILED " + why + "\n";
  return md;
}

}  // namespace

std::string to_markdown(const DatasetStats& s) {
  std::string md = "# Dataset statistics\n\n";
  md += fmt::format(
      "| figure | value |\n|---|---|\n| work units | {} ({} skipped) |\n| states enumerated | {} "
      "|\n| candidates | {} |\n| verified | {} |\n| unique after de-duplication | {} ({} "
      "duplicates) |\n| single samples train / test | {} / {} |\n| multi samples train / test | "
      "{} / {} |\n| workloads train / held out | {} / {} |\n| hard share (single) | {} |\n| hard "
      "share (all labels) | {} |\n\n",
      s.units, s.units_skipped, s.states, s.candidates, s.verified, s.unique, s.duplicates,
      s.single_train, s.single_test, s.multi_train, s.multi_test, s.train_workloads,
      s.test_workloads.size(), percent(s.hard_share_single), percent(s.hard_share_labels));
  md += fmt::format(
      "## Tokens per sample\n\nWhole chat (system + user + assistant), counted with {}; every "
      "written sample is within {} tokens. Each file's prompt (system + user) and answer (the "
      "assistant's turn, its header and end marker included) follow its row.\n\n| samples | count "
      "| mean | p50 | p90 | p99 | max | "
      "> 4k | > 8k | > 10k |\n|---|---|---|---|---|---|---|---|---|---|\n",
      s.token_counter, s.max_tokens);
  for (const char* file : {"single_train", "single_test", "multi_train", "multi_test"})
    if (auto it = s.tokens.find(file); it != s.tokens.end()) {
      md += lengths_row(file, it->second);
      if (auto p = s.prompt_tokens.find(file); p != s.prompt_tokens.end() && p->second.count)
        md += lengths_row(fmt::format("{} prompt", file), p->second);
      if (auto a = s.answer_tokens.find(file); a != s.answer_tokens.end() && a->second.count)
        md += lengths_row(fmt::format("{} answer", file), a->second);
    }
  md += lengths_row("single (all)", s.single_tokens);
  md += lengths_row("multi (all)", s.multi_tokens);
  md += fmt::format(
      "\n## Token budget\n\n| figure | count |\n|---|---|\n| single dropped over budget | {} "
      "|\n| multi reduced (fewer labels) | {} |\n| labels removed from those | {} |\n| multi "
      "dropped over budget | {} |\n| multi dropped as duplicates after reduction | {} |\n\n",
      s.budget.dropped_over_budget_single, s.budget.reduced_multi, s.budget.labels_removed,
      s.budget.dropped_over_budget_multi, s.budget.dropped_duplicate_multi);
  md +=
      "## Per strategy\n\n| strategy | category | difficulty | verified | unique | single | "
      "multi labels |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [name, c] : s.per_strategy)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", name, c.category, c.difficulty,
                      c.verified, c.unique, c.single_kept, c.multi_labels);
  auto table = [&md](std::string_view title, const auto& m) {
    md += fmt::format("\n## {}\n\n| key | count |\n|---|---|\n", title);
    for (const auto& [k, v] : m) md += fmt::format("| {} | {} |\n", k, v);
  };
  table("Single samples by category", s.single_by_category);
  table("Single samples by difficulty", s.single_by_difficulty);
  table("Single samples by depth (steps before the recorded one)", s.single_by_depth);
  md += shape_class_markdown(s);
  table("Rejected candidates by reason", s.rejected);
  table("Single-answer filter verdicts", s.filter_verdicts);
  md += "\n## Skipped units\n\n";
  if (s.skipped_units.empty()) md += "none\n";
  for (const auto& [u, why] : s.skipped_units) md += fmt::format("- `{}`: {}\n", u, why);
  md += "\n## Held-out workloads\n\n";
  for (const std::string& w : s.test_workloads) md += "- " + w + "\n";
  return md;
}

std::string strategy_chart_svg(const DatasetStats& s) {
  constexpr int kRow = 18, kLabel = 330, kBar = 420, kTop = 30;
  int64_t most = 1;
  for (const auto& [name, c] : s.per_strategy) most = std::max(most, c.single_kept);
  const int height = kTop + kRow * static_cast<int>(s.per_strategy.size()) + 10;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"monospace\" font-size=\"12\">\n<text x=\"4\" y=\"18\" font-size=\"14\">"
      "single-answer samples per strategy (grey very_easy, blue easy, red hard)</text>\n",
      kLabel + kBar + 80, height);
  int y = kTop;
  for (const auto& [name, c] : s.per_strategy) {
    const int w = static_cast<int>(kBar * c.single_kept / most);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabel - 6,
                       y + 12, name);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", kLabel,
                       y + 2, w, kRow - 4, difficulty_colour(c.difficulty));
    svg +=
        fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", kLabel + w + 4, y + 12, c.single_kept);
    y += kRow;
  }
  return svg + "</svg>\n";
}

}  // namespace steptp::dataset
