// search/problem.cpp — loading what to optimize, and the PyTorch eager baseline process.
#include "search/problem.h"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codegen/c_engine.h"
#include "frontend/catalog.h"
#include "frontend/importer.h"
#include "leir/parser.h"

namespace steptp::search {
namespace {

namespace fs = std::filesystem;

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make("io_error", "cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<Problem> from_graph(const std::string& path, const std::string& workloads_dir) {
  Result<std::string> text = read_text(path);
  if (!text.ok()) return std::move(text).error();
  Result<frontend::ImportResult> imported = frontend::import_graph_json(*text, path);
  if (!imported.ok()) return std::move(imported).error();
  Problem p;
  p.source = path;
  p.program = std::move(imported->program);
  nlohmann::json g = nlohmann::json::parse(*text, nullptr, false);
  if (g.is_object()) {
    if (g.contains("source") && g["source"].is_string()) {
      fs::path file = fs::path(workloads_dir) / g["source"].get<std::string>();
      if (fs::exists(file)) p.problem_file = file.string();
    }
    if (g.contains("shapes") && g["shapes"].is_object()) p.shape_overrides = g["shapes"].dump();
    if (g.contains("dtype") && g["dtype"].is_string()) p.dtype = g["dtype"].get<std::string>();
  }
  return p;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<Problem> load_catalog_workload(const std::string& spec, const std::string& workloads_dir,
                                      ShapeChoice shapes, int64_t work_limit) {
  // The graphs are graphs/<name>.json (default shapes) and graphs/<name>.small.json.
  fs::path graphs = fs::path(workloads_dir) / "graphs";
  fs::path def = graphs / (spec + ".json"), small = graphs / (spec + ".small.json");
  if (!fs::exists(def) && !fs::exists(small))
    return Error::make("unknown_workload",
                       fmt::format("'{}' is neither a .leir/.json file nor a workload in {}", spec,
                                   graphs.string()));
  Result<Problem> chosen = Error::make("unknown_workload", "no graph");
  if (shapes != ShapeChoice::kSmall && fs::exists(def)) {
    chosen = from_graph(def.string(), workloads_dir);
    if (chosen.ok()) chosen->instance = "default";
    bool too_big = chosen.ok() && shapes == ShapeChoice::kAuto &&
                   codegen::static_work(chosen->program) > work_limit;
    if (shapes == ShapeChoice::kDefault || (chosen.ok() && !too_big)) {
      if (chosen.ok()) chosen->name = spec;
      return chosen;
    }
  }
  if (!fs::exists(small)) return chosen;
  chosen = from_graph(small.string(), workloads_dir);
  if (chosen.ok()) {
    chosen->name = spec;
    chosen->instance = "small";
  }
  return chosen;
}

// The catalog's shape variables of the chosen instance (graphs leave out upper-case names such
// as M, K, N, so the graph's own "shapes" cannot rebuild the PyTorch model).
void apply_catalog_shapes(Problem& p, const std::string& workloads_dir) {
  Result<frontend::Catalog> catalog = frontend::read_catalog(workloads_dir);
  if (!catalog.ok()) return;
  const frontend::CatalogWorkload* w = catalog->find(p.name);
  if (w == nullptr) return;
  const char* key = p.instance == "small" ? "small_shapes" : "default_shapes";
  if (w->record.contains(key) && w->record[key].is_object())
    p.shape_overrides = w->record[key].dump();
  const std::string file = catalog->problem_path(*w);
  if (!file.empty() && fs::exists(file)) p.problem_file = file;
}

}  // namespace

Result<Problem> load_problem(const std::string& spec, const std::string& workloads_dir,
                             ShapeChoice shapes, int64_t work_limit) {
  if (ends_with(spec, ".leir")) {
    Result<std::string> text = read_text(spec);
    if (!text.ok()) return std::move(text).error();
    Result<leir::Program> program = leir::parse_program(*text, spec);
    if (!program.ok()) return std::move(program).error();
    Problem p;
    p.name = fs::path(spec).stem().string();
    p.source = spec;
    p.program = std::move(program).value();
    return p;
  }
  if (ends_with(spec, ".json")) {
    Result<Problem> p = from_graph(spec, workloads_dir);
    if (p.ok()) p->name = fs::path(spec).stem().string();
    return p;
  }
  Result<Problem> p = load_catalog_workload(spec, workloads_dir, shapes, work_limit);
  if (p.ok()) apply_catalog_shapes(*p, workloads_dir);
  return p;
}

Result<TorchBaseline> time_torch_baseline(const Problem& problem, const TorchTimingOptions& o) {
  if (!problem.problem_file)
    return Error::make("torch_baseline",
                       "no KernelBench problem file is known for " + problem.name);
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::string command = fmt::format(
      "timeout {} {} {} --problem {} --shapes-json {} --dtype {} --threads {} --warmup {} "
      "--repeats {} --json 2>&1",
      o.timeout_s, quote(o.python), quote(o.script), quote(*problem.problem_file),
      quote(problem.shape_overrides), quote(problem.dtype), o.threads, o.warmup, o.repeats);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return Error::make("torch_baseline", "cannot start " + o.python);
  std::string output;
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  int status = pclose(pipe);
  // The JSON is the last line; anything before it is torch's own chatter.
  size_t start = output.rfind("\n{");
  std::string last = start == std::string::npos ? output : output.substr(start + 1);
  nlohmann::json j = nlohmann::json::parse(last, nullptr, false);
  if (status != 0 || !j.is_object() || !j.contains("median_ms"))
    return Error::make("torch_baseline",
                       fmt::format("{} failed (status {}): {}", o.script, status,
                                   output.substr(output.size() > 600 ? output.size() - 600 : 0)));
  TorchBaseline t;
  t.median_ms = j["median_ms"].get<double>();
  t.threads = j.value("threads", 0);
  t.blas = j.contains("blas") ? j["blas"].dump() : "unknown";
  return t;
}

}  // namespace steptp::search
