// tests/unit/dataset/reduced_instance_test.cpp — default-shape steps verified on a reduced
// instance: the same transformation up to sizes is kept, another one is not, and what is kept
// verifies again at the shapes it shows.
#include "dataset/reduced_instance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "dataset/full_shape_check.h"
#include "dataset/generate.h"
#include "dataset/workloads.h"
#include "leir/parser.h"
#include "leir/printer.h"

namespace steptp::dataset {
namespace {

leir::Program parse(const std::string& text) {
  auto p = leir::parse_program(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().render());
  return p.ok() ? *p : leir::Program{};
}

// One map nest over an n x m tensor: B^{n}, L^{m}.
leir::Program relu(int n, int m) {
  return parse("input A f64[" + std::to_string(n) + "," + std::to_string(m) + "]\noutput C f64[" +
               std::to_string(n) + "," + std::to_string(m) + "]\nB^{" + std::to_string(n) +
               "}_{tx=0}L^{" + std::to_string(m) +
               "}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0.5);];\n");
}

TEST(SameUpToSizes, IgnoresExtentsShapesAndConstants) {
  EXPECT_TRUE(same_up_to_sizes(relu(16, 4096), relu(16, 24)));
  EXPECT_EQ(shape_free_text(relu(16, 4096)),
            "input A f64[#,#]\noutput C f64[#,#]\nB^{#}_{tx=#}L^{#}_{a=#}[C^{f64,g}_{tx,a}=max("
            "A^{f64,g}_{tx,a},#);];");
}

TEST(SameUpToSizes, SeesEveryStructuralDifference) {
  const leir::Program base = relu(16, 64);
  // Another loop kind, another statement, another tensor name, one more nest.
  EXPECT_FALSE(same_up_to_sizes(
      base, parse("input A f64[16,64]\noutput C f64[16,64]\nL^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{"
                  "tx,a}=max(A^{f64,g}_{tx,a},0.5);];\n")));
  EXPECT_FALSE(same_up_to_sizes(
      base, parse("input A f64[16,64]\noutput C f64[16,64]\nB^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{"
                  "tx,a}=min(A^{f64,g}_{tx,a},0.5);];\n")));
  EXPECT_FALSE(same_up_to_sizes(
      base, parse("input B f64[16,64]\noutput C f64[16,64]\nB^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{"
                  "tx,a}=max(B^{f64,g}_{tx,a},0.5);];\n")));
  // Digits inside names are names, not sizes.
  EXPECT_NE(shape_free_text(base).find("f64"), std::string::npos);
}

// A split by 4 divides 64 but not 22 (a tail nest at the reduced shape only): that replay is
// another transformation and must not stand for the default-shape step; a split by 2 divides
// both and is kept, verified on the reduced program.
TEST(ReducedInstance, KeepsOnlyStepsThatAreTheSameTransformationThere) {
  const leir::Program dflt = relu(16, 64), reduced = relu(16, 22);
  GenerateOptions o;
  o.seed = 3;
  o.max_depth = 0;
  o.max_sites_per_strategy = 0;  // every site
  o.max_sites_easy = 0;
  o.chain_width = 0;
  WorkUnit unit{"Relu.default", "Relu", 1, "default", "", ""};
  const ReducedInstance twin{reduced, {{"m", 22}}};
  UnitResult r = generate_from_program(unit, dflt, {{"m", 64}}, o, &twin);
  bool split_by_two = false;
  for (const StepRecord& rec : r.records) {
    EXPECT_EQ(rec.instance, "default");
    EXPECT_EQ(rec.verification.instance, "reduced");
    EXPECT_EQ(rec.verification.shapes, nlohmann::json({{"m", 22}}));
    EXPECT_NE(rec.declarations.find("[16,64]"), std::string::npos) << rec.declarations;
    EXPECT_NE(rec.site, "loop_split(block=0, loop=a, factor=4)");
    split_by_two = split_by_two || rec.site == "loop_split(block=0, loop=a, factor=2)";
  }
  EXPECT_TRUE(split_by_two);
  EXPECT_GT(r.rejected["reduced_differs:loop_split"], 0);
}

// The reduced instance the catalog ships for a default-shape workload too large to verify at
// its shapes: the build keeps default-shape steps, and a sample of them verifies again at full
// shape with the compiled engine; a tampered one does not.
TEST(ReducedInstance, CatalogDefaultShapeStepsVerifyAtFullShape) {
  auto units = discover_units(std::string(STEPTP_SOURCE_DIR) + "/workloads", "ReLU", true);
  ASSERT_TRUE(units.ok());
  auto it = std::find_if(units->begin(), units->end(),
                         [](const WorkUnit& u) { return u.instance == "default"; });
  ASSERT_NE(it, units->end());
  ASSERT_FALSE(it->reduced_graph_path.empty());
  GenerateOptions o;
  o.seed = 5;
  o.max_depth = 0;
  o.chain_width = 0;
  UnitResult r = generate_unit(*it, o);
  ASSERT_TRUE(r.import_error.empty()) << r.import_error;
  ASSERT_GE(r.records.size(), 3u);
  std::vector<const StepRecord*> records;
  for (const StepRecord& rec : r.records) {
    EXPECT_EQ(rec.verification.instance, "reduced");
    records.push_back(&rec);
  }
  FullShapeCheckOptions check;
  check.samples = 3;
  check.seed = 1;
  FullShapeCheck passed = check_at_full_shape(records, check);
  EXPECT_EQ(passed.candidates, static_cast<int64_t>(records.size()));
  EXPECT_EQ(passed.checked, 3);
  EXPECT_EQ(passed.passed, 3) << (passed.failures.empty() ? "" : passed.failures.front());

  StepRecord tampered = *records.front();
  const size_t zero = tampered.transformed.find(",0)");
  ASSERT_NE(zero, std::string::npos) << tampered.transformed;
  tampered.transformed.replace(zero, 3, ",1)");
  check.samples = 1;
  FullShapeCheck caught = check_at_full_shape({&tampered}, check);
  EXPECT_EQ(caught.checked, 1);
  EXPECT_EQ(caught.passed, 0);
  ASSERT_EQ(caught.failures.size(), 1u);
  EXPECT_NE(caught.failures.front().find("not equivalent"), std::string::npos);
}

// A reduced instance that is not the same program up to sizes is refused for the whole unit.
TEST(ReducedInstance, AReducedGraphOfAnotherProgramIsRefused) {
  auto units = discover_units(std::string(STEPTP_SOURCE_DIR) + "/workloads", "ReLU,GELU", true);
  ASSERT_TRUE(units.ok());
  WorkUnit relu_default, gelu_small;
  for (const WorkUnit& u : *units) {
    if (u.id == "ReLU.default") relu_default = u;
    if (u.id == "GELU.small") gelu_small = u;
  }
  ASSERT_FALSE(relu_default.id.empty());
  ASSERT_FALSE(gelu_small.id.empty());
  relu_default.reduced_graph_path = gelu_small.graph_path;
  UnitResult r = generate_unit(relu_default, GenerateOptions{});
  EXPECT_EQ(r.import_error.rfind("reduced_differs:", 0), 0u) << r.import_error;
  EXPECT_TRUE(r.records.empty());
}

}  // namespace
}  // namespace steptp::dataset
