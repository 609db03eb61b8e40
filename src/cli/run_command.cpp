// cli/run_command.cpp — `steptp run FILE [--seed N] [--scale X] [--json]`: run a program on
// seeded inputs with the reference interpreter and print statistics of each output.
// `--harness-inputs --dump FILE` gives the element values that the CUDA harness of `lower
// --target cuda` writes with its dump argument, for comparison on a GPU machine.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "codegen/timing.h"
#include "interp/interpreter.h"
#include "verify/verify.h"

namespace steptp::cli {
namespace {

struct Stats {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0;
  int64_t nan = 0;
};

Stats stats_of(const leir::TensorData& t) {
  Stats s;
  for (double v : t.values) {
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.sum += v;
  }
  return s;
}

nlohmann::json finite_or_text(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

}  // namespace

void setup_run_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    uint64_t seed = 0;
    double scale = 1.0;
    bool json = false;
    int64_t budget = 4'000'000'000;
    bool harness_inputs = false;
    std::string dump;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Run a LEIR program on seeded random inputs with the reference interpreter and "
      "print statistics of each output");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_option("--seed", flags->seed, "Input seed")->capture_default_str();
  cmd->add_option("--scale", flags->scale, "Scale of the random float inputs")
      ->capture_default_str();
  cmd->add_option("--budget", flags->budget, "Maximum statement executions")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  cmd->add_flag("--harness-inputs", flags->harness_inputs,
                "Use the deterministic inputs of the generated C and CUDA harnesses instead of "
                "seeded random ones (--seed and --scale are then ignored)");
  cmd->add_option("--dump", flags->dump,
                  "Write every output element here, one %.17g value per line, outputs in "
                  "declaration order (the CUDA harness's dump format)");
  cmd->callback([flags, &ctx] {
    auto program = load_program(flags->file);
    if (!program) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    if (!flags->dump.empty()) {
      std::filesystem::path parent = std::filesystem::path(flags->dump).parent_path();
      if (Result<void> dir = ensure_writable_dir(parent.empty() ? "." : parent.string());
          !dir.ok()) {
        std::cerr << "--dump " << flags->dump << ": " << dir.error().render() << "\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
    }
    interp::RunOptions options;
    options.work_budget = flags->budget;
    auto start = std::chrono::steady_clock::now();
    auto compiled = interp::Interpreter::compile(*program, options);
    interp::RunStats run_stats;
    Result<std::vector<leir::TensorData>> outputs =
        compiled ? compiled->run(flags->harness_inputs
                                     ? codegen::deterministic_inputs(*program)
                                     : verify::make_inputs(*program, flags->seed, flags->scale),
                                 &run_stats)
                 : Result<std::vector<leir::TensorData>>(compiled.error());
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!outputs) {
      if (flags->json) {
        std::cout << nlohmann::json{{"ok", false},
                                    {"category", outputs.error().category},
                                    {"message", outputs.error().render()}}
                         .dump(2)
                  << "\n";
      } else {
        std::cerr << flags->file << ": " << outputs.error().category << ": "
                  << outputs.error().render() << "\n";
      }
      ctx.exit_code = kExitBadInput;
      return;
    }
    nlohmann::json j{{"ok", true},
                     {"seed", flags->seed},
                     {"statement_executions", run_stats.statement_executions},
                     {"seconds", seconds}};
    for (const auto& t : *outputs) {
      Stats s = stats_of(t);
      int64_t n = static_cast<int64_t>(t.values.size());
      double mean = n - s.nan > 0 ? s.sum / static_cast<double>(n - s.nan) : 0.0;
      if (flags->json) {
        nlohmann::json first = nlohmann::json::array();
        for (size_t i = 0; i < t.values.size() && i < 8; ++i)
          first.push_back(finite_or_text(t.values[i]));
        j["outputs"].push_back({{"name", t.name},
                                {"dtype", leir::dtype_name(t.dtype)},
                                {"shape", t.shape},
                                {"min", finite_or_text(s.min)},
                                {"max", finite_or_text(s.max)},
                                {"mean", finite_or_text(mean)},
                                {"sum", finite_or_text(s.sum)},
                                {"nan", s.nan},
                                {"first", first}});
      } else {
        std::cout << "output " << t.name << " " << leir::dtype_name(t.dtype) << "[";
        for (size_t i = 0; i < t.shape.size(); ++i) std::cout << (i ? "," : "") << t.shape[i];
        std::cout << "]: min " << s.min << ", max " << s.max << ", mean " << mean << ", sum "
                  << s.sum;
        if (s.nan) std::cout << ", " << s.nan << " NaN";
        std::cout << "\n";
      }
    }
    if (!flags->dump.empty()) {
      std::string text;
      for (const auto& t : *outputs)
        for (double v : t.values) text += fmt::format("{:.17g}\n", v);
      if (!write_file_atomic(flags->dump, text)) {
        ctx.exit_code = kExitBadInput;
        return;
      }
    }
    if (flags->json) {
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << run_stats.statement_executions << " statement executions in " << seconds
                << " s\n";
    }
  });
}

}  // namespace steptp::cli
