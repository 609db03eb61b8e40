// The token budget of build-dataset with the real Qwen3 tokenizer: a tiny budget forces drops and
// reductions, every written line re-counted independently from the JSONL is within it, multi
// samples keep >= 2 labels, and the output stays byte-identical across --jobs.
#include "dataset/token_budget.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "dataset/chat_format.h"
#include "dataset/pipeline.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/qwen3_chat.h"

namespace steptp::dataset {
namespace {

namespace fs = std::filesystem;

// With these units: 2000 tokens is below most multi samples (reductions and drops), 1200 below
// some single samples as well (every multi sample is dropped there).
constexpr int64_t kBudget = 2000;
constexpr int64_t kSingleBudget = 1200;

std::string tokenizer_path() {
  return std::string(STEPTP_SHARED_DIR) + "/data/qwen3/tokenizer.json";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

BuildOptions options_for(const fs::path& out, int jobs, bool with_tokenizer,
                         int64_t budget = kBudget) {
  BuildOptions o;
  o.out_dir = out.string();
  o.jobs = jobs;
  o.progress = false;
  o.generate.seed = 3;
  o.generate.max_depth = 1;
  o.filter.seed = 3;
  o.filter.test_fraction = 0.5;
  if (with_tokenizer) o.tokenizer_path = tokenizer_path();
  o.max_tokens = budget;
  return o;
}

std::vector<WorkUnit> test_units() {
  auto units = discover_units(std::string(STEPTP_SOURCE_DIR) + "/workloads", "*", false);
  EXPECT_TRUE(units.ok());
  std::vector<WorkUnit> chosen;
  for (const WorkUnit& u : *units)
    if (u.workload == "GELU" || u.workload == "ELU" || u.workload == "Gemm_Add_ReLU")
      chosen.push_back(u);
  EXPECT_EQ(chosen.size(), 3u);
  return chosen;
}

class TokenBudgetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Without the tokenizer every test of the suite fails in SetUp (no silent skip).
    if (!fs::exists(tokenizer_path())) return;
    root_ = fs::temp_directory_path() / ("steptp_token_budget_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    auto s = build_dataset_from_units(test_units(), options_for(root_ / "a", 1, true));
    ASSERT_TRUE(s.ok()) << s.error().render();
    stats_ = new DatasetStats(std::move(s->stats));
  }
  static void TearDownTestSuite() {
    if (!root_.empty()) fs::remove_all(root_);
    delete stats_;
  }
  void SetUp() override {
    ASSERT_NE(stats_, nullptr) << "no Qwen3 tokenizer at " << tokenizer_path()
                               << " (or the budgeted build failed)";
  }
  static fs::path root_;
  static DatasetStats* stats_;
};
fs::path TokenBudgetTest::root_;
DatasetStats* TokenBudgetTest::stats_ = nullptr;

TEST_F(TokenBudgetTest, TinyBudgetReducesAndDrops) {
  const BudgetCounts& b = stats_->budget;
  EXPECT_GT(b.reduced_multi, 0);
  EXPECT_GE(b.labels_removed, b.reduced_multi);
  EXPECT_GT(b.dropped_over_budget_multi, 0);
  EXPECT_EQ(stats_->max_tokens, kBudget);
  EXPECT_NE(stats_->token_counter.find("tokenizer.json (vocab 151669"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(slurp(root_ / "a" / "stats.json"));
  EXPECT_EQ(j["token_budget"]["reduced_multi"], b.reduced_multi);
  EXPECT_LE(j["tokens"]["multi"]["max"].get<int64_t>(), kBudget);
}

// Re-counts every line of the four chat files in `dir` with its own tokenizer; returns the
// number of multi lines.
int64_t check_lines_fit(const fs::path& dir, int64_t budget, const DatasetStats& st) {
  auto tok = tokenizer::BpeTokenizer::from_file(tokenizer_path());
  EXPECT_TRUE(tok.ok()) << tok.error().render();
  if (!tok) return 0;
  int64_t lines = 0, multi = 0;
  for (const char* f :
       {"single_train.jsonl", "single_test.jsonl", "multi_train.jsonl", "multi_test.jsonl"}) {
    std::istringstream in(slurp(dir / f));
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json j = nlohmann::json::parse(line);
      std::vector<tokenizer::ChatMessage> messages;
      for (const auto& m : j["messages"]) messages.emplace_back(m["role"], m["content"]);
      EXPECT_EQ(messages.size(), 3u);
      EXPECT_LE(tokenizer::chat_token_count(*tok, messages), budget) << f << ": " << line;
      ++lines;
      if (std::string(f).starts_with("multi")) {
        auto parts = split_assistant(messages[2].second);
        EXPECT_TRUE(parts.ok());
        if (!parts) continue;
        const nlohmann::json answer = nlohmann::json::parse(parts->answer);
        EXPECT_TRUE(answer.is_array());
        EXPECT_GE(answer.size(), 2u) << line;
        ++multi;
      }
    }
  }
  EXPECT_EQ(lines, st.single_train + st.single_test + st.multi_train + st.multi_test);
  return multi;
}

TEST_F(TokenBudgetTest, EveryWrittenLineFitsCountedIndependently) {
  EXPECT_GT(check_lines_fit(root_ / "a", kBudget, *stats_), 0);
}

TEST_F(TokenBudgetTest, SingleSamplesOverBudgetAreDropped) {
  auto s =
      build_dataset_from_units(test_units(), options_for(root_ / "single", 1, true, kSingleBudget));
  ASSERT_TRUE(s.ok()) << s.error().render();
  const DatasetStats& st = s->stats;
  EXPECT_GT(st.budget.dropped_over_budget_single, 0);
  EXPECT_EQ(st.filter_verdicts.at("dropped_over_budget"), st.budget.dropped_over_budget_single);
  EXPECT_GT(st.single_train + st.single_test, 0);
  check_lines_fit(root_ / "single", kSingleBudget, st);
}

TEST_F(TokenBudgetTest, ByteIdenticalAcrossJobs) {
  auto s = build_dataset_from_units(test_units(), options_for(root_ / "b", 2, true));
  ASSERT_TRUE(s.ok()) << s.error().render();
  for (const char* f : {"single_train.jsonl", "single_test.jsonl", "multi_train.jsonl",
                        "multi_test.jsonl", "archive.jsonl", "stats.json", "stats.md"})
    EXPECT_EQ(slurp(root_ / "a" / f), slurp(root_ / "b" / f)) << f;
}

TEST_F(TokenBudgetTest, WithoutTokenizerTheEstimateIsNamed) {
  auto s = build_dataset_from_units(test_units(), options_for(root_ / "c", 1, false));
  ASSERT_TRUE(s.ok()) << s.error().render();
  EXPECT_EQ(s->stats.token_counter, "estimate (bytes / 4)");
  EXPECT_NE(slurp(root_ / "c" / "stats.md").find("estimate (bytes / 4)"), std::string::npos);
}

TEST(InformativenessOrder, HardFirstThenShorterThenRecordOrder) {
  std::vector<StepRecord> r(4);
  r[0].difficulty = "easy";
  r[0].cot = "a";
  r[1].difficulty = "hard";
  r[1].cot = "long long";
  r[2].difficulty = "hard";
  r[2].cot = "x";
  r[3].difficulty = "very_easy";
  EXPECT_EQ(informativeness_order(r, {0, 1, 2, 3}), (std::vector<size_t>{2, 1, 0, 3}));
}

}  // namespace
}  // namespace steptp::dataset
