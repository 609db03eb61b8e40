// Every site of every graph-level strategy (reference indices 0..8), applied to each program of
// tests/data/verify and tests/data/programs, gives a well-formed program that verifies as
// equivalent to the original (interpreter, seeded inputs, no race / out-of-bounds / uninit).
// Also: a few hand-checked facts about sites on known programs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::strategy {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kGraphStrategies = {"operator_fusion",
                                                   "operator_fission",
                                                   "compute_inline",
                                                   "expression_splitting",
                                                   "tensor_concat_to_fuse_operators",
                                                   "tensor_split_to_decouple_operators",
                                                   "common_subexpression_elimination",
                                                   "dead_code_elimination",
                                                   "expression_reorder"};

std::vector<std::pair<std::string, leir::Program>> load(const std::string& dir) {
  std::vector<std::pair<std::string, leir::Program>> out;
  fs::path root = fs::path(STEPTP_SOURCE_DIR) / dir;
  if (!fs::exists(root)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(root))
    if (e.path().extension() == ".leir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    Result<leir::Program> p = leir::parse_program(ss.str(), f.string());
    if (p.ok()) out.emplace_back(dir + "/" + f.filename().string(), *p);
  }
  return out;
}

leir::Program parse(const std::string& text) {
  Result<leir::Program> p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), "bad test program");
  return *p;
}

TEST(GraphStrategies, RegisteredInReferenceOrder) {
  const auto& all = all_strategies();
  ASSERT_GE(all.size(), kGraphStrategies.size());
  for (size_t i = 0; i < kGraphStrategies.size(); ++i) {
    EXPECT_EQ(all[i]->name(), kGraphStrategies[i]);
    EXPECT_EQ(all[i]->category(), Category::kGraph);
  }
}

TEST(GraphStrategies, EverySiteOnTestProgramsVerifies) {
  auto programs = load("tests/data/verify");
  auto more = load("tests/data/programs");
  programs.insert(programs.end(), more.begin(), more.end());
  ASSERT_GE(programs.size(), 10u);
  verify::VerifyOptions options;
  options.num_seeds = 2;
  int total = 0;
  for (const std::string& sname : kGraphStrategies) {
    const Strategy* s = find_strategy(sname);
    ASSERT_NE(s, nullptr) << sname;
    int sites = 0;
    int verified = 0;
    for (const auto& [file, p] : programs) {
      for (const Site& site : s->sites(p)) {
        ++sites;
        Outcome<leir::Program> next = s->apply(p, site);
        ASSERT_TRUE(next.ok()) << file << " " << site.to_string() << ": "
                               << next.infeasible().render();
        Result<void> wf = leir::check_well_formed(*next);
        ASSERT_TRUE(wf.ok()) << file << " " << site.to_string() << ": " << wf.error().render();
        Result<leir::Program> again = leir::parse_program(leir::print_program(*next));
        ASSERT_TRUE(again.ok() && *again == *next) << file << " " << site.to_string();
        verify::VerifyReport r = verify::verify(p, *next, options);
        EXPECT_TRUE(r.equivalent()) << file << " " << site.to_string() << "\n"
                                    << leir::print_body(next->blocks) << "\n"
                                    << r.render();
        verified += r.equivalent();
        EXPECT_FALSE(s->explain(p, site).empty());
      }
    }
    std::printf("[graph] %-36s sites %3d verified %3d\n", sname.c_str(), sites, verified);
    total += sites;
  }
  EXPECT_GT(total, 0);
}

TEST(GraphStrategies, TwoStepCompositionsVerify) {
  // Every graph site, then up to two sites of each graph strategy on the result: compositions
  // must stay equivalent to the original too (fresh names, changed block indices).
  auto programs = load("tests/data/programs");
  verify::VerifyOptions options;
  options.num_seeds = 1;
  int checked = 0;
  for (const auto& [file, p] : programs)
    for (const std::string& first : kGraphStrategies)
      for (const Site& s1 : find_strategy(first)->sites(p)) {
        leir::Program mid = *find_strategy(first)->apply(p, s1);
        for (const std::string& second : kGraphStrategies) {
          std::vector<Site> sites = find_strategy(second)->sites(mid);
          for (size_t k = 0; k < sites.size() && k < 2; ++k) {
            Outcome<leir::Program> next = find_strategy(second)->apply(mid, sites[k]);
            ASSERT_TRUE(next.ok()) << file << " " << s1.to_string() << " " << sites[k].to_string();
            verify::VerifyReport r = verify::verify(p, *next, options);
            EXPECT_TRUE(r.equivalent())
                << file << " " << s1.to_string() << " -> " << sites[k].to_string() << "\n"
                << leir::print_body(next->blocks) << "\n"
                << r.render();
            ++checked;
          }
        }
      }
  std::printf("[graph] two-step compositions verified: %d\n", checked);
  EXPECT_GT(checked, 0);
}

TEST(GraphStrategies, DeadCodeFindsOnlyUnreadIntermediates) {
  // I is never read; F is read by the output; C is an output.
  leir::Program p = parse(
      "input A f64[8]\noutput C f64[8]\n"
      "B^{8}_{tx=0}[I^{f64,g}_{tx}=A^{f64,g}_{tx}+1;F^{f64,g}_{tx}=A^{f64,g}_{tx}*2;];"
      "B^{8}_{tx=0}[C^{f64,g}_{tx}=F^{f64,g}_{tx};];\n");
  const Strategy* dce = find_strategy("dead_code_elimination");
  std::vector<Site> sites = dce->sites(p);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].to_string(), "dead_code_elimination(tensor=I)");
  Outcome<leir::Program> q = dce->apply(p, sites[0]);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(leir::print_body(q->blocks),
            "B^{8}_{tx=0}[F^{f64,g}_{tx}=A^{f64,g}_{tx}*2;];B^{8}_{tx=0}[C^{f64,g}_{tx}=F^{f64,g}_{"
            "tx};];");
  EXPECT_TRUE(verify::verify(p, *q).equivalent());
}

TEST(GraphStrategies, FusionThenFissionRoundTrips) {
  leir::Program p = parse(
      "input E f64[4,8]\ninput D f64[8]\noutput G f64[4,8]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[F^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+D^{f64,g}_{a};];"
      "B^{4}_{tx=0}L^{8}_{a=0}[G^{f64,g}_{tx,a}=max(F^{f64,g}_{tx,a},0);];\n");
  const Strategy* fusion = find_strategy("operator_fusion");
  const Strategy* fission = find_strategy("operator_fission");
  Outcome<leir::Program> fused = fusion->apply(p, *parse_site("operator_fusion(block=0)"));
  ASSERT_TRUE(fused.ok());
  ASSERT_EQ(fused->blocks.size(), 1u);
  Outcome<leir::Program> back =
      fission->apply(*fused, *parse_site("operator_fission(block=0, at=1)"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, p);
}

TEST(GraphStrategies, ConcatProducesStackedTensorsThatSplitApart) {
  // The stacked compute block of a concat splits along its leading loop back into two
  // operators, each still equivalent.
  leir::Program p = parse(
      "input A f64[4,8]\ninput D f64[4,8]\noutput E f64[4,8]\noutput F f64[4,8]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[E^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a})*2;];"
      "B^{4}_{tx=0}L^{8}_{a=0}[F^{f64,g}_{tx,a}=exp(D^{f64,g}_{tx,a})*2;];\n");
  Outcome<leir::Program> cat =
      find_strategy("tensor_concat_to_fuse_operators")
          ->apply(p, *parse_site("tensor_concat_to_fuse_operators(block=0)"));
  ASSERT_TRUE(cat.ok());
  ASSERT_EQ(cat->blocks.size(), 3u);
  EXPECT_TRUE(verify::verify(p, *cat).equivalent());
  Outcome<leir::Program> split =
      find_strategy("tensor_split_to_decouple_operators")
          ->apply(*cat, *parse_site("tensor_split_to_decouple_operators(block=1, axis=c, at=1)"));
  ASSERT_TRUE(split.ok()) << split.infeasible().render();
  EXPECT_EQ(split->blocks.size(), 4u);
  EXPECT_TRUE(verify::verify(p, *split).equivalent());
}

}  // namespace
}  // namespace steptp::strategy
