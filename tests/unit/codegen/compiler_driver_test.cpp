// The kernel cache: a second build of the same source never runs the compiler; compiler
// failures are typed errors carrying the compiler's message; timing statistics are right.
#include "codegen/compiler_driver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "codegen/c_engine.h"
#include "codegen/timing.h"
#include "leir/parser.h"

namespace steptp::codegen {
namespace {

// A fresh cache directory, removed when the test ends.
class ScopedDir {
 public:
  explicit ScopedDir(const std::string& tag) {
    path_ = std::string(STEPTP_BINARY_DIR) + "/codegen-cache-" + tag + "-XXXXXX";
    EXPECT_NE(::mkdtemp(path_.data()), nullptr);
  }
  ~ScopedDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const char* kSource = "int steptp_answer(void) { return 42; }\n";

TEST(CompilerDriver, SecondBuildHitsTheCacheWithoutCompiling) {
  CompilerOptions o;
  ScopedDir dir("hit");
  o.cache_dir = dir.path();
  int64_t before = compiler_invocation_count();
  Result<BuildResult> first = build_shared_object(kSource, o);
  ASSERT_TRUE(first.ok()) << first.error().render();
  EXPECT_FALSE(first->cache_hit);
  EXPECT_EQ(compiler_invocation_count(), before + 1);
  auto answer = reinterpret_cast<int (*)()>(first->library->symbol("steptp_answer"));
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer(), 42);

  Result<BuildResult> second = build_shared_object(kSource, o);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cache_hit);
  EXPECT_EQ(second->key, first->key);
  EXPECT_EQ(compiler_invocation_count(), before + 1);
  // The cache holds the published object and its source, and no temporaries.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.cache_dir)) {
    std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(CompilerDriver, KeyDependsOnSourceAndFlags) {
  CompilerOptions o;
  std::string k1 = cache_key(kSource, o);
  EXPECT_EQ(k1.size(), 32u);
  EXPECT_EQ(k1, cache_key(kSource, o));
  EXPECT_NE(k1, cache_key(std::string(kSource) + " ", o));
  CompilerOptions o2 = o;
  o2.extra_flags.push_back("-DX=1");
  EXPECT_NE(k1, cache_key(kSource, o2));
}

TEST(CompilerDriver, SecondBuildOfAProgramDoesNotInvokeTheCompiler) {
  Result<leir::Program> p = leir::parse_program(
      "input A f64[4]\noutput C f64[4]\nB^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx}*3;];\n");
  ASSERT_TRUE(p.ok());
  CEngineOptions o;
  ScopedDir dir("program");
  o.compiler.cache_dir = dir.path();
  Result<CompiledKernel> a = CompiledKernel::build(*p, o);
  ASSERT_TRUE(a.ok()) << a.error().render();
  EXPECT_FALSE(a->cache_hit());
  int64_t after_first = compiler_invocation_count();
  Result<CompiledKernel> b = CompiledKernel::build(*p, o);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->cache_hit());
  EXPECT_EQ(compiler_invocation_count(), after_first);
}

TEST(CompilerDriver, MissingCompilerIsACompileError) {
  CompilerOptions o;
  ScopedDir dir("nocc");
  o.cache_dir = dir.path();
  o.compiler = "/nonexistent/steptp-cc";
  Result<BuildResult> r = build_shared_object(kSource, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "compile_error");
  EXPECT_NE(r.error().message.find("steptp-cc"), std::string::npos) << r.error().message;
}

TEST(CompilerDriver, BadFlagIsACompileErrorWithTheCompilerMessage) {
  CompilerOptions o;
  ScopedDir dir("badflag");
  o.cache_dir = dir.path();
  o.extra_flags.push_back("-fno-such-flag-steptp");
  Result<BuildResult> r = build_shared_object(kSource, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "compile_error");
  EXPECT_NE(r.error().message.find("no-such-flag-steptp"), std::string::npos) << r.error().message;
  // Nothing half-built is left behind.
  for (const auto& e : std::filesystem::directory_iterator(o.cache_dir))
    ADD_FAILURE() << "left in cache: " << e.path();
}

TEST(CompilerDriver, SyntaxErrorIsACompileError) {
  CompilerOptions o;
  ScopedDir dir("syntax");
  o.cache_dir = dir.path();
  Result<BuildResult> r = build_shared_object("int broken( { return; }\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "compile_error");
  EXPECT_NE(r.error().message.find("error"), std::string::npos);
}

TEST(Timing, SummaryStatisticsOfKnownSamples) {
  // Sorted: 1 2 3 4 10 → median 3, q1 2, q3 4 (linear interpolation), min 1, max 10.
  Timing t = summarize({4, 1, 10, 3, 2});
  EXPECT_DOUBLE_EQ(t.median_ms, 3);
  EXPECT_DOUBLE_EQ(t.q1_ms, 2);
  EXPECT_DOUBLE_EQ(t.q3_ms, 4);
  EXPECT_DOUBLE_EQ(t.iqr_ms, 2);
  EXPECT_DOUBLE_EQ(t.min_ms, 1);
  EXPECT_DOUBLE_EQ(t.max_ms, 10);
  EXPECT_EQ(t.repeats, 5);
  Timing even = summarize({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(even.median_ms, 2.5);
}

TEST(Timing, RunsWarmupThenRepeats) {
  int calls = 0;
  TimingOptions o;
  o.warmup = 3;
  o.repeats = 7;
  Timing t = time_callable([&] { ++calls; }, o);
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(t.samples_ms.size(), 7u);
  EXPECT_EQ(t.threads, 1);
}

TEST(Timing, DeterministicInputsStayInLogDomain) {
  for (int64_t k = 0; k < 1000; ++k) {
    double v = deterministic_input_value(leir::DType::kF64, 2, k);
    EXPECT_GE(v, 0.5);
    EXPECT_LT(v, 1.5);
  }
  EXPECT_EQ(deterministic_input_value(leir::DType::kI64, 0, 5), 0.0);
}

}  // namespace
}  // namespace steptp::codegen
