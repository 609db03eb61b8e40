// The built-in policies over the real strategy registry, and the static cost model.
#include <gtest/gtest.h>

#include <set>

#include "leir/parser.h"
#include "search/cost_model.h"
#include "search/policies.h"

namespace steptp::search {
namespace {

leir::Program parse(const std::string& text) {
  auto p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), p.ok() ? "" : p.error().render());
  return std::move(p).value();
}

const char* kMatmul =
    "input A f64[8,16]\ninput D f64[16,4]\noutput C f64[8,4]\n"
    "B^{8}_{tx=0}L^{4}_{a=0}L^{16}_{c=0}[C^{f64,g}_{tx,a}=C^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*"
    "D^{f64,g}_{c,a};];";

std::vector<std::string> texts(const std::vector<strategy::Site>& sites) {
  std::vector<std::string> out;
  for (const auto& s : sites) out.push_back(s.to_string());
  return out;
}

std::vector<std::string> steps_of(const std::vector<Proposal>& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.step);
  return out;
}

struct Request {
  leir::Program program;
  std::vector<std::string> trace;
  std::set<std::string> tried;
  std::vector<std::string> failures;
  PolicyRequest make(int n) {
    return PolicyRequest{program, program, trace, 0, 1.0, tried, failures, n, "test"};
  }
};

TEST(EnumeratePolicy, ProposesTheFeasibleStepsInRegistryOrderSkippingTriedOnes) {
  Request r{parse(kMatmul), {}, {}, {}};
  std::vector<std::string> all = texts(feasible_steps(r.program));
  ASSERT_GE(all.size(), 4u);
  EnumeratePolicy policy;
  std::vector<Proposal> first = policy.propose(r.make(3));
  EXPECT_EQ(steps_of(first), (std::vector<std::string>(all.begin(), all.begin() + 3)));
  for (const Proposal& p : first) {
    ASSERT_TRUE(p.program.ok());
    auto expected = apply_step_text(r.program, p.step);
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(*p.program == *expected);
  }
  r.tried = {all[0], all[2]};
  EXPECT_EQ(steps_of(policy.propose(r.make(2))), (std::vector<std::string>{all[1], all[3]}));
  for (const auto& s : all) r.tried.insert(s);
  EXPECT_TRUE(policy.propose(r.make(2)).empty());
}

TEST(RandomPolicy, IsASeededPermutationOfTheFeasibleSteps) {
  Request r{parse(kMatmul), {}, {}, {}};
  std::vector<std::string> all = texts(feasible_steps(r.program));
  const int n = static_cast<int>(all.size());
  RandomPolicy a(7), b(7), c(8);
  std::vector<std::string> pa = steps_of(a.propose(r.make(n)));
  EXPECT_EQ(pa, steps_of(b.propose(r.make(n))));
  EXPECT_NE(pa, steps_of(c.propose(r.make(n))));
  EXPECT_EQ(std::multiset<std::string>(pa.begin(), pa.end()),
            std::multiset<std::string>(all.begin(), all.end()));
}

TEST(CostModel, ChargesStridedAccessAndRewardsUnitStrideAndVectors) {
  // 128x128 copy: 16384 executions; each of the 2 accesses costs 1.0 strided / 0.25 unit-stride.
  const std::string decls = "input A f64[128,128]\noutput C f64[128,128]\n";
  leir::Program strided =
      parse(decls + "L^{128}_{a=0}L^{128}_{c=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  leir::Program unit = parse(decls + "L^{128}_{c=0}L^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  leir::Program vec = parse(decls + "L^{128}_{c=0}V^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(strided), 16384 * 3.0);
  EXPECT_DOUBLE_EQ(estimated_cost(unit), 16384 * 1.5);
  EXPECT_DOUBLE_EQ(estimated_cost(vec), 16384 * 1.5 / 4);
  // Parallel loops divide by the thread count only when there are threads.
  leir::Program par = parse(decls + "P^{128}_{c=0}L^{128}_{a=0}[C^{f64,g}_{c,a}=A^{f64,g}_{c,a};];");
  EXPECT_DOUBLE_EQ(estimated_cost(par, {.threads = 1}), 16384 * 1.5);
  EXPECT_DOUBLE_EQ(estimated_cost(par, {.threads = 4}), 16384 * 1.5 / 4);
}

TEST(CostModel, ChargesGlobalIntermediatesForTheirTraffic) {
  const std::string decls = "input A f64[64]\noutput C f64[64]\n";
  leir::Program two = parse(decls +
                            "L^{64}_{a=0}[D^{f64,g}_{a}=A^{f64,g}_{a}*2;];"
                            "L^{64}_{a=0}[C^{f64,g}_{a}=D^{f64,g}_{a}+1;];");
  leir::Program one = parse(decls + "L^{64}_{a=0}[C^{f64,g}_{a}=A^{f64,g}_{a}*2+1;];");
  // Each statement: 1 + 2 unit-stride accesses = 1.5 per execution, 64 executions.
  EXPECT_DOUBLE_EQ(estimated_cost(one), 64 * 1.5);
  EXPECT_DOUBLE_EQ(estimated_cost(two), 2 * 64 * 1.5 + 2 * 64);
}

TEST(CostPolicy, OffersTheCheapestPredictedProgramsFirst) {
  Request r{parse(kMatmul), {}, {}, {}};
  CostPolicy policy({.threads = 1});
  std::vector<Proposal> ps = policy.propose(r.make(1000));
  ASSERT_EQ(ps.size(), feasible_steps(r.program).size());
  double previous = 0;
  for (const Proposal& p : ps) {
    ASSERT_TRUE(p.program.ok()) << p.step;
    double c = estimated_cost(*p.program);
    EXPECT_GE(c, previous) << p.step;
    previous = c;
  }
}

TEST(Replay, ReproducesTheProgramOfATrace) {
  leir::Program p0 = parse(kMatmul);
  EnumeratePolicy policy;
  Request r{p0, {}, {}, {}};
  Proposal first = std::move(policy.propose(r.make(1)).front());
  ASSERT_TRUE(first.program.ok());
  Request r1{*first.program, {}, {}, {}};
  Proposal second = std::move(policy.propose(r1.make(1)).front());
  ASSERT_TRUE(second.program.ok());
  auto replayed = replay(p0, {first.step, second.step});
  ASSERT_TRUE(replayed.ok());
  EXPECT_TRUE(*replayed == *second.program);
  auto bad = replay(p0, {"llm:loop_tiling"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().category, "not_replayable");
  auto infeasible = replay(p0, {"loop_unrolling(block=9, loop=zz)"});
  ASSERT_FALSE(infeasible.ok());
  EXPECT_EQ(infeasible.error().category, "infeasible");
}

}  // namespace
}  // namespace steptp::search
