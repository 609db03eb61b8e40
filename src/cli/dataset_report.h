// cli/dataset_report.h — what build-dataset and merge-dataset print once a dataset is written:
// the optional re-check of random exported samples from the JSONL alone, then the statistics as
// text or --json. Rendering only; the numbers come from dataset::BuildSummary.
#pragma once

#include <cstdint>
#include <string>

#include "cli/command.h"
#include "dataset/pipeline.h"

namespace steptp::cli {

struct DatasetReportFlags {
  bool json = false;
  int64_t recheck = 0;
  bool recheck_interpreter = false;
  bool progress = false;  // a progress bar for the re-check (not a flag: the command's --quiet)
};

// Declares --recheck, --recheck-interpreter and --json on `cmd`.
void add_dataset_report_flags(CLI::App* cmd, DatasetReportFlags& flags);

// Re-checks (when asked, seeded with `seed`) and prints the summary of the dataset in `out_dir`.
// Sets ctx.exit_code: 1 when a re-checked sample fails, 2 when the re-check cannot run.
void report_dataset(const dataset::BuildSummary& summary, const std::string& out_dir, uint64_t seed,
                    int jobs, const DatasetReportFlags& flags, CommandContext& ctx);

}  // namespace steptp::cli
