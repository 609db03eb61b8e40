// main.cpp — the `steptp` executable: the command table and top-level error handling only.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/commands.h"
#include "cli/json_errors.h"
#include "support/error.h"

namespace {

using steptp::cli::CommandEntry;

// One line per subcommand; each lives in src/cli/<name>_command.cpp.
constexpr CommandEntry kCommands[] = {
    {"fmt", steptp::cli::setup_fmt_command},
    {"check", steptp::cli::setup_check_command},
    {"run", steptp::cli::setup_run_command},
    {"verify", steptp::cli::setup_verify_command},
    {"lower", steptp::cli::setup_lower_command},
    {"bench", steptp::cli::setup_bench_command},
    {"strategies", steptp::cli::setup_strategies_command},
    {"sites", steptp::cli::setup_sites_command},
    {"apply", steptp::cli::setup_apply_command},
    {"import", steptp::cli::setup_import_command},
    {"workloads", steptp::cli::setup_workloads_command},
    {"optimize", steptp::cli::setup_optimize_command},
    {"build-dataset", steptp::cli::setup_build_dataset_command},
    {"merge-dataset", steptp::cli::setup_merge_dataset_command},
    {"check-cot", steptp::cli::setup_check_cot_command},
    {"eval-single", steptp::cli::setup_eval_single_command},
    {"fake-llm", steptp::cli::setup_fake_llm_command},
    {"tokens", steptp::cli::setup_tokens_command},
    {"serve", steptp::cli::setup_serve_command},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"steptp — verified, step-level tensor-program optimization (LEIR toolkit)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "steptp 0.1.0");
  steptp::cli::CommandContext ctx;
  for (const CommandEntry& c : kCommands) c.setup(app, ctx);
  steptp::cli::JsonErrorScope json_errors(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return json_errors.finish(code == 0 ? 0 : steptp::cli::kExitBadInput, "bad_flags");
  } catch (const steptp::InternalError& e) {
    std::cerr << "steptp: " << e.what() << "\n(this is a bug in steptp; please report it)\n";
    return json_errors.finish(steptp::cli::kExitInternal);
  } catch (const std::bad_alloc&) {
    std::cerr << "steptp: out of memory\n";
    return json_errors.finish(steptp::cli::kExitBadInput, "out_of_memory");
  } catch (const std::exception& e) {
    std::cerr << "steptp: internal error: " << e.what() << "\n";
    return json_errors.finish(steptp::cli::kExitInternal);
  }
  return json_errors.finish(ctx.exit_code);
}
