// cli/build_dataset_command.cpp — `steptp build-dataset`: generate, verify, explain, filter and
// export the step-level dataset for the catalog workloads matching a glob.
//
// Only flag translation and rendering; the work is dataset::build_dataset.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/bundled_data.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "dataset/pipeline.h"
#include "dataset/recheck.h"

namespace steptp::cli {

void setup_build_dataset_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    dataset::BuildOptions options;
    uint64_t seed = 0;
    bool json = false;
    bool quiet = false;
    bool small_only = false;
    int64_t recheck = 0;
    bool recheck_interpreter = false;
  };
  auto flags = std::make_shared<Flags>();
  dataset::BuildOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "build-dataset",
      "Generate, verify, explain, filter and export the step-level dataset (chat JSONL, archive, "
      "stats)");
  cmd->add_option("--workloads", o.glob, "Catalog workload names to use (globs, comma-separated)")
      ->capture_default_str();
  o.workloads_dir.clear();
  cmd->add_option("--catalog", o.workloads_dir,
                  "Folder with catalog.json and graphs/ (default: found beside the checkout or "
                  "install, or $STEPTP_WORKLOADS_DIR)");
  cmd->add_option("--out", o.out_dir, "Output folder (checkpoints/ inside it make reruns resume)")
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "Seed of every random choice")->capture_default_str();
  cmd->add_option("--jobs", o.jobs, "Worker threads (0: all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--max-depth", o.generate.max_depth,
                  "Most steps before a recorded step (compositions and chains)")
      ->capture_default_str();
  cmd->add_option("--max-sites", o.generate.max_sites_per_strategy,
                  "Feasible sites of a hard strategy verified per program (0: all)")
      ->capture_default_str();
  cmd->add_option("--max-sites-easy", o.generate.max_sites_easy,
                  "The same for easy and very easy strategies (0: all)")
      ->capture_default_str();
  cmd->add_option("--unit-budget", o.generate.unit_work_budget,
                  "Statement executions one work unit may spend verifying before it stops "
                  "enumerating compositions and chains (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--verify-seeds", o.generate.verify_seeds, "Input seeds per verification")
      ->capture_default_str();
  cmd->add_option("--instance-budget", o.generate.instance_work_budget,
                  "Use a default-shape instance only below this many statement executions")
      ->capture_default_str();
  cmd->add_flag("--small-only", flags->small_only, "Only the small-shape instances");
  cmd->add_option("--single-cap", o.filter.single_cap,
                  "Single samples per strategy in train (held-out caps are scaled down)")
      ->capture_default_str();
  cmd->add_option("--test-fraction", o.filter.test_fraction, "Share of workloads held out")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.9));
  cmd->add_option("--multi-draws", o.filter.multi_max_draws,
                  "Most multi-answer samples drawn per original program")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--multi-easy-probability", o.filter.multi_easy.probability,
                  "Chance that an easy step is a multi-answer label (very easy: never; hard: "
                  "always)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--multi-labels", o.filter.multi_max_labels,
                  "Most labels in one multi-answer sample")
      ->capture_default_str()
      ->check(CLI::Range(2, 64));
  cmd->add_option(
         "--tokenizer", o.tokenizer_path,
         "Hugging Face tokenizer.json counting each sample's tokens (Qwen3 chat template); "
         "without it, the bytes / 4 estimate")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-tokens", o.max_tokens,
                  "Longest sample written, in tokens (the trainer's max length): longer multi "
                  "samples lose their least informative labels, others are dropped")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_flag("--with-lowered", o.generate.with_lowered,
                "Store C, CUDA and TIR text of each transformed program in the archive");
  cmd->add_option("--recheck", flags->recheck,
                  "Afterwards, re-verify this many random exported samples from the JSONL alone")
      ->capture_default_str();
  cmd->add_flag("--recheck-interpreter", flags->recheck_interpreter,
                "Re-verify with the interpreter only (default: interpreter and compiled C)");
  cmd->add_flag("--quiet", flags->quiet, "No progress bar");
  cmd->add_flag("--json", flags->json, "Print the statistics as JSON");
  cmd->callback([flags, &ctx] {
    dataset::BuildOptions options = flags->options;
    options.workloads_dir = catalog_dir(options.workloads_dir);
    options.generate.seed = flags->seed;
    options.filter.seed = flags->seed;
    options.include_default_shapes = !flags->small_only;
    options.progress = !flags->quiet;
    auto summary = dataset::build_dataset(options);
    if (!summary) {
      std::cerr << "steptp: " << summary.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    const dataset::DatasetStats& st = summary->stats;
    std::optional<dataset::RecheckSummary> recheck;
    if (flags->recheck > 0) {
      std::vector<std::string> files;
      for (const char* f :
           {"single_train.jsonl", "single_test.jsonl", "multi_train.jsonl", "multi_test.jsonl"})
        files.push_back(options.out_dir + "/" + f);
      auto r = dataset::recheck_chat_files(files, flags->recheck, flags->seed,
                                           !flags->recheck_interpreter, options.jobs);
      if (!r) {
        std::cerr << "steptp: " << r.error().render() << "\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
      recheck = std::move(*r);
      if (recheck->passed != recheck->checked) ctx.exit_code = kExitNo;
    }
    if (flags->json) {
      nlohmann::json j = dataset::to_json(st);
      j["wall_seconds"] = summary->wall_seconds;
      j["resumed_units"] = summary->resumed_units;
      j["out"] = options.out_dir;
      if (recheck)
        j["recheck"] = {{"checked", recheck->checked},
                        {"passed", recheck->passed},
                        {"engine", recheck->engine},
                        {"failures", recheck->failures}};
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format(
        "units {} ({} resumed, {} skipped) · candidates {} · verified {} · unique {} · single "
        "{}+{} · multi {}+{} (train+test) · hard share {:.1f}% · {:.1f} s\n",
        summary->units, summary->resumed_units, st.units_skipped, st.candidates, st.verified,
        st.unique, st.single_train, st.single_test, st.multi_train, st.multi_test,
        100.0 * st.hard_share_labels, summary->wall_seconds);
    const dataset::BudgetCounts& b = st.budget;
    std::cout << fmt::format(
        "tokens ({}) · budget {} · single p50/p99/max {}/{}/{} · multi p50/p99/max {}/{}/{} · "
        "single dropped {} · multi reduced {} (-{} labels), dropped {} + {} duplicates\n",
        st.token_counter, st.max_tokens, st.single_tokens.median, st.single_tokens.p99,
        st.single_tokens.max, st.multi_tokens.median, st.multi_tokens.p99, st.multi_tokens.max,
        b.dropped_over_budget_single, b.reduced_multi, b.labels_removed,
        b.dropped_over_budget_multi, b.dropped_duplicate_multi);
    std::cout << "per strategy (single kept / unique verified):\n";
    for (const auto& [name, c] : st.per_strategy)
      std::cout << fmt::format("  {:<40} {:>6} / {:<6} {}\n", name, c.single_kept, c.unique,
                               c.difficulty);
    std::cout << "rejected:";
    for (const auto& [why, n] : st.rejected) std::cout << fmt::format(" {}={}", why, n);
    std::cout << "\nwrote " << options.out_dir << "/{";
    for (size_t i = 0; i < summary->files.size(); ++i)
      std::cout << (i ? "," : "") << summary->files[i];
    std::cout << "}\n";
    if (recheck) {
      std::cout << fmt::format("recheck from the JSONL ({}): {}/{} samples re-verified\n",
                               recheck->engine, recheck->passed, recheck->checked);
      for (const std::string& f : recheck->failures) std::cout << "  " << f << "\n";
    }
  });
}

}  // namespace steptp::cli
