// cli/import_command.cpp — `steptp import FILE.py|GRAPH.json [--shapes k=v,...] [--dtype D]
// [-o out.leir]`: a KernelBench problem file is traced by python/steptp_trace.py (run with
// /usr/bin/python3 as a subprocess), a graph JSON is read directly; either is lowered to LEIR.
// The tracer: $STEPTP_PYTHON_DIR/steptp_trace.py, else the bundled one (cli/bundled_data.h).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/bundled_data.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "frontend/importer.h"
#include "interp/interpreter.h"
#include "verify/verify.h"

namespace steptp::cli {
namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// python/steptp_trace.py: in $STEPTP_PYTHON_DIR, else where cli/bundled_data.h finds bundled
// files; empty when it cannot be found.
fs::path find_tracer() {
  std::error_code ec;
  if (const char* env = std::getenv("STEPTP_PYTHON_DIR"))
    if (fs::exists(fs::path(env) / "steptp_trace.py", ec)) return fs::path(env) / "steptp_trace.py";
  fs::path found = bundled_file("", "python/steptp_trace.py");
  return fs::exists(found, ec) ? found : fs::path();
}

// Runs the tracer; on failure prints its one-line reason and returns false.
// A problem file runs arbitrary Python: the tracer is stopped (TERM, then KILL 5 s later) after
// `timeout_s` seconds, so a module that hangs at import or in forward() cannot hang steptp.
bool trace_file(const std::string& file, const std::string& shapes, const std::string& dtype,
                int timeout_s, std::string& graph_json) {
  const fs::path tracer = find_tracer();
  if (tracer.empty()) {
    std::cerr << "steptp: cannot find python/steptp_trace.py (set STEPTP_PYTHON_DIR)\n";
    return false;
  }
  fs::path tmp = fs::temp_directory_path() / ("steptp-import-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const fs::path out = tmp / "graph.json", err = tmp / "stderr.txt";
  std::string cmd = "timeout --kill-after=5 " + std::to_string(timeout_s) + " /usr/bin/python3 " +
                    shell_quote(tracer.string()) + " " + shell_quote(file) + " --dtype " +
                    shell_quote(dtype) + " -o " + shell_quote(out.string()) + " 2>" +
                    shell_quote(err.string());
  if (!shapes.empty()) cmd += " --shapes " + shell_quote(shapes);
  const int status = std::system(cmd.c_str());
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc == 124 || rc == 137) {
    std::cerr << "steptp: cannot trace " << file << ": timed out after " << timeout_s
              << " s (the tracer was stopped; raise --timeout if the module is just slow)\n";
    fs::remove_all(tmp);
    return false;
  }
  bool ok = rc == 0 && read_file(out.string(), graph_json);
  if (!ok) {
    std::string msg;
    read_file(err.string(), msg);
    // The tracer's last line is its reason ("steptp_trace: ..."); a Python crash ends with
    // the exception line, which is the useful one too.
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    const size_t nl = msg.rfind('\n');
    std::string line = nl == std::string::npos ? msg : msg.substr(nl + 1);
    if (line.rfind("steptp_trace: ", 0) == 0) line = line.substr(14);
    std::cerr << "steptp: cannot trace " << file << ": "
              << (line.empty() ? "the tracer failed (exit " + std::to_string(rc) + ")" : line)
              << "\n";
  }
  fs::remove_all(tmp);
  return ok;
}

// A graph whose recorded shapes disagree (a node claiming a shape its op cannot produce from its
// arguments) lowers to subscripts outside their tensors. Programs whose subscripts provably stay
// inside need no run; the others run once on the interpreter (within a small work budget) and
// an out-of-bounds access means the graph is inconsistent. Programs too large to run here pass.
Result<void> check_shapes_consistent(const leir::Program& program) {
  interp::RunOptions options;
  options.work_budget = 200'000'000;
  options.memory_budget_bytes = 1LL << 30;
  Result<interp::Interpreter> interpreter = interp::Interpreter::compile(program, options);
  if (!interpreter.ok() || interpreter->statically_in_bounds()) return {};
  auto outputs = interpreter->run(verify::make_inputs(program, /*seed=*/0, /*scale=*/1.0));
  if (!outputs.ok() && outputs.error().category == "out_of_bounds")
    return Error::make("inconsistent_shapes",
                       "the graph's shapes do not fit together: " + outputs.error().message);
  return {};
}

}  // namespace

void setup_import_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file, shapes, dtype = "f64", output;
    int timeout_s = 120;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Lower a PyTorch problem file (KernelBench format, traced with torch.fx) or a "
      "traced graph JSON to a LEIR program");
  cmd->add_option("file", flags->file, "problem file (.py) or graph JSON (.json)")->required();
  cmd->add_option("--shapes", flags->shapes,
                  "override size variables of a .py file, e.g. batch_size=2,dim=64");
  cmd->add_option("--dtype", flags->dtype, "element type for a .py file")
      ->check(CLI::IsMember({"f64", "f32", "f16"}));
  cmd->add_option("-o,--output", flags->output, "write the .leir program here (default stdout)");
  cmd->add_option("--timeout", flags->timeout_s, "seconds the tracer may run on a .py file")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  cmd->callback([flags, &ctx] {
    ctx.exit_code = kExitBadInput;
    const std::string& f = flags->file;
    const bool py = f.size() > 3 && f.substr(f.size() - 3) == ".py";
    std::string graph;
    if (py) {
      std::error_code ec;
      if (!fs::is_regular_file(f, ec)) {
        std::cerr << "steptp: cannot read " << f << ": no such file\n";
        return;
      }
      if (!trace_file(f, flags->shapes, flags->dtype, flags->timeout_s, graph)) return;
    } else {
      if (!flags->shapes.empty()) {
        std::cerr << "steptp: --shapes applies to a .py problem file, not to a traced graph\n";
        return;
      }
      if (!read_file(f, graph)) return;
    }
    auto r = frontend::import_graph_json(graph, f);
    if (!r) {
      std::cerr << "steptp: cannot import " << f << ": " << r.error().category << ": "
                << r.error().message << "\n";
      return;
    }
    if (Result<void> shapes = check_shapes_consistent(r->program); !shapes.ok()) {
      std::cerr << "steptp: cannot import " << f << ": " << shapes.error().category << ": "
                << shapes.error().message << "\n";
      return;
    }
    if (flags->output.empty()) {
      std::cout << r->text;
      if (!r->text.empty() && r->text.back() != '\n') std::cout << "\n";
    } else if (!write_file_atomic(flags->output, r->text)) {
      return;
    }
    ctx.exit_code = kExitOk;
  });
}

}  // namespace steptp::cli
