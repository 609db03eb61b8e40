// The one reader of catalog.json: the fields it reads, what it leaves out, and its typed errors.
// Also read once over the bundled catalog, which every subcommand depends on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "frontend/catalog.h"

namespace steptp::frontend {
namespace {

namespace fs = std::filesystem;

class CatalogReader : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("steptp_catalog_test_" + std::to_string(::getpid()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& text) { std::ofstream(root_ / "catalog.json") << text; }
  fs::path root_;
};

TEST_F(CatalogReader, ReadsNameLevelCategoryFileAndKeepsTheWholeEntry) {
  write(R"({"workloads": [
    {"name": "gemm", "level": 1, "category": "matmul", "file": "level1/gemm.py",
     "small_shapes": {"M": 4}},
    {"level": 2, "category": "nameless"},
    {"name": "relu", "level": 1}
  ]})");
  Result<Catalog> c = read_catalog(root_.string());
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->workloads.size(), 2u);  // the entry without a name is left out
  const CatalogWorkload* gemm = c->find("gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->level, 1);
  EXPECT_EQ(gemm->category, "matmul");
  EXPECT_EQ(gemm->record["small_shapes"]["M"], 4);
  EXPECT_EQ(c->problem_path(*gemm), (root_ / "level1/gemm.py").string());
  EXPECT_EQ(c->problem_path(*c->find("relu")), "");
  EXPECT_EQ(c->graph_path("gemm", true), (root_ / "graphs" / "gemm.small.json").string());
  EXPECT_EQ(c->graph_path("gemm", false), (root_ / "graphs" / "gemm.json").string());
  EXPECT_EQ(c->find("softmax"), nullptr);
}

TEST_F(CatalogReader, AMissingFileIsAnIoErrorThatSaysWhereToPointIt) {
  Result<Catalog> c = read_catalog((root_ / "nowhere").string());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().category, "io_error");
  EXPECT_NE(c.error().message.find("--catalog DIR"), std::string::npos);
}

TEST_F(CatalogReader, ANonCatalogIsABadCatalog) {
  for (const char* text : {"not json", "[1, 2]", R"({"workloads": 3})", R"({"name": "x"})"}) {
    write(text);
    Result<Catalog> c = read_catalog(root_.string());
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.error().category, "bad_catalog") << text;
  }
}

TEST(BundledCatalog, EveryWorkloadHasALevelAndASmallGraph) {
  Result<Catalog> c = read_catalog(std::string(STEPTP_SOURCE_DIR) + "/workloads");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_GT(c->workloads.size(), 100u);
  for (const CatalogWorkload& w : c->workloads) {
    EXPECT_GE(w.level, 1) << w.name;
    EXPECT_TRUE(fs::exists(c->graph_path(w.name, true))) << w.name;
  }
}

}  // namespace
}  // namespace steptp::frontend
