// cli/build_dataset_command.cpp — `steptp build-dataset`: generate, verify, explain, filter and
// export the step-level dataset for the catalog workloads matching a glob; with --shard K/N,
// only the checkpoints of one share of the units, for merge-dataset.
//
// Only flag translation and rendering; the work is dataset::build_dataset / build_shard.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/bundled_data.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "cli/dataset_report.h"
#include "cli/tvm_setup.h"
#include "dataset/pipeline.h"
#include "dataset/shard.h"

namespace steptp::cli {
namespace {

void print_shard_summary(const dataset::ShardSummary& s, const std::string& out_dir, bool json) {
  const dataset::DatasetStats& st = s.stats;
  if (json) {
    nlohmann::json j{{"shard", dataset::to_string(s.shard)},
                     {"units", s.units},
                     {"total_units", s.total_units},
                     {"resumed_units", s.resumed_units},
                     {"units_skipped", st.units_skipped},
                     {"states", st.states},
                     {"candidates", st.candidates},
                     {"verified", st.verified},
                     {"rejected", st.rejected},
                     {"wall_seconds", s.wall_seconds},
                     {"out", out_dir}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format(
      "shard {} · units {} of {} ({} resumed, {} skipped) · candidates {} · verified {} · {:.1f} "
      "s\nwrote {}/{{checkpoints/,{}}}; merge every shard's folder with merge-dataset\n",
      dataset::to_string(s.shard), s.units, s.total_units, s.resumed_units, st.units_skipped,
      st.candidates, st.verified, s.wall_seconds, out_dir, dataset::kShardManifest);
}

// --tokenizer and --max-tokens: how samples are counted and the budget they must fit.
void add_token_flags(CLI::App* cmd, dataset::BuildOptions& o) {
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
}

// --full-shape-check and --full-shape-work-limit: the build's check of default-shape samples.
void add_full_shape_flags(CLI::App* cmd, dataset::BuildOptions& o) {
  cmd->add_option("--full-shape-check", o.full_shape_check.samples,
                  "Default-shape samples verified on their reduced instance that are verified "
                  "again at full shape with the compiled C engine (a seeded sample; in stats)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  cmd->add_option("--full-shape-work-limit", o.full_shape_check.work_limit,
                  "Most statement executions per run a sample may need to be in that check")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 50));
}

}  // namespace

void setup_build_dataset_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    dataset::BuildOptions options;
    uint64_t seed = 0;
    bool quiet = false;
    bool small_only = false;
    std::string verify_engine = "interpreter";
    std::string shard;
    DatasetReportFlags report;
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
  cmd->add_option(
         "--verify-engine", flags->verify_engine,
         "interpreter | tvm (the interpreter's safety checks, then TVM's build of both "
         "programs on every seed: far slower; needs apache-tvm, scripts/setup-venv.sh tvm)")
      ->capture_default_str()
      ->check(CLI::IsMember({"interpreter", "tvm"}));
  cmd->add_option("--instance-budget", o.generate.instance_work_budget,
                  "Use a default-shape instance only below this many statement executions")
      ->capture_default_str();
  cmd->add_flag("--small-only", flags->small_only, "Only the small-shape instances");
  add_full_shape_flags(cmd, o);
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
  add_token_flags(cmd, o);
  cmd->add_flag("--with-lowered", o.generate.with_lowered,
                "Store C, CUDA and TIR text of each transformed program in the archive");
  cmd->add_option("--shard", flags->shard,
                  "Build only part K of N (K from 0): the checkpoints of its units and a "
                  "shard.json manifest, no merged files; merge the N folders with merge-dataset");
  add_dataset_report_flags(cmd, flags->report);
  cmd->add_flag("--quiet", flags->quiet, "No progress bar");
  cmd->callback([flags, &ctx] {
    dataset::BuildOptions options = flags->options;
    options.workloads_dir = catalog_dir(options.workloads_dir);
    options.generate.seed = flags->seed;
    options.filter.seed = flags->seed;
    options.include_default_shapes = !flags->small_only;
    options.progress = !flags->quiet;
    flags->report.progress = !flags->quiet;
    if (flags->verify_engine == "tvm" &&
        !use_tvm_engine(options.generate.tvm, "build-dataset", ctx))
      return;
    if (!flags->shard.empty()) {
      auto shard = dataset::parse_shard(flags->shard);
      if (shard && flags->report.recheck > 0)
        shard = Error::make("bad_input",
                            "--recheck needs the merged files: pass it to merge-dataset instead");
      auto summary = shard ? dataset::build_shard(options, *shard)
                           : Result<dataset::ShardSummary>(shard.error());
      if (!summary) {
        std::cerr << "steptp: " << summary.error().render() << "\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
      print_shard_summary(*summary, options.out_dir, flags->report.json);
      return;
    }
    auto summary = dataset::build_dataset(options);
    if (!summary) {
      std::cerr << "steptp: " << summary.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    report_dataset(*summary, options.out_dir, flags->seed, options.jobs, flags->report, ctx);
  });
}

}  // namespace steptp::cli
