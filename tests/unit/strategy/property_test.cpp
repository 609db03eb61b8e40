// Property: random chains of feasible steps (any registered strategy, up to depth 4) applied to
// the small programs of tests/data/programs/ stay well formed, round-trip through the printer,
// and verify equivalent to the starting program under the interpreter with no safety error.
// The unit variant runs a few chains per program; the DISABLED_ variant (ctest label "slow",
// see tests/golden/CMakeLists.txt) runs many more.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::strategy {
namespace {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, leir::Program>> load_programs() {
  std::vector<std::pair<std::string, leir::Program>> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(STEPTP_SOURCE_DIR) / "tests/data/programs"))
    if (e.path().extension() == ".leir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    Result<leir::Program> p = leir::parse_program(ss.str(), f.string());
    STEPTP_CHECK(p.ok(), "test program does not parse: " + f.string());
    out.emplace_back(f.filename().string(), *p);
  }
  return out;
}

struct Stats {
  int chains = 0;
  int steps = 0;
};

void run_chains(int chains_per_program, int max_depth, uint64_t seed, Stats& stats) {
  auto programs = load_programs();
  ASSERT_GE(programs.size(), 10u);
  std::mt19937_64 rng(seed);
  verify::VerifyOptions options;
  options.num_seeds = 2;
  for (const auto& [name, original] : programs) {
    for (int chain = 0; chain < chains_per_program; ++chain) {
      leir::Program current = original;
      std::string trace;
      for (int depth = 0; depth < max_depth; ++depth) {
        std::vector<std::pair<const Strategy*, Site>> steps;
        for (const Strategy* s : all_strategies())
          for (Site& site : feasible_sites(*s, current)) steps.emplace_back(s, std::move(site));
        if (steps.empty()) break;
        auto& [strategy, site] = steps[rng() % steps.size()];
        trace += " -> " + site.to_string();
        Outcome<leir::Program> next = strategy->apply(current, site);
        ASSERT_TRUE(next.ok()) << name << trace
                               << ": check passed but apply failed: " << next.infeasible().render();
        Result<void> wf = leir::check_well_formed(*next);
        ASSERT_TRUE(wf.ok()) << name << trace << ": " << wf.error().render();
        Result<leir::Program> reparsed = leir::parse_program(leir::print_program(*next));
        ASSERT_TRUE(reparsed.ok() && *reparsed == *next) << name << trace << ": no round trip";
        verify::VerifyReport report = verify::verify(original, *next, options);
        ASSERT_TRUE(report.equivalent()) << name << trace << "\n"
                                         << leir::print_body(next->blocks) << "\n"
                                         << report.render();
        current = std::move(next).value();
        ++stats.steps;
      }
      ++stats.chains;
    }
  }
}

TEST(StrategyProperty, RandomChainsStayEquivalent) {
  Stats stats;
  auto start = std::chrono::steady_clock::now();
  run_chains(/*chains_per_program=*/10, /*max_depth=*/4, /*seed=*/20240601, stats);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("chains", stats.chains);
  RecordProperty("steps", stats.steps);
  std::cout << "[property] " << stats.chains << " chains, " << stats.steps << " verified steps in "
            << seconds << " s\n";
}

TEST(StrategyProperty, DISABLED_ManyRandomChainsStayEquivalent) {
  Stats stats;
  auto start = std::chrono::steady_clock::now();
  run_chains(/*chains_per_program=*/400, /*max_depth=*/4, /*seed=*/7, stats);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[property] " << stats.chains << " chains, " << stats.steps << " verified steps in "
            << seconds << " s\n";
}

}  // namespace
}  // namespace steptp::strategy

namespace steptp::strategy {
namespace {

// The oracle itself must catch a wrong rewrite, or the property above proves nothing.
TEST(StrategyProperty, OracleRejectsAWrongRewrite) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[4,8]\noutput C f64[4]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx}=C^{f64,g}_{tx}+A^{f64,g}_{tx,a};];");
  ASSERT_TRUE(p.ok());
  leir::Program wrong = *p;
  wrong.blocks[0].loops[1].extent = 7;  // drops one term of every sum
  EXPECT_EQ(verify::verify(*p, wrong).status, verify::Status::kMismatch);
  leir::Program racy = *p;
  racy.blocks[0].loops[1].kind = leir::LoopKind::kParallel;  // still a recognised reduction
  EXPECT_TRUE(verify::verify(*p, racy).equivalent());
}

}  // namespace
}  // namespace steptp::strategy
