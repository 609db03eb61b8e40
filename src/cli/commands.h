// cli/commands.h — the setup function of every subcommand; the table itself is in main.cpp.
#pragma once

#include "cli/command.h"

namespace steptp::cli {

void setup_fmt_command(CLI::App& app, CommandContext& ctx);
void setup_check_command(CLI::App& app, CommandContext& ctx);
void setup_run_command(CLI::App& app, CommandContext& ctx);
void setup_verify_command(CLI::App& app, CommandContext& ctx);
void setup_lower_command(CLI::App& app, CommandContext& ctx);
void setup_bench_command(CLI::App& app, CommandContext& ctx);

void setup_strategies_command(CLI::App& app, CommandContext& ctx);
void setup_sites_command(CLI::App& app, CommandContext& ctx);
void setup_apply_command(CLI::App& app, CommandContext& ctx);

void setup_import_command(CLI::App& app, CommandContext& ctx);
void setup_workloads_command(CLI::App& app, CommandContext& ctx);
void setup_optimize_command(CLI::App& app, CommandContext& ctx);
void setup_build_dataset_command(CLI::App& app, CommandContext& ctx);
void setup_merge_dataset_command(CLI::App& app, CommandContext& ctx);
void setup_check_cot_command(CLI::App& app, CommandContext& ctx);

void setup_eval_single_command(CLI::App& app, CommandContext& ctx);
void setup_fake_llm_command(CLI::App& app, CommandContext& ctx);
void setup_tokens_command(CLI::App& app, CommandContext& ctx);
void setup_serve_command(CLI::App& app, CommandContext& ctx);

}  // namespace steptp::cli
