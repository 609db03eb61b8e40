// End-to-end tests of build-dataset on a few small catalog workloads: the export schema, byte
// identity across --jobs, resume after a simulated kill, and the independent re-check of every
// exported sample from the JSONL alone.
#include "dataset/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "dataset/chat_format.h"
#include "dataset/recheck.h"
#include "small_build.h"
#include "strategy/registry.h"

namespace steptp::dataset {
namespace {

namespace fs = std::filesystem;

using small_build::kOutputs;
using small_build::options_for;
using small_build::slurp;
using small_build::test_units;

TEST(DiscoverUnits, CommaSeparatedGlobsTakeEveryWorkloadAnyOfThemMatches) {
  const std::string dir = std::string(STEPTP_SOURCE_DIR) + "/workloads";
  auto units = discover_units(dir, "ELU,*Norm,,NoSuchWorkload", false);
  ASSERT_TRUE(units.ok());
  std::set<std::string> names;
  for (const WorkUnit& u : *units) names.insert(u.workload);
  EXPECT_TRUE(names.count("ELU"));
  EXPECT_TRUE(names.count("FrobeniusNorm"));
  EXPECT_FALSE(names.count("GELU"));
  for (const std::string& name : names)
    EXPECT_TRUE(name == "ELU" || (name.size() >= 4 && name.substr(name.size() - 4) == "Norm"))
        << name;
}

class PipelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("steptp_dataset_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    auto s = build_dataset_from_units(test_units(), options_for(root_ / "a", 1));
    ASSERT_TRUE(s.ok()) << s.error().render();
    summary_ = new BuildSummary(std::move(*s));
  }
  static void TearDownTestSuite() {
    fs::remove_all(root_);
    delete summary_;
  }
  static fs::path root_;
  static BuildSummary* summary_;
};
fs::path PipelineTest::root_;
BuildSummary* PipelineTest::summary_ = nullptr;

TEST_F(PipelineTest, ProducesVerifiedSamplesWithProvenance) {
  const DatasetStats& st = summary_->stats;
  EXPECT_EQ(st.units, 4);
  EXPECT_GT(st.candidates, 0);
  EXPECT_GT(st.verified, 0);
  EXPECT_LE(st.verified, st.candidates);
  EXPECT_GT(st.single_train, 0);
  EXPECT_EQ(st.test_workloads.size(), 1u);
  bool saw_depth_one = false;
  std::ifstream in(root_ / "a" / "archive.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["verification"]["status"], "equivalent");
    EXPECT_EQ(j["depth"].get<size_t>(), j["provenance"].size());
    saw_depth_one = saw_depth_one || j["depth"] == 1;
    // The split never shares a workload.
    const bool held_out = std::count(st.test_workloads.begin(), st.test_workloads.end(),
                                     j["workload"].get<std::string>()) > 0;
    EXPECT_EQ(j["split"], held_out ? "test" : "train");
  }
  EXPECT_TRUE(saw_depth_one);
}

// The ms-swift / TRL `messages` schema, checked field by field.
void expect_chat_schema(const fs::path& file, bool multi) {
  std::ifstream in(file);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    ASSERT_TRUE(j.is_object());
    ASSERT_EQ(j.size(), 1u);
    const auto& m = j.at("messages");
    ASSERT_TRUE(m.is_array());
    ASSERT_EQ(m.size(), 3u);
    const char* roles[] = {"system", "user", "assistant"};
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(m[i].size(), 2u);
      EXPECT_EQ(m[i].at("role"), roles[i]);
      ASSERT_TRUE(m[i].at("content").is_string());
      EXPECT_FALSE(m[i]["content"].get<std::string>().empty());
    }
    const std::string a = m[2]["content"];
    ASSERT_EQ(a.rfind("<think>", 0), 0u) << a;
    auto parts = split_assistant(a);
    ASSERT_TRUE(parts.ok());
    EXPECT_EQ(a.substr(a.size() - 9), "</answer>");
    auto answer = nlohmann::json::parse(parts->answer, nullptr, false);
    ASSERT_FALSE(answer.is_discarded()) << parts->answer;
    std::vector<nlohmann::json> items;
    if (multi) {
      ASSERT_TRUE(answer.is_array());
      ASSERT_GE(answer.size(), 2u);
      for (size_t i = 0; i < answer.size(); ++i) {
        EXPECT_EQ(answer[i].at("idx"), i);
        items.push_back(answer[i]);
      }
    } else {
      ASSERT_TRUE(answer.is_object());
      items.push_back(answer);
    }
    for (const auto& item : items) {
      ASSERT_TRUE(item.at("applied_strategy").is_string());
      ASSERT_TRUE(item.at("transformed_IR").is_string());
      EXPECT_NE(strategy::find_strategy(item["applied_strategy"].get<std::string>()), nullptr);
    }
    auto prompt = prompt::parse_user_message(m[1]["content"].get<std::string>());
    ASSERT_TRUE(prompt.ok());
    EXPECT_FALSE(prompt->declarations.empty());
  }
  if (!multi) {
    EXPECT_GT(lines, 0) << file;
  }
}

TEST_F(PipelineTest, DatasetInfoNamesEveryChatFileForLlamaFactory) {
  nlohmann::json info = nlohmann::json::parse(slurp(root_ / "a" / "dataset_info.json"));
  ASSERT_EQ(info.size(), 4u);
  for (const auto& [name, entry] : info.items()) {
    EXPECT_TRUE(fs::exists(root_ / "a" / entry.at("file_name").get<std::string>())) << name;
    EXPECT_EQ(entry.at("formatting"), "sharegpt");
    EXPECT_EQ(entry.at("columns").at("messages"), "messages");
  }
}

TEST_F(PipelineTest, EveryChatLineFollowsTheMessagesSchema) {
  expect_chat_schema(root_ / "a" / "single_train.jsonl", false);
  expect_chat_schema(root_ / "a" / "single_test.jsonl", false);
  expect_chat_schema(root_ / "a" / "multi_train.jsonl", true);
  expect_chat_schema(root_ / "a" / "multi_test.jsonl", true);
}

TEST_F(PipelineTest, ByteIdenticalAcrossJobs) {
  auto s = build_dataset_from_units(test_units(), options_for(root_ / "b", 2));
  ASSERT_TRUE(s.ok()) << s.error().render();
  EXPECT_EQ(s->resumed_units, 0u);
  for (const char* f : kOutputs) EXPECT_EQ(slurp(root_ / "a" / f), slurp(root_ / "b" / f)) << f;
}

TEST_F(PipelineTest, ResumesAfterAKillWithTheSameBytes) {
  fs::copy(root_ / "a", root_ / "c", fs::copy_options::recursive);
  // A kill before the merge: outputs missing, two checkpoints missing, one half-written
  // temporary file left behind, one checkpoint truncated.
  for (const char* f : kOutputs) fs::remove(root_ / "c" / f);
  std::vector<fs::path> checkpoints;
  for (const auto& e : fs::directory_iterator(root_ / "c" / "checkpoints"))
    checkpoints.push_back(e.path());
  std::sort(checkpoints.begin(), checkpoints.end());
  ASSERT_EQ(checkpoints.size(), 4u);
  fs::remove(checkpoints[0]);
  fs::remove(checkpoints[2]);
  std::ofstream(checkpoints[0].string() + ".tmp.1.0") << "{\"partial";
  fs::resize_file(checkpoints[3], fs::file_size(checkpoints[3]) / 2);
  auto s = build_dataset_from_units(test_units(), options_for(root_ / "c", 2));
  ASSERT_TRUE(s.ok()) << s.error().render();
  EXPECT_EQ(s->resumed_units, 1u);
  for (const char* f : kOutputs) EXPECT_EQ(slurp(root_ / "a" / f), slurp(root_ / "c" / f)) << f;
}

TEST_F(PipelineTest, ADifferentSeedGivesADifferentDataset) {
  BuildOptions o = options_for(root_ / "d", 2);
  o.generate.seed = o.filter.seed = 8;
  auto s = build_dataset_from_units(test_units(), o);
  ASSERT_TRUE(s.ok());
  EXPECT_NE(slurp(root_ / "a" / "archive.jsonl"), slurp(root_ / "d" / "archive.jsonl"));
}

TEST_F(PipelineTest, EveryExportedSampleReverifiesFromTheJsonlAlone) {
  std::vector<std::string> files;
  for (const char* f :
       {"single_train.jsonl", "single_test.jsonl", "multi_train.jsonl", "multi_test.jsonl"})
    files.push_back((root_ / "a" / f).string());
  auto r = recheck_chat_files(files, 500, 3, false);
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->checked, 0);
  EXPECT_EQ(r->checked, std::min<int64_t>(500, r->lines));
  EXPECT_EQ(r->passed, r->checked) << (r->failures.empty() ? "" : r->failures.front());
}

TEST_F(PipelineTest, RecheckCatchesATamperedSample) {
  std::ifstream in(root_ / "a" / "single_train.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  auto j = nlohmann::json::parse(line);
  std::string content = j["messages"][2]["content"];
  auto parts = split_assistant(content);
  ASSERT_TRUE(parts.ok());
  auto answer = nlohmann::json::parse(parts->answer);
  // Drop the last top-level block: an output is then left (partly) unwritten or wrong.
  std::string ir = answer["transformed_IR"];
  ir = ir.substr(0, ir.rfind("];", ir.size() - 3) + 2);
  answer["transformed_IR"] = ir;
  j["messages"][2]["content"] =
      "<think>" + parts->think + "</think><answer>" + answer.dump() + "</answer>";
  std::ofstream(root_ / "tampered.jsonl") << j.dump() << "\n";
  auto r = recheck_chat_files({(root_ / "tampered.jsonl").string()}, 10, 0, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->checked, 1);
  EXPECT_EQ(r->passed, 0);
}

}  // namespace
}  // namespace steptp::dataset
