// tests/frontend/reference_check.cpp — `frontend_reference_check GRAPH.json REFERENCE.json`:
// imports the graph, runs the interpreter on the reference's inputs and parameters, and
// compares with its float64 torch output (rtol = atol = 1e-9). Prints one line:
// "match", "mismatch: ...", or "import_error: CATEGORY: ..."; exits 0, 1 or 2 accordingly.
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frontend/importer.h"
#include "interp/interpreter.h"
#include "leir/wellformed.h"

namespace {

using nlohmann::json;
using namespace steptp;

std::string slurp(const char* p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: frontend_reference_check GRAPH.json REFERENCE.json\n";
    return 2;
  }
  auto r = frontend::import_graph_json(slurp(argv[1]), argv[1]);
  if (!r.ok()) {
    std::cout << "import_error: " << r.error().category << ": " << r.error().message << "\n";
    return 2;
  }
  auto wf = leir::check_well_formed(r->program);
  if (!wf.ok()) {
    std::cout << "mismatch: ill-formed: " << wf.error().render() << "\n";
    return 1;
  }
  json ref = json::parse(slurp(argv[2]), nullptr, false);
  if (ref.is_discarded()) {
    std::cout << "mismatch: unreadable reference\n";
    return 1;
  }
  std::map<std::string, json> by_name;
  for (const json& x : ref.at("inputs")) by_name[x.at("name")] = x;
  for (const json& x : ref.at("params")) by_name[x.at("name")] = x;
  std::vector<leir::TensorData> ins;
  for (const leir::TensorDecl& d : r->program.decls) {
    if (d.role == leir::TensorRole::kOutput) continue;
    auto it = by_name.find(r->leir_to_graph.at(d.name));
    if (it == by_name.end()) {
      std::cout << "mismatch: the reference lacks " << r->leir_to_graph.at(d.name) << "\n";
      return 1;
    }
    leir::TensorData t{d.name, d.dtype, d.shape, {}};
    for (const json& v : it->second.at("values")) t.values.push_back(v.get<double>());
    ins.push_back(std::move(t));
  }
  auto out = interp::run_program(r->program, ins);
  if (!out.ok()) {
    std::cout << "mismatch: interpreter: " << out.error().render() << "\n";
    return 1;
  }
  const json& exp = ref.at("output").at("values");
  const auto& got = (*out)[0].values;
  if (got.size() != exp.size()) {
    std::cout << "mismatch: " << got.size() << " values, expected " << exp.size() << "\n";
    return 1;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = exp[i].is_number() ? exp[i].get<double>() : NAN, g = got[i];
    if (std::isnan(e) && std::isnan(g)) continue;
    if (std::isinf(e) && e == g) continue;
    if (!(std::fabs(g - e) <= 1e-9 + 1e-9 * std::fabs(e))) {
      std::cout << "mismatch: element " << i << " got " << g << " expected " << e << "\n";
      return 1;
    }
  }
  std::cout << "match\n";
  return 0;
}
