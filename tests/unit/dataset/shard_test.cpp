// Sharded builds: the partition, --shard parsing, and merge_shards — two shards merged give the
// bytes of a one-process build, and every way a set of parts can be wrong is refused by name.
#include "dataset/shard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "small_build.h"

namespace steptp::dataset {
namespace {

namespace fs = std::filesystem;

using small_build::kOutputs;
using small_build::slurp;
using small_build::test_units;

BuildOptions options_for(const fs::path& out) { return small_build::options_for(out, 2); }

MergeOptions merge_of(std::vector<fs::path> parts, const fs::path& out) {
  MergeOptions m;
  for (const fs::path& p : parts) m.parts.push_back(p.string());
  m.out_dir = out.string();
  m.jobs = 2;
  return m;
}

void expect_bad_input_naming(const Result<MergeSummary>& r, std::vector<std::string> names) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "bad_input");
  for (const std::string& n : names)
    EXPECT_NE(r.error().message.find(n), std::string::npos)
        << "'" << n << "' not in: " << r.error().message;
}

TEST(ParseShard, AcceptsKOfNCountingFromZero) {
  auto s = parse_shard("3/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 4);
  EXPECT_EQ(to_string(*s), "3/4");
  EXPECT_TRUE(parse_shard("0/1").ok());
}

TEST(ParseShard, RejectsKNotBelowN) {
  for (const char* text : {"4/4", "5/4", "1/1"}) {
    auto s = parse_shard(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.error().category, "bad_input");
    EXPECT_NE(s.error().message.find("below N"), std::string::npos) << s.error().message;
  }
}

TEST(ParseShard, RejectsMalformedText) {
  for (const char* text : {"", "1", "/2", "1/", "a/b", "-1/2", "1/-2", "1/0", "1/2/3", " 1/2",
                           "1 /2", "0x1/2", "1/99999999"})
    EXPECT_FALSE(parse_shard(text).ok()) << "'" << text << "'";
}

TEST(ShardAssignment, DealsUnitsEvenlyAndIndependentlyOfTheirOrder) {
  std::vector<std::string> ids;
  for (int w = 0; w < 50; ++w)
    for (const char* inst : {"default", "small"})
      ids.push_back("w" + std::to_string(w) + "." + inst);
  const std::vector<int> shard = shard_assignment(ids, 3);
  std::vector<int> per_shard(3, 0);
  int defaults_in_0 = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_GE(shard[i], 0);
    ASSERT_LT(shard[i], 3);
    ++per_shard[shard[i]];
    defaults_in_0 += shard[i] == 0 && ids[i].ends_with(".default");
  }
  for (int n : per_shard) EXPECT_TRUE(n == 33 || n == 34) << n;
  EXPECT_GT(defaults_in_0, 5);
  EXPECT_LT(defaults_in_0, 30);  // not all default shapes in one shard

  std::vector<std::string> reversed(ids.rbegin(), ids.rend());
  const std::vector<int> again = shard_assignment(reversed, 3);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(again[ids.size() - 1 - i], shard[i]);
}

class ShardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("steptp_shard_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    const std::vector<WorkUnit> units = test_units();
    auto whole = build_dataset_from_units(units, options_for(root_ / "whole"));
    ASSERT_TRUE(whole.ok()) << whole.error().render();
    for (int k = 0; k < 2; ++k) {
      auto s = build_shard_from_units(units, options_for(part(k)), ShardSpec{k, 2});
      ASSERT_TRUE(s.ok()) << s.error().render();
      EXPECT_EQ(s->total_units, 4u);
      EXPECT_EQ(s->units, 2u);
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static fs::path part(int k) { return root_ / ("part" + std::to_string(k)); }
  // A copy of part k, to be spoiled by one test.
  static fs::path copy_of_part(int k, const std::string& name) {
    const fs::path to = root_ / name;
    fs::remove_all(to);
    fs::copy(part(k), to, fs::copy_options::recursive);
    return to;
  }
  static fs::path root_;
};
fs::path ShardTest::root_;

TEST_F(ShardTest, TwoShardsMergedAreByteIdenticalToOneProcess) {
  auto m = merge_shards(merge_of({part(0), part(1)}, root_ / "merged"));
  ASSERT_TRUE(m.ok()) << m.error().render();
  EXPECT_EQ(m->build.units, 4u);
  for (const char* f : kOutputs) {
    const std::string want = slurp(root_ / "whole" / f);
    EXPECT_FALSE(want.empty()) << f;
    EXPECT_EQ(slurp(root_ / "merged" / f), want) << f;
  }
}

TEST_F(ShardTest, TheOrderOfThePartsDoesNotMatter) {
  auto m = merge_shards(merge_of({part(1), part(0)}, root_ / "merged_reversed"));
  ASSERT_TRUE(m.ok()) << m.error().render();
  for (const char* f : kOutputs)
    EXPECT_EQ(slurp(root_ / "merged_reversed" / f), slurp(root_ / "whole" / f)) << f;
}

TEST_F(ShardTest, APartHoldsOnlyItsCheckpointsAndTheManifest) {
  for (int k = 0; k < 2; ++k) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(part(k))) names.insert(e.path().filename());
    EXPECT_EQ(names, (std::set<std::string>{"checkpoints", kShardManifest}));
    EXPECT_EQ(
        std::distance(fs::directory_iterator(part(k) / "checkpoints"), fs::directory_iterator{}),
        2);
  }
}

TEST_F(ShardTest, RefusesOverlappingParts) {
  auto m = merge_shards(merge_of({part(0), part(1), part(0)}, root_ / "overlap"));
  expect_bad_input_naming(m, {"is in both part", part(0).string(), "shard 0/2", "overlap"});
}

TEST_F(ShardTest, RefusesAMissingShardNamingAUnitOfIt) {
  auto m = merge_shards(merge_of({part(0)}, root_ / "missing"));
  expect_bad_input_naming(m, {"is in no part", "shard 1/2 is missing"});
}

TEST_F(ShardTest, RefusesAPartBuiltWithOtherSettings) {
  // The same checkpoints (resumed), exported with another test fraction.
  const fs::path other = copy_of_part(1, "other_settings");
  BuildOptions o = options_for(other);
  o.filter.test_fraction = 0.5;
  auto s = build_shard_from_units(test_units(), o, ShardSpec{1, 2});
  ASSERT_TRUE(s.ok()) << s.error().render();
  EXPECT_EQ(s->resumed_units, 2u);
  auto m = merge_shards(merge_of({part(0), other}, root_ / "mismatch"));
  expect_bad_input_naming(m, {other.string(), "other settings", "filter.test_fraction"});
}

TEST_F(ShardTest, RefusesAFolderThatIsNoPart) {
  fs::create_directories(root_ / "empty");
  auto m = merge_shards(merge_of({part(0), root_ / "empty"}, root_ / "no_part"));
  expect_bad_input_naming(m, {(root_ / "empty").string(), "no shard.json"});
}

TEST_F(ShardTest, RefusesAPartThatLostACheckpoint) {
  const fs::path spoiled = copy_of_part(0, "lost_checkpoint");
  const fs::path victim = fs::directory_iterator(spoiled / "checkpoints")->path();
  fs::remove(victim);
  auto m = merge_shards(merge_of({spoiled, part(1)}, root_ / "lost"));
  expect_bad_input_naming(m, {spoiled.string(), "no valid checkpoint", victim.stem().string()});
}

}  // namespace
}  // namespace steptp::dataset
