// cli/merge_dataset_command.cpp — `steptp merge-dataset PART... --out DIR`: the folders that
// `build-dataset --shard K/N` wrote become one dataset, byte-identical to a one-process
// build-dataset with the same seed and options.
//
// Only flag translation and rendering; the checks and the merge are dataset::merge_shards.
#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/dataset_report.h"
#include "dataset/shard.h"

namespace steptp::cli {

void setup_merge_dataset_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    dataset::MergeOptions options;
    DatasetReportFlags report;
  };
  auto flags = std::make_shared<Flags>();
  dataset::MergeOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "merge-dataset",
      "Merge the parts of a sharded build-dataset (--shard K/N) into the chat files, archive and "
      "stats, checking that they share one setting and cover every unit exactly once");
  cmd->add_option("parts", o.parts, "The folders build-dataset --shard wrote, one per shard")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--out", o.out_dir, "Output folder (may be one of the parts)")->required();
  cmd->add_option("--jobs", o.jobs, "Worker threads (0: all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--tokenizer", o.tokenizer_path,
                  "The tokenizer.json the shards counted with, where it is on this machine "
                  "(default: the path the shards recorded)")
      ->check(CLI::ExistingFile);
  add_dataset_report_flags(cmd, flags->report);
  cmd->callback([flags, &ctx] {
    auto merged = dataset::merge_shards(flags->options);
    if (!merged) {
      std::cerr << "steptp: " << merged.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    report_dataset(merged->build, flags->options.out_dir, merged->options.filter.seed,
                   flags->options.jobs, flags->report, ctx);
  });
}

}  // namespace steptp::cli
