// cli/bench_command.cpp — `steptp bench FILE|WORKLOAD [--vs-torch] [--threads N] [--json]`:
// the time of a program's naive compiled C on deterministic inputs (codegen/timing.h) and, with
// --vs-torch, PyTorch eager on the same shapes, dtype and thread count (search/problem.h runs
// python/torch_baseline.py), with the ratio of the two medians.
//
// A workload name (or graph .json) is imported at its default shapes (--shapes small for the
// small ones); a .leir file has no PyTorch model, so --vs-torch needs a workload or graph.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/bundled_data.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "codegen/c_engine.h"
#include "codegen/timing.h"
#include "search/problem.h"
#include "service/api.h"

namespace steptp::cli {
namespace {

bool is_leir_file(const std::string& spec) {
  return spec == "-" || (spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".leir") == 0);
}

struct BenchFlags {
  std::string spec;
  int threads = 1;
  int repeats = 10;
  int warmup = 2;
  bool json = false;
  bool vs_torch = false;
  std::string shapes = "default";
  std::string workloads_dir;  // empty: cli/bundled_data.h finds it
  std::string torch_script;
  std::string python = "/usr/bin/python3";
  int64_t max_work = 0;
  int64_t max_memory_gib = codegen::CEngineOptions{}.memory_budget_bytes >> 30;
};

// The program to time: a .leir file as it is, anything else through search::load_problem.
// nullopt after saying why on stderr.
std::optional<search::Problem> load_bench_problem(const BenchFlags& flags) {
  const std::string& spec = flags.spec;
  search::Problem problem;
  if (is_leir_file(spec)) {
    if (flags.vs_torch) {
      std::cerr << spec
                << ": --vs-torch needs a catalog workload or a graph .json (a .leir "
                   "file has no PyTorch model)\n";
      return std::nullopt;
    }
    auto program = load_program(spec);
    if (!program) return std::nullopt;
    problem.name = spec;
    problem.program = std::move(*program);
  } else {
    Result<search::Problem> loaded = search::load_problem(
        spec, flags.workloads_dir,
        flags.shapes == "small" ? search::ShapeChoice::kSmall : search::ShapeChoice::kDefault, 0);
    if (!loaded.ok()) {
      std::cerr << spec << ": " << loaded.error().render() << "\n";
      return std::nullopt;
    }
    problem = std::move(loaded).value();
  }
  return problem;
}

// The timing (and PyTorch's, when there is one) as JSON or as two lines of text.
void print_bench(const BenchFlags& flags, const search::Problem& problem, int64_t work,
                 const codegen::Timing& timing, bool cache_hit,
                 const std::optional<search::TorchBaseline>& torch,
                 const std::string& torch_error) {
  const std::string& spec = flags.spec;
  if (flags.json) {
    nlohmann::json j = service::timing_json(timing);
    j.update({{"input", spec},
              {"workload", problem.name},
              {"instance", problem.instance},
              {"dtype", problem.dtype},
              {"static_work", work},
              {"cache_hit", cache_hit}});
    if (problem.shape_overrides.size())
      j["shapes"] = nlohmann::json::parse(problem.shape_overrides, nullptr, false);
    if (torch) {
      nlohmann::json blas = nlohmann::json::parse(torch->blas, nullptr, false);
      j["torch"] = {{"median_ms", torch->median_ms},
                    {"threads", torch->threads},
                    {"blas", blas.is_discarded() ? nlohmann::json(torch->blas) : blas}};
      j["ratio_c_over_torch"] = torch->median_ms > 0 ? timing.median_ms / torch->median_ms : 0.0;
    }
    if (!torch_error.empty()) j["torch_error"] = torch_error;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format(
      "{}: naive compiled C, {} thread(s): median {:.3f} ms (min {:.3f}, max {:.3f}, IQR {:.3f}) "
      "over {} runs after {} warm-up\n",
      problem.name, timing.threads, timing.median_ms, timing.min_ms, timing.max_ms, timing.iqr_ms,
      timing.repeats, timing.warmup);
  if (torch) {
    double ratio = torch->median_ms > 0 ? timing.median_ms / torch->median_ms : 0.0;
    std::cout << fmt::format(
        "{}: PyTorch eager {}, {} thread(s): median {:.3f} ms\n"
        "ratio naive C / PyTorch = {:.2f} ({})\n",
        problem.name, problem.dtype, torch->threads, torch->median_ms, ratio,
        ratio >= 1 ? fmt::format("naive C is {:.2f}x slower", ratio)
                   : fmt::format("naive C is {:.2f}x faster", 1 / ratio));
  }
}

}  // namespace

void setup_bench_command(CLI::App& app, CommandContext& ctx) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Time the naive compiled C of a program or catalog workload (median of repeated "
      "runs), optionally against PyTorch eager");
  cmd->add_option("input", flags->spec,
                  "A .leir program ('-' for stdin), a graph .json, or a catalog workload name")
      ->required();
  cmd->add_option("--threads", flags->threads, "Threads for every contender (OpenMP, torch)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--repeats", flags->repeats, "Timed runs")->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", flags->warmup, "Untimed runs first")->check(CLI::Range(0, 1000000));
  cmd->add_flag("--vs-torch", flags->vs_torch,
                "Also time PyTorch eager on the same shapes, dtype and threads");
  cmd->add_option("--shapes", flags->shapes, "Catalog workloads: default | small")
      ->check(CLI::IsMember({"default", "small"}));
  cmd->add_option("--catalog", flags->workloads_dir,
                  "Folder with catalog.json and graphs/ (default: found beside the checkout or "
                  "install, or $STEPTP_WORKLOADS_DIR)");
  cmd->add_option("--torch-script", flags->torch_script, "Path of torch_baseline.py");
  cmd->add_option("--python", flags->python, "Python with torch (Debian's python3-torch)");
  cmd->add_option("--max-work", flags->max_work,
                  "Skip (exit 0, nothing timed) when the naive C would execute more than N "
                  "statements per run (0: no skip); an N above the compiled engine's own "
                  "refusal limit (2e11) also raises that limit to N")
      ->check(CLI::Range(int64_t{0}, INT64_MAX));
  cmd->add_option("--max-memory-gib", flags->max_memory_gib,
                  "The compiled engine refuses programs whose tensors need more than N GiB")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  cmd->callback([flags, &ctx] {
    const std::string& spec = flags->spec;
    flags->workloads_dir = catalog_dir(flags->workloads_dir);
    flags->torch_script = bundled_file(flags->torch_script, "python/torch_baseline.py");
    std::optional<search::Problem> loaded = load_bench_problem(*flags);
    if (!loaded) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    const search::Problem& problem = *loaded;
    int64_t work = codegen::static_work(problem.program);
    if (flags->max_work > 0 && work > flags->max_work) {
      if (flags->json)
        std::cout << nlohmann::json{{"input", spec},
                                    {"workload", problem.name},
                                    {"instance", problem.instance},
                                    {"static_work", work},
                                    {"skipped", fmt::format("static work {} > --max-work {}", work,
                                                            flags->max_work)}}
                         .dump(2)
                  << "\n";
      else
        std::cout << fmt::format("{}: skipped: {} statement executions per run > --max-work {}\n",
                                 problem.name, work, flags->max_work);
      return;
    }
    codegen::CEngineOptions options;
    options.threads = flags->threads;
    // Whoever states a larger --max-work accepts that much work: the engine's guard against
    // runaway programs must not refuse what the flag admitted.
    options.work_budget = std::max(options.work_budget, flags->max_work);
    options.memory_budget_bytes = flags->max_memory_gib << 30;
    Result<codegen::CompiledKernel> kernel =
        codegen::CompiledKernel::build(problem.program, options);
    if (!kernel.ok()) {
      std::cerr << spec << ": " << kernel.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    codegen::TimingOptions t;
    t.threads = flags->threads;
    t.repeats = flags->repeats;
    t.warmup = flags->warmup;
    codegen::Timing timing;
    {  // the buffers are freed before PyTorch allocates its own copy of the tensors
      codegen::KernelBuffers buffers = codegen::deterministic_buffers(*kernel, problem.program);
      timing = codegen::time_kernel(*kernel, buffers, t);
    }

    std::optional<search::TorchBaseline> torch;
    std::string torch_error;
    if (flags->vs_torch) {
      search::TorchTimingOptions to;
      to.python = flags->python;
      to.script = flags->torch_script;
      to.threads = flags->threads;
      to.warmup = flags->warmup;
      to.repeats = flags->repeats;
      Result<search::TorchBaseline> r = search::time_torch_baseline(problem, to);
      if (r.ok()) {
        torch = std::move(r).value();
      } else {  // the C time is still reported; the exit code says the comparison failed
        torch_error = r.error().render();
        std::cerr << spec << ": " << torch_error << "\n";
        ctx.exit_code = kExitBadInput;
      }
    }

    print_bench(*flags, problem, work, timing, kernel->cache_hit(), torch, torch_error);
  });
}

}  // namespace steptp::cli
