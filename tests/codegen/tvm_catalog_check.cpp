// tvm_catalog_check — does Apache TVM parse, build and run steptp's TIR for catalog workloads,
// with the interpreter's results? For each workload's initial program (imported from the
// catalog's traced graph) it runs verify with Engine::kTvm, the program against itself: the
// interpreter gives the expected outputs and its safety checks, TVM's `llvm` build of
// `lower --target tir-llvm` must match them on 2 seeds within the verifier's tolerance.
//
//   tvm_catalog_check --catalog DIR [--shapes small|default] [--sample N --seed S]
//                     [--jsonl OUT] [--min-pass FRACTION] [LEIR_FILE...]
//   tvm_catalog_check --pairs PAIRS.jsonl     ({"name", "original", "candidate"} texts per line)
//
// --against compiled compares TVM with the compiled C engine instead of the interpreter (for
// large programs, e.g. the best programs of a benchmark at default shapes, that verify already
// proved equivalent); programs whose subscripts are not provably in bounds are checked against
// the interpreter all the same.
//
// With --pairs it checks instead that verify's verdict (equivalent or not) with --engine tvm is
// the interpreter's and the compiled C engine's on every pair; exit 1 on any disagreement.
//
// --sample takes N workloads from the catalog's names sorted, shuffled by std::mt19937_64(S)
// (all of them without --sample). LEIR files given as arguments are checked too (e.g. the best
// programs of a benchmark run). One JSON line per program on --jsonl; a summary on stdout;
// exit 1 when the pass rate over programs the interpreter could run is below --min-pass.
// Python: $STEPTP_TVM_PYTHON, else SOURCE_DIR/.venv/bin/python.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <tuple>

#include "codegen/c_engine.h"
#include "codegen/tvm_engine.h"
#include "frontend/catalog.h"
#include "frontend/importer.h"
#include "interp/interpreter.h"
#include "leir/parser.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using namespace steptp;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Job {
  std::string name;
  std::string source;  // where the program came from
  Result<leir::Program> program = Error::make("internal", "unset");
};

// "tvm_build" from "compile_error: tvm_build: ..." style messages.
std::string reason_of(const verify::VerifyReport& r) {
  if (r.equivalent()) return "pass";
  if (r.side == verify::Side::kOriginal) return "interpreter:" + std::string(status_name(r.status));
  if (r.status == verify::Status::kCompileError) {
    const size_t start = r.message.find("tvm_");
    if (start != std::string::npos) {
      const size_t end = r.message.find(':', start);
      return r.message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    }
  }
  return std::string(status_name(r.status));
}

// TVM's outputs against the compiled C engine's on 2 seeds: ("pass" | reason, message).
std::pair<std::string, std::string> against_compiled(
    const leir::Program& p, const std::shared_ptr<codegen::TvmEngine>& tvm) {
  auto checked = interp::Interpreter::compile(p);
  if (!checked) return {"interpreter:" + checked.error().category, checked.error().message};
  if (!checked->statically_in_bounds()) return {"use_interpreter", ""};
  for (uint64_t seed = 0; seed < 2; ++seed) {
    const std::vector<leir::TensorData> inputs = verify::make_inputs(p, seed);
    auto want = codegen::run_compiled(p, inputs);
    if (!want) return {"interpreter:compiled_failed", want.error().message};
    auto got = tvm->run(p, inputs);
    if (!got) {
      const std::string& m = got.error().message;
      return {m.substr(0, m.find(':')), m};
    }
    for (size_t i = 0; i < want->size(); ++i) {
      const verify::Tolerance tol = verify::tolerance_for((*want)[i].dtype);
      const auto& a = (*want)[i].values;
      const auto& b = (*got)[i].values;
      for (size_t k = 0; k < a.size(); ++k)
        if (!(std::isnan(a[k]) && std::isnan(b[k])) && a[k] != b[k] &&
            !(std::abs(a[k] - b[k]) <= tol.atol + tol.rtol * std::abs(a[k])))
          return {"mismatch", fmt::format("{}[{}]: C {} vs TVM {} (seed {})", (*want)[i].name, k,
                                          a[k], b[k], seed)};
    }
  }
  return {"pass", ""};
}

// Every pair's verdict under the interpreter, the compiled C engine and TVM; 0 when all agree.
int check_pairs(const std::string& file, const std::shared_ptr<codegen::TvmEngine>& tvm) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << "tvm_catalog_check: cannot read " << file << "\n";
    return 2;
  }
  int total = 0, agree = 0, equivalent = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json pair = nlohmann::json::parse(line, nullptr, false);
    if (!pair.is_object()) {
      std::cerr << "tvm_catalog_check: bad line in " << file << "\n";
      return 2;
    }
    const std::string name = pair.value("name", "?");
    const std::string original = pair.value("original", ""),
                      candidate = pair.value("candidate", "");
    std::map<std::string, verify::VerifyReport> verdicts;
    for (verify::Engine e :
         {verify::Engine::kInterpreter, verify::Engine::kCompiled, verify::Engine::kTvm}) {
      verify::VerifyOptions o;
      o.num_seeds = 2;
      o.engine = e;
      if (e == verify::Engine::kTvm)
        o.tvm = [tvm](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
          return tvm->run(p, inputs);
        };
      verdicts.emplace(std::string(verify::engine_name(e)),
                       verify::verify_text(original, candidate, o));
    }
    const bool want = verdicts.at("interpreter").equivalent();
    const bool same = verdicts.at("compiled").equivalent() == want &&
                      verdicts.at("interpreter+tvm").equivalent() == want;
    ++total;
    agree += same;
    equivalent += want;
    if (!same) {
      std::cout << fmt::format("DISAGREE {}:", name);
      for (const auto& [engine, r] : verdicts)
        std::cout << fmt::format(" {}={} ({})", engine, status_name(r.status),
                                 r.message.substr(0, 160));
      std::cout << "\n";
    }
  }
  std::cout << fmt::format(
      "{} pairs ({} equivalent, {} not): TVM and the compiled engine agree "
      "with the interpreter on {}\n",
      total, equivalent, total - equivalent, agree);
  return total > 0 && agree == total ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string catalog, shapes = "small", jsonl, pairs, against = "interpreter";
  int sample = 0;
  uint64_t seed = 0;
  double min_pass = 0;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "tvm_catalog_check: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--catalog")
      catalog = value();
    else if (a == "--shapes")
      shapes = value();
    else if (a == "--sample")
      sample = std::atoi(value().c_str());
    else if (a == "--seed")
      seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--jsonl")
      jsonl = value();
    else if (a == "--pairs")
      pairs = value();
    else if (a == "--against")
      against = value();
    else if (a == "--min-pass")
      min_pass = std::atof(value().c_str());
    else if (!a.empty() && a[0] == '-') {
      std::cerr << "tvm_catalog_check: unknown flag " << a << "\n";
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (against != "interpreter" && against != "compiled") {
    std::cerr << "tvm_catalog_check: --against is interpreter or compiled\n";
    return 2;
  }
  if (shapes != "small" && shapes != "default") {
    std::cerr << "tvm_catalog_check: --shapes is small or default\n";
    return 2;
  }

  std::vector<Job> jobs;
  if (!catalog.empty()) {
    Result<frontend::Catalog> cat = frontend::read_catalog(catalog);
    if (!cat.ok()) {
      std::cerr << "tvm_catalog_check: " << cat.error().message << "\n";
      return 2;
    }
    std::vector<std::string> names;
    for (const frontend::CatalogWorkload& w : cat->workloads) names.push_back(w.name);
    std::sort(names.begin(), names.end());
    if (sample > 0) {
      std::mt19937_64 rng(seed);
      std::shuffle(names.begin(), names.end(), rng);
      names.resize(std::min<size_t>(names.size(), static_cast<size_t>(sample)));
    }
    for (const std::string& name : names) {
      const fs::path graph = cat->graph_path(name, shapes == "small");
      Job job{name, graph.string()};
      if (!fs::exists(graph)) {
        job.program = Error::make("no_graph", "no traced graph " + graph.string());
      } else {
        auto imported = frontend::import_graph_json(slurp(graph), graph.string());
        if (imported)
          job.program = std::move(imported->program);
        else
          job.program = imported.error();
      }
      jobs.push_back(std::move(job));
    }
  }
  for (const std::string& f : files) {
    Job job{fs::path(f).stem().string(), f};
    job.program = leir::parse_program(slurp(f), f);
    jobs.push_back(std::move(job));
  }

  codegen::TvmEngineOptions options;
  options.script = std::string(STEPTP_SOURCE_DIR) + "/python/steptp_tvm.py";
  const char* py = std::getenv("STEPTP_TVM_PYTHON");
  options.python = py && *py ? py : std::string(STEPTP_SOURCE_DIR) + "/.venv/bin/python";
  auto engine = codegen::TvmEngine::start(options);
  if (!engine) {
    std::cerr << "tvm_catalog_check: " << engine.error().render() << "\n";
    return 2;
  }
  std::shared_ptr<codegen::TvmEngine> tvm = *engine;
  std::cout << fmt::format("TVM {} · {} programs\n", tvm->tvm_version(), jobs.size());

  if (!pairs.empty()) return check_pairs(pairs, tvm);

  std::ofstream rows;
  if (!jsonl.empty()) rows.open(jsonl, std::ios::trunc);
  std::map<std::string, int> reasons;
  int checked = 0, passed = 0, skipped = 0;
  for (const Job& job : jobs) {
    const auto start = std::chrono::steady_clock::now();
    std::string reason, message;
    if (!job.program) {
      reason = "import:" + job.program.error().category;
      message = job.program.error().message;
    } else {
      verify::VerifyOptions o;
      o.num_seeds = 2;
      o.engine = verify::Engine::kTvm;
      o.tvm = [tvm](const leir::Program& p, const std::vector<leir::TensorData>& in) {
        return tvm->run(p, in);
      };
      if (against == "compiled") std::tie(reason, message) = against_compiled(*job.program, tvm);
      // The C engine runs unchecked: a program not provably in bounds is checked against the
      // interpreter instead.
      if (against != "compiled" || reason == "use_interpreter") {
        verify::VerifyReport r = verify::verify(*job.program, *job.program, o);
        reason = reason_of(r);
        message = r.message;
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool counted = reason.rfind("import:", 0) != 0 && reason.rfind("interpreter:", 0) != 0;
    if (counted) {
      ++checked;
      passed += reason == "pass";
    } else {
      ++skipped;
    }
    ++reasons[reason];
    std::cout << fmt::format("{:<55} {:<28} {:6.2f} s\n", job.name, reason, seconds);
    if (rows)
      rows << nlohmann::json{{"workload", job.name},
                             {"source", job.source},
                             {"shapes", shapes},
                             {"result", reason},
                             {"message", message.substr(0, 400)},
                             {"seconds", seconds}}
                  .dump()
           << "\n";
  }
  const double rate = checked ? static_cast<double>(passed) / checked : 0.0;
  std::cout << fmt::format(
      "passed {} of {} checked ({:.1f}%), {} not checked (import or "
      "interpreter budget)\n",
      passed, checked, 100.0 * rate, skipped);
  for (const auto& [reason, n] : reasons) std::cout << fmt::format("  {:<30} {}\n", reason, n);
  return checked > 0 && rate + 1e-12 >= min_pass ? 0 : 1;
}
