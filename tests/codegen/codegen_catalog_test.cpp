// tests/codegen/codegen_catalog_test.cpp — every backend on every program we have: the catalog
// graphs that import at small shapes, the expected outputs of the positive strategy golden
// cases, and a seeded sample of random strategy chains.
//
// For each program: compiled C equals the interpreter (verify::make_inputs, allclose with
// verify::tolerance_for, NaN equal to NaN), the CUDA source compiles with `nvcc -arch=sm_90`
// (many programs per nvcc run, each in its own namespace: nvcc takes seconds to start), and the
// TIR text is the same when emitted twice. Programs the interpreter refuses are skipped, counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "codegen/c_engine.h"
#include "codegen/cuda_emitter.h"
#include "codegen/tir_emitter.h"
#include "frontend/importer.h"
#include "interp/interpreter.h"
#include "leir/parser.h"
#include "leir/printer.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::codegen {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

CEngineOptions engine_options() {
  CEngineOptions o;
  o.compiler.cache_dir = std::string(STEPTP_BINARY_DIR) + "/codegen-catalog-cache";
  o.threads = 2;
  return o;
}

struct Named {
  std::string name;
  leir::Program program;
};

// Compiled C against the interpreter on one seeded input set. Returns "" when they agree,
// "skip: ..." when the interpreter refuses the program, else a failure message.
std::string check_c(const Named& n) {
  std::vector<leir::TensorData> inputs = verify::make_inputs(n.program, 7);
  interp::RunOptions run;
  Result<std::vector<leir::TensorData>> expected = interp::run_program(n.program, inputs, run);
  if (!expected.ok()) return "skip: interpreter: " + expected.error().render();
  Result<std::vector<leir::TensorData>> got = run_compiled(n.program, inputs, engine_options());
  if (!got.ok()) return "C engine: " + got.error().render();
  if (got->size() != expected->size()) return "output count differs";
  for (size_t i = 0; i < got->size(); ++i) {
    const leir::TensorData& g = (*got)[i];
    const leir::TensorData& e = (*expected)[i];
    if (g.values.size() != e.values.size()) return g.name + ": size differs";
    verify::Tolerance tol = verify::tolerance_for(e.dtype);
    for (size_t k = 0; k < g.values.size(); ++k) {
      double a = g.values[k], b = e.values[k];
      if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
      if (std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b)) continue;
      std::ostringstream m;
      m.precision(17);
      m << g.name << "[" << k << "]: compiled " << a << " vs interpreter " << b;
      return m.str();
    }
  }
  return "";
}

// TIR twice: byte-identical, and shaped like a module.
std::string check_tir(const Named& n) {
  Result<std::string> a = emit_tir(n.program), b = emit_tir(n.program);
  if (!a.ok()) return "TIR: " + a.error().render();
  if (!b.ok() || *a != *b) return "TIR differs between two emissions";
  if (a->find("@T.prim_func") == std::string::npos) return "TIR has no prim_func";
  return "";
}

// Every program's CUDA in its own namespace; nvcc over batches of `batch` programs.
// Returns one message per failing batch (with nvcc's first lines).
std::vector<std::string> compile_cuda(const std::vector<Named>& programs, size_t batch) {
  std::vector<std::string> failures;
  std::string nvcc = find_nvcc();
  if (nvcc.empty()) {
    ADD_FAILURE() << "nvcc not found (set STEPTP_NVCC)";
    return failures;
  }
  fs::path dir = fs::path(STEPTP_BINARY_DIR) / "codegen-catalog-cuda";
  fs::create_directories(dir);
  for (size_t start = 0; start < programs.size(); start += batch) {
    std::string unit;
    std::string names;
    for (size_t i = start; i < std::min(programs.size(), start + batch); ++i) {
      CudaEmitOptions o;
      o.harness = false;
      o.wrap_namespace = "p" + std::to_string(i);
      Result<CudaSource> src = emit_cuda(programs[i].program, o);
      if (!src.ok()) {
        failures.push_back(programs[i].name + ": emit_cuda: " + src.error().render());
        continue;
      }
      unit += "// ---- " + programs[i].name + "\n" + src->code + "\n";
      names += programs[i].name + " ";
    }
    fs::path cu = dir / ("batch" + std::to_string(start / batch) + ".cu");
    std::ofstream(cu) << unit;
    fs::path log = dir / ("batch" + std::to_string(start / batch) + ".log");
    std::string cmd = nvcc + " -arch=sm_90 -c -o " + (dir / "batch.o").string() + " " +
                      cu.string() + " > " + log.string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::string text = slurp(log);
      failures.push_back("nvcc failed on " + cu.string() + " (" + names + "):\n" +
                         text.substr(0, 3000));
    }
  }
  return failures;
}

struct Tally {
  int checked = 0;
  int skipped = 0;
  std::vector<std::string> failures;
  std::vector<Named> for_cuda;
};

void check_all_but_cuda(const Named& n, Tally& t) {
  std::string c = check_c(n);
  if (c.rfind("skip:", 0) == 0) {
    ++t.skipped;
    std::cout << "skipped " << n.name << " (" << c << ")\n";
    return;
  }
  ++t.checked;
  if (!c.empty()) t.failures.push_back(n.name + ": " + c);
  std::string tir = check_tir(n);
  if (!tir.empty()) t.failures.push_back(n.name + ": " + tir);
  t.for_cuda.push_back(n);
}

void finish(Tally& t, const std::string& what) {
  for (std::string& f : compile_cuda(t.for_cuda, 40)) t.failures.push_back(std::move(f));
  std::cout << what << ": " << t.checked << " programs checked (C == interpreter, TIR, "
            << t.for_cuda.size() << " through nvcc), " << t.skipped << " skipped\n";
  for (const std::string& f : t.failures) ADD_FAILURE() << f;
}

TEST(CodegenCatalog, SmallCatalogGraphsOnEveryBackend) {
  const fs::path graphs = fs::path(STEPTP_SOURCE_DIR) / "workloads/graphs";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(graphs)) {
    std::string f = e.path().filename().string();
    if (f.size() > 11 && f.substr(f.size() - 11) == ".small.json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u);
  Tally t;
  int unsupported = 0;
  for (const fs::path& f : files) {
    Result<frontend::ImportResult> r = frontend::import_graph_json(slurp(f), f.string());
    if (!r.ok()) {
      ++unsupported;  // the importer's own tests own which ops it lowers
      continue;
    }
    check_all_but_cuda(Named{f.filename().string(), r->program}, t);
  }
  std::cout << unsupported << " graphs do not import yet\n";
  EXPECT_GT(t.checked, 50);
  finish(t, "catalog");
}

// The input program's declarations with the expected body of every positive golden case.
TEST(CodegenCatalog, GoldenStrategyOutputsOnEveryBackend) {
  const fs::path root = fs::path(STEPTP_SOURCE_DIR) / "tests/golden/strategy";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().extension() == ".leir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  Tally t;
  int unparsable = 0;
  for (const fs::path& f : files) {
    std::istringstream in(slurp(f));
    std::string line, decls, body;
    bool infeasible = false;
    enum { kHeader, kInput, kExpect } section = kHeader;
    while (std::getline(in, line)) {
      if (line.rfind("# expect-infeasible", 0) == 0) infeasible = true;
      if (line.rfind("# ---- input", 0) == 0) {
        section = kInput;
        continue;
      }
      if (line.rfind("# ---- expect", 0) == 0) {
        section = kExpect;
        continue;
      }
      if (line.rfind("#", 0) == 0) continue;
      if (section == kInput && (line.rfind("input ", 0) == 0 || line.rfind("output ", 0) == 0 ||
                                line.rfind("param ", 0) == 0 || line.rfind("const ", 0) == 0))
        decls += line + "\n";
      if (section == kExpect) body += line;
    }
    if (infeasible || body.empty()) continue;
    std::string name = f.parent_path().filename().string() + "/" + f.filename().string();
    Result<leir::Program> p = leir::parse_program(decls + body + "\n", name);
    if (!p.ok()) {
      ++unparsable;  // a case being written; the golden runner reports it
      std::cout << "unparsable expect section: " << name << "\n";
      continue;
    }
    check_all_but_cuda(Named{name, *p}, t);
  }
  EXPECT_GT(t.checked, 30);
  finish(t, "golden");
}

// A seeded sample: two chains of up to three random feasible steps from each program of
// tests/data/programs; the program after every step goes through every backend.
TEST(CodegenCatalog, RandomStrategyChainsOnEveryBackend) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(STEPTP_SOURCE_DIR) / "tests/data/programs"))
    if (e.path().extension() == ".leir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  std::mt19937_64 rng(20240611);
  Tally t;
  for (const fs::path& f : files) {
    Result<leir::Program> original = leir::parse_program(slurp(f), f.string());
    ASSERT_TRUE(original.ok()) << original.error().render();
    for (int chain = 0; chain < 2; ++chain) {
      leir::Program current = *original;
      std::string trace = f.filename().string();
      for (int depth = 0; depth < 3; ++depth) {
        std::vector<std::pair<const strategy::Strategy*, strategy::Site>> steps;
        for (const strategy::Strategy* s : strategy::all_strategies())
          for (strategy::Site& site : strategy::feasible_sites(*s, current))
            steps.emplace_back(s, std::move(site));
        if (steps.empty()) break;
        auto& [s, site] = steps[rng() % steps.size()];
        auto next = s->apply(current, site);
        if (!next.ok()) break;  // the strategy property test owns this failure
        trace += " -> " + site.to_string();
        current = std::move(next).value();
        check_all_but_cuda(Named{trace, current}, t);
      }
    }
  }
  EXPECT_GT(t.checked, 10);
  finish(t, "chains");
}

}  // namespace
}  // namespace steptp::codegen
