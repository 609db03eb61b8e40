// The run report: the node the selection kept is the reported best in JSON and Markdown, with
// its trace; the Markdown table stays one table.
#include "search/report.h"

#include <gtest/gtest.h>

#include "scripted.h"
#include "search/algorithms.h"

namespace steptp::search {
namespace {

using testing::Children;
using testing::FakeEvaluator;
using testing::key_of;
using testing::program_of;
using testing::ScriptedPolicy;

// The root (100 ms) and two children: key 1 at 50 ms, key 2 at 40 ms (the search's best).
struct TwoChildren {
  ScriptedPolicy policy{Children{{0, {1, 2}}}};
  FakeEvaluator evaluator;
  std::unique_ptr<Engine> engine;
  TwoChildren() {
    evaluator.times = {{0, 100}, {1, 50}, {2, 40}};
    SearchOptions o;
    o.budget = {10, 10, 8};
    auto created = Engine::create(program_of(0), policy, evaluator, o, "greedy");
    STEPTP_CHECK(created.ok(), "engine");
    engine = std::move(created).value();
    engine->expand(0, 2);
    STEPTP_CHECK(key_of(engine->node(engine->best()).program) == 2, "search best");
  }
};

TEST(Report, TheKeptFinalistIsTheReportedBest) {
  TwoChildren run;
  auto& engine = run.engine;
  const int kept = engine->best() == 1 ? 2 : 1;  // the node of key 1

  RunInfo info;
  info.workload = "w";
  info.torch = TorchBaseline{30, 1, "blas"};
  Selection sel;
  sel.best = kept;
  sel.rounds = 3;
  sel.finalists = {{engine->best(), 2.5, 60}, {kept, 2.0, 48}};
  sel.confirmation = Confirmation{3, 100, 48};
  info.selection = sel;

  nlohmann::json j = report_json(*engine, info);
  EXPECT_EQ(j["best"]["trace"], nlohmann::json::array({"s1"}));
  EXPECT_DOUBLE_EQ(j["best"]["speedup"].get<double>(), 2.0);
  EXPECT_EQ(j["selection"]["kept"], kept);
  EXPECT_EQ(j["selection"]["search_best"], engine->best());
  EXPECT_EQ(j["selection"]["finalists"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["confirmation"]["speedup"].get<double>(), 100.0 / 48);
  EXPECT_EQ(j["confirmation"]["node"], kept);
  EXPECT_EQ(j["confirmation"]["kept"], true);
  EXPECT_DOUBLE_EQ(j["torch"]["speedup_of_best"].get<double>(), 30.0 / 50);

  std::string md = report_markdown(*engine, info);
  // Every row of the timing table, PyTorch's included, before the selection paragraph.
  const size_t table = md.find("| | time (ms) | speedup |");
  const size_t torch_row = md.find("| PyTorch eager");
  const size_t kept_line = md.find("Kept node");
  ASSERT_NE(table, std::string::npos);
  ASSERT_NE(torch_row, std::string::npos);
  ASSERT_NE(kept_line, std::string::npos);
  EXPECT_LT(torch_row, kept_line);
  for (size_t at = md.find('\n', table); at < torch_row; at = md.find('\n', at + 1))
    EXPECT_EQ(md[at + 1], '|') << "the table is interrupted at offset " << at;
  EXPECT_NE(md.find("1. `s1`"), std::string::npos) << md;
}

TEST(Report, AStepsPromiseIsShownWhereThePolicyMadeOne) {
  ScriptedPolicy policy{Children{{0, {1}}, {1, {11}}}};
  policy.promises = {{1, 4.0}};
  FakeEvaluator evaluator;
  evaluator.times = {{0, 100}, {1, 100}, {11, 25}};
  SearchOptions o;
  o.budget = {10, 10, 8};
  auto engine = Engine::create(program_of(0), policy, evaluator, o, "beam");
  ASSERT_TRUE(engine.ok());
  run(Algorithm::kBeam, **engine);
  ASSERT_EQ(key_of((*engine)->node((*engine)->best()).program), 11);

  nlohmann::json j = report_json(**engine, RunInfo{});
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["steps"][0]["promise"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["steps"][1]["promise"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["tree"][1]["promise"].get<double>(), 4.0);
  std::string md = report_markdown(**engine, RunInfo{});
  EXPECT_NE(md.find("1. `s1` — 100.0000 ms, 1.00× (the policy promised 4.00× more)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("2. `s11` — 25.0000 ms, 4.00×\n"), std::string::npos) << md;
}

TEST(Report, AnUnconfirmedProgramLeavesTheInitialProgramAsTheBest) {
  TwoChildren run;
  auto& engine = run.engine;
  RunInfo info;
  info.workload = "w";
  Selection sel;
  sel.best = 0;
  sel.unconfirmed = engine->best();
  sel.rounds = 3;
  sel.finalists = {{engine->best(), 2.5, 60}};
  sel.confirmation = Confirmation{3, 100, 104};
  info.selection = sel;

  nlohmann::json j = report_json(*engine, info);
  EXPECT_EQ(j["best"]["trace"], nlohmann::json::array());
  EXPECT_DOUBLE_EQ(j["best"]["speedup"].get<double>(), 1.0);
  EXPECT_EQ(j["selection"]["kept"], engine->best());
  EXPECT_EQ(j["confirmation"]["node"], engine->best());
  EXPECT_EQ(j["confirmation"]["kept"], false);
  EXPECT_DOUBLE_EQ(j["confirmation"]["speedup"].get<double>(), 100.0 / 104);

  std::string md = report_markdown(*engine, info);
  EXPECT_NE(md.find(fmt::format("| node {} re-measured after the search", engine->best())),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("the initial program is reported as the best"), std::string::npos) << md;
  EXPECT_EQ(md.find("No verified step beat the initial program."), std::string::npos) << md;
}

TEST(Report, WithoutASelectionTheSearchBestIsReported) {
  TwoChildren run;
  nlohmann::json j = report_json(*run.engine, RunInfo{});
  EXPECT_EQ(j["best"]["trace"], nlohmann::json::array({"s2"}));
  EXPECT_FALSE(j.contains("selection"));
  EXPECT_FALSE(j.contains("confirmation"));
}

}  // namespace
}  // namespace steptp::search
