// cli/optimize_command.cpp — `steptp optimize FILE|WORKLOAD --search ALG --policy P ...`:
// multi-step search for a faster, verified program (search/optimize.h). Prints a summary (or
// the JSON report with --json) and, with --out DIR, writes report.json, report.md and
// best.leir there.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "cli/bundled_data.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "cli/tvm_setup.h"
#include "llm/registered_names.h"
#include "llm/response_format.h"
#include "search/optimize.h"

namespace steptp::cli {

namespace {

struct OptimizeFlags {
  std::string spec;
  std::string search = "beam";
  std::string policy = "cost";
  int budget = 20;
  std::string shapes = "auto";
  std::string verify_engine = "auto";
  std::string backup = "max";
  std::string out;
  std::string constrained = "none";
  bool json = false, quiet = false;
  search::OptimizeOptions options;
};

// The options of --policy llm: the server, the model and how it is asked.
void add_llm_options(CLI::App& cmd, OptimizeFlags& f) {
  cmd.add_option("--endpoint", f.options.endpoint, "OpenAI-compatible server URL (--policy llm)");
  cmd.add_option("--model", f.options.model, "Model name on that server (--policy llm)");
  cmd.add_option("--transcript", f.options.llm.transcript,
                 "Write every LLM request and response (latency, token usage) as JSONL");
  cmd.add_option("--temperature", f.options.llm.temperature, "LLM sampling temperature")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 2.0));
  cmd.add_option("--max-tokens", f.options.llm.max_tokens, "LLM completion token limit")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24));
  cmd.add_option("--timeout", f.options.llm.timeout_s, "LLM read timeout per request, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1e6));
  cmd.add_option("--retries", f.options.llm.retries,
                 "LLM retries on refused connections, 429/5xx, "
                 "timeouts (then the run fails)")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  cmd.add_option("--constrained-decoding", f.constrained,
                 "Ask the server for a bare JSON answer: none | json_schema (OpenAI, vLLM) | "
                 "json_object (llama.cpp)")
      ->check(CLI::IsMember({"none", "json_schema", "json_object"}));
}

// report.json, report.md and best.leir into `out`; false after saying why on stderr.
bool write_report_files(const std::string& out, const search::OptimizeResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  namespace fs = std::filesystem;
  if (ec || !write_file_atomic((fs::path(out) / "report.json").string(), r.json.dump(2) + "\n") ||
      !write_file_atomic((fs::path(out) / "report.md").string(), r.markdown) ||
      !write_file_atomic((fs::path(out) / "best.leir").string(), r.best_program)) {
    if (ec) std::cerr << "steptp optimize: cannot create " << out << ": " << ec.message() << "\n";
    return false;
  }
  return true;
}

// The result in a few lines: speedups, the step trace and the rejections by reason.
void print_summary(const search::OptimizeResult& r) {
  const nlohmann::json& j = r.json;
  std::cout << fmt::format(
      "{}: {} search, {} policy: best {:.2f}x over the naive C ({:.4f} -> "
      "{:.4f} ms) after {} policy calls, {} candidates ({} accepted)\n",
      j["workload"].get<std::string>(), j["search"].get<std::string>(),
      j["policy"].get<std::string>(), r.speedup, j["baseline_ms"].get<double>(),
      j["best"]["time_ms"].get<double>(), j["stats"]["policy_calls"].get<int>(),
      j["stats"]["candidates"].get<int>(), j["stats"]["accepted"].get<int>());
  if (j.contains("confirmation"))
    std::cout << fmt::format("  re-measured alternately ({} rounds): {:.2f}x\n",
                             j["confirmation"]["rounds"].get<int>(),
                             j["confirmation"]["speedup"].get<double>());
  if (j.contains("torch") && j["torch"].contains("median_ms"))
    std::cout << fmt::format("  PyTorch eager: {:.4f} ms; best is {:.2f}x faster\n",
                             j["torch"]["median_ms"].get<double>(),
                             j["torch"]["speedup_of_best"].get<double>());
  for (const auto& s : j["best"]["trace"]) std::cout << "  " << s.get<std::string>() << "\n";
  for (const auto& [reason, count] : j["stats"]["failures"].items())
    std::cout << fmt::format("  rejected ({}): {}\n", reason, count.get<int>());
}

}  // namespace

void setup_optimize_command(CLI::App& app, CommandContext& ctx) {
  auto f = std::make_shared<OptimizeFlags>();
  search::OptimizeOptions& o = f->options;
  CLI::App* cmd = app.add_subcommand(
      "optimize",
      "Search for a faster equivalent program: every candidate is verified against the initial "
      "program and timed; reports the best program, its step trace and its speedups");
  cmd->add_option("input", f->spec, "A .leir program, a graph .json, or a catalog workload name")
      ->required();
  cmd->add_option("--search", f->search, "chain | greedy | beam | dfs | bfs | mcts")
      ->check(CLI::IsMember({"chain", "greedy", "beam", "dfs", "bfs", "mcts"}));
  cmd->add_option("--policy", f->policy, "llm | enumerate | random | cost")
      ->check(CLI::IsMember({"llm", "enumerate", "random", "cost"}));
  cmd->add_option("--budget", f->budget,
                  "Policy calls, and candidates verified+measured (each at most N)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-depth", o.search.budget.max_depth, "Most steps from the initial program")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--beam-width", o.search.beam_width, "Beam width")->check(CLI::Range(1, 1000));
  cmd->add_option("--proposals", o.proposals,
                  "Proposals per expansion (default: chain 1, mcts 2, others 3)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--uct-c", o.search.uct_c, "MCTS exploration constant");
  cmd->add_option("--backup", f->backup, "MCTS backup: max | mean")
      ->check(CLI::IsMember({"max", "mean"}));
  cmd->add_option("--target", o.target, "cpu | cuda (cuda needs a GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--threads", o.threads, "OpenMP threads for every measurement (and PyTorch)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--repeats", o.repeats, "Timed runs per measurement (median)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", o.warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  cmd->add_option("--confirm-rounds", o.confirm_rounds,
                  "After the search: rounds that measure the finalists again, then rounds that "
                  "measure baseline and kept program alternately (0: neither)")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--finalists", o.finalists,
                  "Fastest programs of the search measured again to choose the reported best "
                  "(1: keep the search's best)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--seed", o.seed, "Seed of the random policy and of verification inputs");
  cmd->add_option("--shapes", f->shapes,
                  "Catalog workloads: auto (default shapes unless over --work-limit) | default | "
                  "small")
      ->check(CLI::IsMember({"auto", "default", "small"}));
  cmd->add_option("--work-limit", o.work_limit,
                  "--shapes auto: most statement executions for the default shapes");
  cmd->add_option("--verify-engine", f->verify_engine,
                  "auto | interpreter | compiled | tvm (the interpreter's safety checks, then "
                  "TVM's build of both programs; needs apache-tvm: scripts/setup-venv.sh tvm)")
      ->check(CLI::IsMember({"auto", "interpreter", "compiled", "tvm"}));
  o.workloads_dir.clear();
  o.torch_script.clear();
  cmd->add_option("--catalog", o.workloads_dir,
                  "Folder with catalog.json and graphs/ (default: found beside the checkout or "
                  "install, or $STEPTP_WORKLOADS_DIR)");
  cmd->add_flag("--torch", o.torch, "Also time PyTorch eager (python/torch_baseline.py)");
  cmd->add_option("--torch-script", o.torch_script, "Path of torch_baseline.py");
  add_llm_options(*cmd, *f);
  cmd->add_flag("--json", f->json, "Print the JSON report");
  cmd->add_flag("--quiet", f->quiet, "No progress lines on stderr");
  cmd->add_option("--out", f->out, "Write report.json, report.md and best.leir into DIR");

  cmd->callback([f, &ctx] {
    search::OptimizeOptions o = f->options;
    o.workloads_dir = catalog_dir(o.workloads_dir);
    o.torch_script = bundled_file(o.torch_script, "python/torch_baseline.py");
    o.algorithm = *search::algorithm_from_name(f->search);
    o.policy = f->policy;
    o.search.budget.policy_calls = f->budget;
    o.search.budget.candidates = f->budget;
    o.search.backup = f->backup == "mean" ? search::Backup::kMean : search::Backup::kMax;
    static const std::map<std::string, search::ShapeChoice> kShapes = {
        {"auto", search::ShapeChoice::kAuto},
        {"default", search::ShapeChoice::kDefault},
        {"small", search::ShapeChoice::kSmall}};
    static const std::map<std::string, search::VerifyEngineChoice> kEngines = {
        {"auto", search::VerifyEngineChoice::kAuto},
        {"interpreter", search::VerifyEngineChoice::kInterpreter},
        {"compiled", search::VerifyEngineChoice::kCompiled},
        {"tvm", search::VerifyEngineChoice::kTvm}};
    o.shapes = kShapes.at(f->shapes);
    o.verify_engine = kEngines.at(f->verify_engine);
    if (o.verify_engine == search::VerifyEngineChoice::kTvm &&
        !use_tvm_engine(o.tvm_engine, "optimize", ctx))
      return;
    o.progress = !f->quiet;
    auto format = llm::response_format(f->constrained, llm::registered_strategy_names());
    if (!format.ok()) {
      std::cerr << "steptp optimize: " << format.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    o.llm.response_format = *format;
    // Where the results go is checked before the search, not after minutes of it.
    if (!f->out.empty()) {
      if (Result<void> writable = ensure_writable_dir(f->out); !writable.ok()) {
        std::cerr << "steptp optimize: " << writable.error().render() << "\n";
        ctx.exit_code = kExitBadInput;
        return;
      }
    }

    Result<search::OptimizeResult> r = search::optimize(f->spec, o);
    if (!r.ok()) {
      std::cerr << "steptp optimize: " << r.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    if (!f->out.empty() && !write_report_files(f->out, *r)) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    if (f->json) {
      std::cout << r->json.dump(2) << "\n";
      return;
    }
    print_summary(*r);
  });
}

}  // namespace steptp::cli
