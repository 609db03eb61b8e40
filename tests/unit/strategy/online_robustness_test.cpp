// tests/unit/strategy/online_robustness_test.cpp — the online strategies (#40–#43) stay
// equivalent when inputs are large (×10, ×100: exp would overflow without the running max) and
// when scores are -inf (a masked attention row, possibly masked entirely).
#include <gtest/gtest.h>

#include <string>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"
#include "strategy/registry.h"
#include "verify/verify.h"

namespace steptp::strategy {
namespace {

const char* kSoftmax =
    "input A f64[4,6]\noutput C f64[4,6]\n"
    "B^{4}_{tx=0}L^{6}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];"
    "B^{4}_{tx=0}L^{6}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx});];"
    "B^{4}_{tx=0}L^{6}_{a=0}[C^{f64,g}_{tx,a}=exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx})/"
    "E^{f64,g}_{tx};];";
const char* kLogSoftmax =
    "input A f64[4,6]\noutput C f64[4,6]\n"
    "B^{4}_{tx=0}L^{6}_{a=0}[D^{f64,g}_{tx}=max(D^{f64,g}_{tx},A^{f64,g}_{tx,a});];"
    "B^{4}_{tx=0}L^{6}_{a=0}[E^{f64,g}_{tx}=E^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-D^{f64,g}_{tx});];"
    "B^{4}_{tx=0}L^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}-D^{f64,g}_{tx}-log(E^{f64,g}_{tx});]"
    ";";
const char* kLogSumExp =
    "input A f64[3,8]\noutput C f64[3,1]\n"
    "B^{3}_{tx=0}L^{8}_{a=0}[J^{f64,g}_{tx}=max(J^{f64,g}_{tx},A^{f64,g}_{tx,a});];"
    "B^{3}_{tx=0}L^{8}_{a=0}[K^{f64,g}_{tx}=K^{f64,g}_{tx}+exp(A^{f64,g}_{tx,a}-J^{f64,g}_{tx});];"
    "B^{3}_{tx=0}[C^{f64,g}_{tx,0}=J^{f64,g}_{tx}+log(K^{f64,g}_{tx});];";
// Masked attention: scores Q·K^T scaled, -inf where the (random) mask is set, softmax, ·V.
const char* kAttention =
    "input Q f64[2,4,3]\ninput K f64[2,5,3]\ninput V f64[2,5,6]\nconst M bool[4,5]\n"
    "output O f64[2,4,6]\n"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}L^{3}_{d=0}[S^{f64,g}_{tx,a,c}=S^{f64,g}_{tx,a,c}+"
    "Q^{f64,g}_{tx,a,d}*K^{f64,g}_{tx,c,d};];"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}[W^{f64,g}_{tx,a,c}=if_then_else(M^{bool,g}_{a,c}!=0,"
    "(-inf),S^{f64,g}_{tx,a,c}*0.5);];"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}[D^{f64,g}_{tx,a}=max(D^{f64,g}_{tx,a},W^{f64,g}_{tx,a,c});]"
    ";"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}[E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}+exp(W^{f64,g}_{tx,a,c}-"
    "D^{f64,g}_{tx,a});];"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{5}_{c=0}[F^{f64,g}_{tx,a,c}=exp(W^{f64,g}_{tx,a,c}-D^{f64,g}_{tx,a})"
    "/"
    "E^{f64,g}_{tx,a};];"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}L^{5}_{d=0}[O^{f64,g}_{tx,a,c}=O^{f64,g}_{tx,a,c}+"
    "F^{f64,g}_{tx,a,d}*V^{f64,g}_{tx,d,c};];";

leir::Program parse(const char* text) {
  Result<leir::Program> p = leir::parse_program(text);
  STEPTP_CHECK(p.ok(), p.ok() ? "" : p.error().render());
  return *p;
}

// Applies `strategy` at its first site and checks the result at both input scales.
leir::Program apply_first(const leir::Program& p, std::string_view strategy) {
  const Strategy* s = find_strategy(strategy);
  EXPECT_NE(s, nullptr);
  std::vector<Site> sites = s->sites(p);
  EXPECT_FALSE(sites.empty()) << strategy << " has no site";
  if (sites.empty()) return p;
  Outcome<leir::Program> out = s->apply(p, sites.front());
  EXPECT_TRUE(out.ok()) << out.infeasible().render();
  return *out;
}

void expect_equivalent(const leir::Program& original, const leir::Program& candidate) {
  Result<void> wf = leir::check_well_formed(candidate);
  ASSERT_TRUE(wf.ok()) << wf.error().render();
  for (double scale : {10.0, 100.0}) {
    verify::VerifyOptions o;
    o.input_scale = scale;
    verify::VerifyReport r = verify::verify(original, candidate, o);
    EXPECT_TRUE(r.equivalent()) << "scale " << scale << ":\n"
                                << r.render() << "\n"
                                << leir::print_body(candidate.blocks);
  }
}

TEST(OnlineRobustness, SoftmaxFamilyAtLargeScales) {
  for (const char* text : {kSoftmax, kLogSoftmax, kLogSumExp}) {
    leir::Program p = parse(text);
    expect_equivalent(p, apply_first(p, "online_softmax"));
    expect_equivalent(p, apply_first(p, "normal_loop_summation_on_exp_to_prefix_summation_on_exp"));
  }
}

TEST(OnlineRobustness, MaskedAttentionAtLargeScales) {
  leir::Program p = parse(kAttention);
  leir::Program online = apply_first(p, "online_softmax");
  expect_equivalent(p, online);
  // The scores may be -inf, so the running sum is guarded.
  EXPECT_NE(leir::print_body(online.blocks).find("==-inf"), std::string::npos);
  expect_equivalent(p, apply_first(p, "flashattention_wo_tiling"));
  expect_equivalent(p,
                    apply_first(online, "normal_matmul_to_prefix_matmul_based_on_online_softmax"));
}

TEST(OnlineRobustness, FullyMaskedRowStaysNaNLikeTheOriginal) {
  // Every score of row a=0 is -inf: the original yields NaN there (exp(-inf+inf)); so must the
  // online forms, and the other rows must be unaffected.
  std::string text = kAttention;
  text.replace(text.find("M^{bool,g}_{a,c}!=0"), 19, "a==0");
  leir::Program p = parse(text.c_str());
  expect_equivalent(p, apply_first(p, "flashattention_wo_tiling"));
  expect_equivalent(p, apply_first(p, "online_softmax"));
}

TEST(OnlineRobustness, FlashAttentionOfOnlineSoftmaxIsThePrefixMatmul) {
  // #43 on the online_softmax program and #42 on the original build the same computation
  // (different fresh names aside): both have one nested block and a copy-out division.
  leir::Program p = parse(kAttention);
  leir::Program flash = apply_first(p, "flashattention_wo_tiling");
  leir::Program prefix = apply_first(apply_first(p, "online_softmax"),
                                     "normal_matmul_to_prefix_matmul_based_on_online_softmax");
  EXPECT_EQ(flash.blocks.size(), prefix.blocks.size());
  EXPECT_EQ(flash.blocks.size(), p.blocks.size() - 2);
}

}  // namespace
}  // namespace steptp::strategy
