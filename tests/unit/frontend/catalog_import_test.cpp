// Imports every committed small-shape catalog graph, checks well-formedness and compares the
// interpreter's output with the committed float64 PyTorch reference (allclose, rtol = atol =
// 1e-9). Every workload must import; an unsupported op is reported as "unsupported_op".
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frontend/importer.h"
#include "interp/interpreter.h"
#include "leir/wellformed.h"

namespace steptp::frontend {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

leir::TensorData to_data(const std::string& name, const leir::TensorDecl& d, const json& j) {
  leir::TensorData t{name, d.dtype, d.shape, {}};
  for (const json& v : j.at("values")) t.values.push_back(v.get<double>());
  return t;
}

TEST(CatalogImport, SmallGraphsImportAndMatchTorch) {
  const fs::path root = fs::path(STEPTP_SOURCE_DIR) / "workloads";
  int imported = 0, matched = 0, unsupported = 0;
  std::vector<std::string> mismatches;
  for (const auto& entry : fs::directory_iterator(root / "graphs")) {
    const std::string file = entry.path().filename().string();
    if (file.size() < 11 || file.substr(file.size() - 11) != ".small.json") continue;
    const std::string name = file.substr(0, file.size() - 11);
    auto r = import_graph_json(slurp(entry.path()), file);
    if (!r.ok()) {
      EXPECT_EQ(r.error().category, "unsupported_op") << name << ": " << r.error().render();
      ++unsupported;
      std::cout << "unsupported " << name << ": " << r.error().message << "\n";
      continue;
    }
    ++imported;
    auto wf = leir::check_well_formed(r->program);
    EXPECT_TRUE(wf.ok()) << name << ": " << (wf.ok() ? "" : wf.error().render()) << "\n" << r->text;
    const fs::path ref_path = root / "reference" / (name + ".json");
    if (!wf.ok() || !fs::exists(ref_path)) continue;
    json ref = json::parse(slurp(ref_path));
    std::map<std::string, json> by_name;
    for (const json& x : ref.at("inputs")) by_name[x.at("name")] = x;
    for (const json& x : ref.at("params")) by_name["param:" + x.at("name").get<std::string>()] = x;
    std::vector<leir::TensorData> ins;
    bool have_all = true;
    for (const leir::TensorDecl& d : r->program.decls) {
      if (d.role == leir::TensorRole::kOutput) continue;
      const std::string g = r->leir_to_graph.at(d.name);
      auto it = by_name.find(g);
      if (it == by_name.end()) it = by_name.find("param:" + g);
      if (it == by_name.end()) {
        have_all = false;
        break;
      }
      ins.push_back(to_data(d.name, d, it->second));
    }
    if (!have_all) {
      ADD_FAILURE() << name << ": reference lacks a declared tensor";
      continue;
    }
    auto out = interp::run_program(r->program, ins);
    if (!out.ok()) {
      mismatches.push_back(name + ": " + out.error().render());
      continue;
    }
    const json& exp = ref.at("output").at("values");
    const auto& got = (*out)[0].values;
    bool same = got.size() == exp.size();
    for (size_t i = 0; same && i < got.size(); ++i) {
      const double e = exp[i].get<double>(), g = got[i];
      if (std::isnan(e) && std::isnan(g)) continue;
      if (std::isinf(e) && e == g) continue;
      if (!(std::fabs(g - e) <= 1e-9 + 1e-9 * std::fabs(e))) {
        same = false;
        mismatches.push_back(name + ": element " + std::to_string(i) + " got " + std::to_string(g) +
                             " expected " + std::to_string(e));
      }
    }
    if (same) ++matched;
  }
  std::cout << "imported " << imported << ", matched " << matched << ", unsupported " << unsupported
            << "\n";
  for (const std::string& m : mismatches) ADD_FAILURE() << m;
  // Every catalog workload traces at its small shapes, imports and matches torch.
  EXPECT_EQ(unsupported, 0);
  EXPECT_GE(imported, 251);
  EXPECT_EQ(matched, imported);
}

}  // namespace
}  // namespace steptp::frontend
