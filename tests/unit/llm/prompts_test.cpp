// Tests of the prompt texts: the facts they must carry, determinism and bounded size.
#include <gtest/gtest.h>

#include "leir/parser.h"
#include "llm/prompts.h"

namespace steptp::llm {
namespace {

leir::Program relu() {
  auto p = leir::parse_program(
      "input A f64[16,64]\noutput C f64[16,64]\n"
      "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];\n");
  EXPECT_TRUE(p.ok());
  return p.value();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Prompts, MenuListsTheReferenceNamesInOrderWithSummaries) {
  std::vector<StrategyMenuEntry> menu = registered_strategy_menu();
  ASSERT_EQ(menu.size(), 44u);
  EXPECT_EQ(menu.front().name, "operator_fusion");
  EXPECT_EQ(menu[9].name, "loop_reorder");
  EXPECT_EQ(menu.back().name, "normal_matmul_to_prefix_matmul_based_on_online_softmax");
  StrategyNames names = registered_strategy_names();
  EXPECT_EQ(names.names().size(), 44u);
  EXPECT_EQ(names.canonical("Online Softmax"), "online_softmax");
}

TEST(Prompts, SingleStepCarriesProgramDeclarationsMenuAndFormat) {
  SingleStepPrompt in{"ReLU", relu(), {{"loop_split", "split one loop"}, {"loop_reorder", ""}}, 1};
  std::string text = single_step_prompt(in);
  EXPECT_TRUE(contains(text, "LEIR program of ReLU"));
  EXPECT_TRUE(contains(text, "input A f64[16,64]\n"));
  EXPECT_TRUE(contains(text, "output C f64[16,64]\n"));
  EXPECT_TRUE(contains(text, "B^{16}_{tx=0}L^{64}_{a=0}[C^{f64,g}_{tx,a}=max(A^{f64,g}_{tx,a},0);];"));
  EXPECT_TRUE(contains(text, "- loop_split: split one loop\n- loop_reorder\n"));
  EXPECT_TRUE(contains(text, "<think>"));
  EXPECT_TRUE(contains(text, "\"applied_strategy\""));
  EXPECT_TRUE(contains(text, "\"transformed_IR\""));
  EXPECT_EQ(text, single_step_prompt(in));  // deterministic
  in.num_answers = 3;
  std::string multi = single_step_prompt(in);
  EXPECT_TRUE(contains(multi, "Give 3 different"));
  EXPECT_TRUE(contains(multi, "\"idx\": 0"));
}

TEST(Prompts, MultiStepCarriesPathFailuresAndTargetRules) {
  MultiStepPrompt in;
  in.task = "ReLU";
  in.method = "beam search";
  in.current = relu();
  in.path = {{"loop_split", 1.25}, {"loop_binding", std::nullopt}};
  in.current_speedup = 1.5;
  in.failed = {{"loop_tiling", "mismatch: max abs error 0.5 in C[0,3]", "B^{16}_{tx=0}..."},
               {"", "no_answer_block: the output has no <answer> block", ""}};
  in.menu = {{"loop_unrolling", "unroll one short serial loop"}};
  std::string cuda = multi_step_prompt(in);
  EXPECT_TRUE(contains(cuda, "by beam search"));
  EXPECT_TRUE(contains(cuda, "  1. loop_split, speedup 1.25x\n  2. loop_binding\n"));
  EXPECT_TRUE(contains(cuda, "runs 1.5x faster"));
  EXPECT_TRUE(contains(cuda, "loop_tiling: mismatch: max abs error 0.5 in C[0,3]"));
  EXPECT_TRUE(contains(cuda, "(unparsed answer): no_answer_block"));
  EXPECT_TRUE(contains(cuda, "1024/1024/64"));
  EXPECT_TRUE(contains(cuda, "65535"));
  EXPECT_TRUE(contains(cuda, "tx, ty, tz"));
  EXPECT_TRUE(contains(cuda, "- loop_unrolling: unroll one short serial loop"));
  in.target = Target::kCpu;
  std::string cpu = multi_step_prompt(in);
  EXPECT_TRUE(contains(cpu, "OpenMP"));
  EXPECT_FALSE(contains(cpu, "65535"));
  EXPECT_EQ(cpu, multi_step_prompt(in));
}

TEST(Prompts, FailedAttemptsAreBoundedInNumberAndSize) {
  MultiStepPrompt in;
  in.current = relu();
  for (int i = 0; i < 8; ++i)
    in.failed.push_back({"loop_tiling", "reason " + std::to_string(i), std::string(10000, 'x')});
  std::string text = multi_step_prompt(in);
  EXPECT_TRUE(contains(text, "(8 in all, last 5 shown)"));
  EXPECT_FALSE(contains(text, "reason 2\n"));
  EXPECT_TRUE(contains(text, "reason 3\n"));
  EXPECT_TRUE(contains(text, "[8500 more bytes]"));
  EXPECT_LT(text.size(), 5 * (kMaxQuotedIr + 200) + 4000);
}

}  // namespace
}  // namespace steptp::llm
