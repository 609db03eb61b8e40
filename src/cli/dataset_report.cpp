// cli/dataset_report.cpp — the after-build re-check and summary shared by build-dataset and
// merge-dataset.
#include "cli/dataset_report.h"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "dataset/recheck.h"

namespace steptp::cli {
namespace {

void print_text_summary(const dataset::BuildSummary& summary, const std::string& out_dir) {
  const dataset::DatasetStats& st = summary.stats;
  std::cout << fmt::format(
      "units {} ({} resumed, {} skipped) · candidates {} · verified {} · unique {} · single "
      "{}+{} · multi {}+{} (train+test) · hard share {:.1f}% · {:.1f} s\n",
      summary.units, summary.resumed_units, st.units_skipped, st.candidates, st.verified, st.unique,
      st.single_train, st.single_test, st.multi_train, st.multi_test, 100.0 * st.hard_share_labels,
      summary.wall_seconds);
  const dataset::BudgetCounts& b = st.budget;
  std::cout << fmt::format(
      "tokens ({}) · budget {} · single p50/p99/max {}/{}/{} · multi p50/p99/max {}/{}/{} · "
      "single dropped {} · multi reduced {} (-{} labels), dropped {} + {} duplicates\n",
      st.token_counter, st.max_tokens, st.single_tokens.median, st.single_tokens.p99,
      st.single_tokens.max, st.multi_tokens.median, st.multi_tokens.p99, st.multi_tokens.max,
      b.dropped_over_budget_single, b.reduced_multi, b.labels_removed, b.dropped_over_budget_multi,
      b.dropped_duplicate_multi);
  std::cout << "per strategy (single kept / unique verified):\n";
  for (const auto& [name, c] : st.per_strategy)
    std::cout << fmt::format("  {:<40} {:>6} / {:<6} {}\n", name, c.single_kept, c.unique,
                             c.difficulty);
  std::cout << "rejected:";
  for (const auto& [why, n] : st.rejected) std::cout << fmt::format(" {}={}", why, n);
  std::cout << "\nwrote " << out_dir << "/{";
  for (size_t i = 0; i < summary.files.size(); ++i) std::cout << (i ? "," : "") << summary.files[i];
  std::cout << "}\n";
}

}  // namespace

void add_dataset_report_flags(CLI::App* cmd, DatasetReportFlags& flags) {
  cmd->add_option("--recheck", flags.recheck,
                  "Afterwards, re-verify this many random exported samples from the JSONL alone")
      ->capture_default_str();
  cmd->add_flag("--recheck-interpreter", flags.recheck_interpreter,
                "Re-verify with the interpreter only (default: interpreter and compiled C)");
  cmd->add_flag("--json", flags.json, "Print the statistics as JSON");
}

void report_dataset(const dataset::BuildSummary& summary, const std::string& out_dir, uint64_t seed,
                    int jobs, const DatasetReportFlags& flags, CommandContext& ctx) {
  std::optional<dataset::RecheckSummary> recheck;
  if (flags.recheck > 0) {
    std::vector<std::string> files;
    for (const char* f :
         {"single_train.jsonl", "single_test.jsonl", "multi_train.jsonl", "multi_test.jsonl"})
      files.push_back(out_dir + "/" + f);
    auto r = dataset::recheck_chat_files(files, flags.recheck, seed, !flags.recheck_interpreter,
                                         jobs, flags.progress);
    if (!r) {
      std::cerr << "steptp: " << r.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    recheck = std::move(*r);
    if (recheck->passed != recheck->checked) ctx.exit_code = kExitNo;
  }
  const dataset::FullShapeCheck& full = summary.stats.full_shape;
  if (full.passed != full.checked) ctx.exit_code = kExitNo;
  if (flags.json) {
    nlohmann::json j = dataset::to_json(summary.stats);
    j["wall_seconds"] = summary.wall_seconds;
    j["resumed_units"] = summary.resumed_units;
    j["out"] = out_dir;
    if (recheck)
      j["recheck"] = {{"checked", recheck->checked},
                      {"passed", recheck->passed},
                      {"skipped_too_large", recheck->skipped},
                      {"engine", recheck->engine},
                      {"failures", recheck->failures}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  print_text_summary(summary, out_dir);
  if (full.checked > 0) {
    std::cout << fmt::format(
        "full-shape check (compiled C): {}/{} default-shape samples verified on their reduced "
        "instance pass at full shape\n",
        full.passed, full.checked);
    for (const std::string& f : full.failures) std::cout << "  " << f << "\n";
  }
  if (recheck) {
    std::cout << fmt::format("recheck from the JSONL ({}): {}/{} samples re-verified",
                             recheck->engine, recheck->passed, recheck->checked);
    if (recheck->skipped > 0)
      std::cout << fmt::format(" ({} sampled ones too large to re-verify skipped)",
                               recheck->skipped);
    std::cout << "\n";
    for (const std::string& f : recheck->failures) std::cout << "  " << f << "\n";
  }
}

}  // namespace steptp::cli
