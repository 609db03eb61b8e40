// The verifier's contract: equivalent or exactly one typed failure, seeded inputs that respect
// function domains, per-dtype tolerances, and reports that say where things differ.
#include "verify/verify.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "leir/parser.h"

namespace steptp::verify {
namespace {

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr const char* kRelu =
    "input A f64[4,8]\noutput C f64[4,8]\n"
    "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];\n";

TEST(Verify, OnlineSoftmaxIsEquivalentToThreePassSoftmax) {
  VerifyReport r = verify_text(read_example("softmax.leir"), read_example("softmax_online.leir"));
  EXPECT_TRUE(r.equivalent()) << r.render();
  EXPECT_EQ(r.seeds_run, 3);
  EXPECT_LT(r.max_abs_error, 1e-12);
}

TEST(Verify, OnlineSoftmaxStaysEquivalentOnLargeLogits) {
  for (double scale : {10.0, 100.0}) {
    VerifyOptions o;
    o.input_scale = scale;
    VerifyReport r =
        verify_text(read_example("softmax.leir"), read_example("softmax_online.leir"), o);
    EXPECT_TRUE(r.equivalent()) << "scale " << scale << ": " << r.render();
  }
}

TEST(Verify, BareBodyCandidateUsesTheOriginalsDeclarations) {
  VerifyReport r =
      verify_text(kRelu,
                  "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=if_then_else(A^{f64,g}_{tx,a}>0,"
                  "A^{f64,g}_{tx,a},0);];");
  EXPECT_TRUE(r.equivalent()) << r.render();
}

TEST(Verify, ReportsTheFirstDifferingElement) {
  VerifyReport r =
      verify_text(kRelu, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0.5);];");
  ASSERT_EQ(r.status, Status::kMismatch) << r.render();
  ASSERT_TRUE(r.mismatch.has_value());
  EXPECT_EQ(r.mismatch->tensor, "C");
  EXPECT_EQ(r.mismatch->index.size(), 2u);
  EXPECT_EQ(r.mismatch->written_by_block, 0);
  EXPECT_GT(r.mismatch->differing_elements, 0);
  // The first differing element is one where A < 0.5, so the candidate wrote exactly 0.5.
  EXPECT_EQ(r.mismatch->actual, 0.5);
  EXPECT_NE(r.message.find("differs at"), std::string::npos);
  EXPECT_EQ(r.to_json()["status"], "mismatch");
}

TEST(Verify, ParseErrorInCandidateIsACandidateFailure) {
  VerifyReport r = verify_text(kRelu, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}");
  EXPECT_EQ(r.status, Status::kParseError);
  EXPECT_EQ(r.side, Side::kCandidate);
}

TEST(Verify, BrokenOriginalIsReportedAsTheOriginalsFault) {
  VerifyReport r =
      verify_text("input A f64[4]\noutput C f64[4]\nL^{4}_{a=0}[C^{f64,g}_{a}=", kRelu);
  EXPECT_EQ(r.side, Side::kOriginal);
  EXPECT_EQ(r.status, Status::kParseError);
}

TEST(Verify, ChangedDeclarationsAreIllFormed) {
  VerifyReport r =
      verify_text(kRelu,
                  "input A f64[4,8]\noutput C f32[4,8]\n"
                  "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];\n");
  EXPECT_EQ(r.status, Status::kIllFormed);
  EXPECT_NE(r.message.find("declarations"), std::string::npos);
}

TEST(Verify, SafetyFailuresKeepTheirCategory) {
  // Reads past the end of A.
  EXPECT_EQ(
      verify_text(kRelu, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a+1};];").status,
      Status::kOutOfBounds);
  // Leaves the last column of C unwritten.
  EXPECT_EQ(
      verify_text(kRelu, "B^{4}_{tx=0}L^{7}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a};];").status,
      Status::kIncompleteOutput);
  // Every thread writes the same row: a race on a bound loop.
  EXPECT_EQ(verify_text(kRelu,
                        "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{0,a}=A^{f64,g}_{tx,a};];"
                        "L^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a};];")
                .status,
            Status::kRace);
  // Reads an element of an intermediate that nothing wrote (D is 4x8, only 4x4+1 written).
  EXPECT_EQ(verify_text(kRelu,
                        "B^{4}_{tx=0}L^{4}_{a=0}[D^{f64,g}_{tx,a}=A^{f64,g}_{tx,a};];"
                        "B^{1}_{tx=0}[D^{f64,g}_{0,7}=0;];"
                        "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=D^{f64,g}_{tx,a};];")
                .status,
            Status::kUninitializedRead);
}

TEST(Verify, CompiledOnlyVerificationNeverRunsAnOutOfBoundsCandidateUnchecked) {
  // The compiled C has no bounds checks; a write far past C's end would corrupt memory. The
  // interpreter must see the candidate first and report it.
  VerifyOptions o;
  o.engine = Engine::kCompiled;
  VerifyReport write =
      verify_text(kRelu, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a*4096}=A^{f64,g}_{tx,a};];", o);
  EXPECT_EQ(write.status, Status::kOutOfBounds) << write.render();
  VerifyReport read =
      verify_text(kRelu, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx-9000,a};];", o);
  EXPECT_EQ(read.status, Status::kOutOfBounds) << read.render();
  // A provably in-bounds candidate still runs on the compiled engine alone.
  VerifyReport fine =
      verify_text(kRelu, "B^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];", o);
  EXPECT_TRUE(fine.equivalent()) << fine.render();
  EXPECT_EQ(fine.engine, "compiled");
}

// Property: over every example program, every declared tensor and every occurrence of it in the
// body, a superscript that contradicts the declaration (another dtype, a non-global scope) or a
// subscript list of another rank makes the candidate ill_formed, never equivalent.
TEST(Verify, ContradictingADeclaredAttributeInTheBodyIsNeverEquivalent) {
  namespace fs = std::filesystem;
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(std::string(STEPTP_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".leir") continue;
    const std::string original = read_example(entry.path().filename().string());
    auto program = leir::parse_program(original);
    ASSERT_TRUE(program.ok()) << entry.path();
    for (const leir::TensorDecl& d : program->decls) {
      const std::string declared = d.name + "^{" + std::string(leir::dtype_name(d.dtype)) + ",g}_{";
      for (size_t at = original.find(declared); at != std::string::npos;
           at = original.find(declared, at + 1)) {
        if (at > 0 && std::isalnum(static_cast<unsigned char>(original[at - 1]))) continue;
        std::vector<std::string> wrong;
        for (const char* dt : {"f64", "f32", "f16", "bf16", "i64", "bool"})
          if (dt != leir::dtype_name(d.dtype)) wrong.push_back(d.name + "^{" + dt + ",g}_{");
        for (const char* scope : {"s", "l"})
          wrong.push_back(d.name + "^{" + std::string(leir::dtype_name(d.dtype)) + "," + scope +
                          "}_{");
        // One subscript more: `_{0,` before the first index.
        wrong.push_back(declared + "0,");
        for (const std::string& w : wrong) {
          std::string candidate = original;
          candidate.replace(at, declared.size(), w);
          VerifyReport r = verify_text(original, candidate);
          ++cases;
          EXPECT_EQ(r.status, Status::kIllFormed)
              << entry.path().filename() << ": " << w << " at " << at << "\n"
              << r.render();
        }
      }
    }
  }
  EXPECT_GT(cases, 200);
}

TEST(Verify, HugeCandidateFailsFastWithBudgetExceeded) {
  VerifyReport r = verify_text(kRelu,
                               "L^{1000000}_{c=0}L^{1000000}_{d=0}B^{4}_{tx=0}L^{8}_{a=0}"
                               "[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];");
  EXPECT_EQ(r.status, Status::kBudgetExceeded) << r.render();
}

TEST(Verify, Float16ProgramsUseTheLooseTolerance) {
  std::string orig =
      "input A f16[4,8]\noutput C f16[4,8]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f16,g}_{tx,a}=A^{f16,g}_{tx,a}*3;];\n";
  // Computing through an f64 intermediate rounds once instead of ... still within f16 tolerance.
  std::string cand =
      "B^{4}_{tx=0}L^{8}_{a=0}[D^{f64,g}_{tx,a}=A^{f16,g}_{tx,a}*1.5;];"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f16,g}_{tx,a}=D^{f64,g}_{tx,a}*2.001;];";
  VerifyReport r = verify_text(orig, cand);
  EXPECT_TRUE(r.equivalent()) << r.render();
  // The same relative error in f64 is a mismatch.
  std::string orig64 = orig, cand64 = cand;
  for (std::string* s : {&orig64, &cand64})
    for (size_t pos; (pos = s->find("f16")) != std::string::npos;) s->replace(pos, 3, "f64");
  EXPECT_EQ(verify_text(orig64, cand64).status, Status::kMismatch);
}

TEST(Inputs, AreDeterministicAndRespectDomains) {
  auto p = leir::parse_program(
      "input A f64[64]\ninput I i64[16]\ninput X f64[64]\noutput C f64[16]\n"
      "L^{16}_{a=0}[C^{f64,g}_{a}=log(A^{f64,g}_{a})+sqrt(A^{f64,g}_{a+16})+X^{f64,g}_{I^{i64,g}_{"
      "a}};];");
  ASSERT_TRUE(p.ok()) << p.error().render();
  auto first = make_inputs(*p, 7);
  auto again = make_inputs(*p, 7);
  auto other = make_inputs(*p, 8);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].values, again[0].values);
  EXPECT_NE(first[0].values, other[0].values);
  for (double v : first[0].values) EXPECT_GT(v, 0.0);  // A reaches log and sqrt
  bool has_negative = false;
  for (double v : first[2].values) has_negative |= v < 0;
  EXPECT_TRUE(has_negative);  // X is unconstrained
  for (double v : first[1].values) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 64.0);  // I indexes X's only dimension
    EXPECT_EQ(v, std::floor(v));
  }
}

}  // namespace
}  // namespace steptp::verify
