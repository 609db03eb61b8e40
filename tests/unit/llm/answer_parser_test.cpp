// Tests of parse_answer: what it tolerates (wrapping) and what it refuses (the result), plus
// randomized hostile inputs that must never crash, hang or throw.
#include "llm/answer_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace steptp::llm {
namespace {

const StrategyNames kKnown({"loop_reorder", "loop_tiling", "online_softmax", "operator_fusion"});
const std::string kIr = "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];";

std::string obj(const std::string& strategy, const std::string& ir = kIr) {
  return "{\"applied_strategy\": \"" + strategy + "\", \"transformed_IR\": \"" + ir + "\"}";
}

void expect_one(const Result<ParsedAnswer>& r, const std::string& strategy,
                const std::string& ir = kIr) {
  ASSERT_TRUE(r.ok()) << r.error().render();
  ASSERT_EQ(r->candidates.size(), 1u);
  EXPECT_EQ(r->candidates[0].applied_strategy, strategy);
  EXPECT_EQ(r->candidates[0].transformed_ir, ir);
}

void expect_error(const Result<ParsedAnswer>& r, const std::string& category) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, category) << r.error().message;
}

TEST(AnswerParser, TrainingFormatWithThinkAndAnswer) {
  auto r = parse_answer(
      "<think>Loops a and c can swap.</think><answer>" + obj("loop_reorder") + "</answer>", kKnown);
  expect_one(r, "loop_reorder");
  EXPECT_FALSE(r->is_list);
}

TEST(AnswerParser, IgnoresAnswerTagsQuotedInsideTheThinkBlock) {
  auto r = parse_answer(
      "<think>I should write <answer>{\"x\":1}</answer> at the end.</think>\n"
      "<answer>" +
          obj("loop_tiling") + "</answer>",
      kKnown);
  expect_one(r, "loop_tiling");
}

TEST(AnswerParser, AcceptsBackslashClosingTagsOfOldData) {
  expect_one(parse_answer("<think>x<\\think><answer>" + obj("loop_tiling") + "<\\answer>", kKnown),
             "loop_tiling");
}

TEST(AnswerParser, AcceptsFencesAndChatterInsideTheBlock) {
  expect_one(parse_answer("<answer>Sure! Here it is:\n```json\n" + obj("online_softmax") +
                              "\n```\nHope this helps.</answer>",
                          kKnown),
             "online_softmax");
}

TEST(AnswerParser, AcceptsBareJsonAfterThinkAndInFences) {
  expect_one(parse_answer("<think>hm</think>\n```json\n" + obj("loop_reorder") + "\n```", kKnown),
             "loop_reorder");
  expect_one(parse_answer("The answer is " + obj("loop_reorder") + " as requested.", kKnown),
             "loop_reorder");
}

TEST(AnswerParser, UnterminatedAnswerBlockStillParsesAWholeValue) {
  expect_one(parse_answer("<answer>" + obj("loop_reorder"), kKnown), "loop_reorder");
}

TEST(AnswerParser, ListOfObjectsGivesEveryCandidateInOrder) {
  auto r = parse_answer(
      "<answer>[" + obj("loop_reorder", "X") + ", " + obj("loop_tiling", "Y") + "]</answer>",
      kKnown);
  ASSERT_TRUE(r.ok()) << r.error().render();
  EXPECT_TRUE(r->is_list);
  ASSERT_EQ(r->candidates.size(), 2u);
  EXPECT_EQ(r->candidates[0].applied_strategy, "loop_reorder");
  EXPECT_EQ(r->candidates[0].transformed_ir, "X");
  EXPECT_EQ(r->candidates[1].applied_strategy, "loop_tiling");
  EXPECT_EQ(r->candidates[1].transformed_ir, "Y");
}

TEST(AnswerParser, PythonReprListOfTheReferenceMultiLabels) {
  auto r = parse_answer(
      "<answer>[{'idx': 0, 'transformed_IR': 'it\\'s \"X\"', "
      "'applied_strategy': 'loop_tiling'}, {'idx': 1, 'transformed_IR': 'Y', "
      "'applied_strategy': 'operator_fusion', 'ok': True}]</answer>",
      kKnown);
  ASSERT_TRUE(r.ok()) << r.error().render();
  ASSERT_EQ(r->candidates.size(), 2u);
  EXPECT_EQ(r->candidates[0].transformed_ir, "it's \"X\"");
  EXPECT_EQ(r->candidates[1].applied_strategy, "operator_fusion");
}

TEST(AnswerParser, NormalisesSpellingsOfAKnownStrategyName) {
  for (std::string written :
       {"Loop Tiling", "loop-tiling", " loop_tiling ", "`loop_tiling`", "LOOP_TILING"})
    expect_one(parse_answer("<answer>" + obj(written) + "</answer>", kKnown), "loop_tiling");
}

TEST(AnswerParser, PluralKeyOfTheReferencePromptAndOneElementListAreAccepted) {
  expect_one(parse_answer(R"(<answer>{"applied_strategies": ["loop_tiling"], "transformed_ir": ")" +
                              kIr + "\"}</answer>",
                          kKnown),
             "loop_tiling");
}

TEST(AnswerParser, TypedFailures) {
  expect_error(parse_answer("I cannot help with that.", kKnown), "no_answer_block");
  expect_error(parse_answer("<think>still thinking about {\"a\": 1}", kKnown), "no_answer_block");
  expect_error(parse_answer("<answer>no json here</answer>", kKnown), "bad_json");
  expect_error(parse_answer("<answer>{\"applied_strategy\": \"loop_tiling\", "
                            "\"transformed_IR\": \"x\",}</answer>",
                            kKnown),
               "bad_json");
  expect_error(parse_answer("<answer>[]</answer>", kKnown), "empty_list");
  expect_error(parse_answer("<answer>[1, 2]</answer>", kKnown), "not_an_object");
  expect_error(parse_answer("<answer>{\"applied_strategy\": \"loop_tiling\"}</answer>", kKnown),
               "missing_key");
  expect_error(parse_answer("<answer>{\"transformed_IR\": \"x\"}</answer>", kKnown), "missing_key");
  expect_error(
      parse_answer("<answer>{\"applied_strategy\": 3, \"transformed_IR\": \"x\"}</answer>", kKnown),
      "wrong_type");
  expect_error(parse_answer("<answer>{\"applied_strategy\": \"loop_tiling\", "
                            "\"transformed_IR\": [\"x\"]}</answer>",
                            kKnown),
               "wrong_type");
  expect_error(parse_answer("<answer>" + obj("loop_tiling", "  ") + "</answer>", kKnown),
               "empty_ir");
  expect_error(parse_answer("<answer>" + obj("make_it_fast") + "</answer>", kKnown),
               "unknown_strategy");
  expect_error(parse_answer("<answer>" + obj("loop_tiling; rm -rf /") + "</answer>", kKnown),
               "unknown_strategy");
}

TEST(AnswerParser, OneBadEntryRejectsTheListAndNamesIt) {
  auto r = parse_answer("<answer>[" + obj("loop_tiling") + "," + obj("warp_magic") + "]</answer>",
                        kKnown);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "unknown_strategy");
  EXPECT_NE(r.error().message.find("entry 1"), std::string::npos);
}

TEST(AnswerParser, LimitsOnSizeDepthAndCount) {
  ParseOptions small;
  small.max_text_bytes = 100;
  expect_error(parse_answer(std::string(101, ' '), kKnown, small), "too_large");
  std::string deep = "<answer>" + std::string(100000, '[') + std::string(100000, ']') + "</answer>";
  expect_error(parse_answer(deep, kKnown), "bad_json");
  std::string many = "<answer>[";
  for (int i = 0; i < 65; ++i) many += (i ? "," : "") + obj("loop_tiling");
  expect_error(parse_answer(many + "]</answer>", kKnown), "too_many");
}

TEST(AnswerParser, EmptyNameListAcceptsAnyWellFormedName) {
  expect_one(parse_answer("<answer>" + obj("Some New Strategy") + "</answer>", StrategyNames()),
             "some_new_strategy");
}

TEST(AnswerParser, PythonLiteralConversion) {
  EXPECT_EQ(python_literal_to_json("{'a': 'b\"c', \"d\": None, 'e': [True, False]}"),
            "{\"a\": \"b\\\"c\", \"d\": null, \"e\": [true, false]}");
  EXPECT_EQ(python_literal_to_json("{\"Nonexistent\": 'x'}"), "{\"Nonexistent\": \"x\"}");
}

TEST(AnswerParser, AnswerBlockExtraction) {
  EXPECT_FALSE(answer_block("no tags").has_value());
  EXPECT_EQ(answer_block("<answer> x </answer> y").value(), " x ");
  EXPECT_EQ(answer_block("<think><answer>a</answer></think><answer>b</answer>").value(), "b");
  EXPECT_EQ(answer_block("<answer>open").value(), "open");
}

// Random text built from the characters and fragments that matter to the parser: it must
// return (ok or a typed error), never throw, and any success must satisfy the contract.
TEST(AnswerParser, RandomHostileInputsNeverCrash) {
  const std::vector<std::string> pieces = {"<think>",
                                           "</think>",
                                           "<answer>",
                                           "</answer>",
                                           "<\\answer>",
                                           "```json\n",
                                           "```",
                                           "{",
                                           "}",
                                           "[",
                                           "]",
                                           "\"",
                                           "'",
                                           ":",
                                           ",",
                                           "\\",
                                           "applied_strategy",
                                           "transformed_IR",
                                           "loop_tiling",
                                           "\"applied_strategy\": \"loop_tiling\"",
                                           "\"transformed_IR\": \"x\"",
                                           "null",
                                           "True",
                                           "1e999",
                                           "\xff\xfe",
                                           std::string(1, '\0'),
                                           "\n",
                                           " ",
                                           "\"\\u0000\"",
                                           "-0",
                                           "[[[[[[[[",
                                           "]]]]]]]]",
                                           obj("loop_tiling", "x"),
                                           obj("loop_reorder", "y")};
  std::mt19937_64 rng(1234);
  int successes = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    auto r = parse_answer(text, kKnown);
    if (r.ok()) {
      ++successes;
      ASSERT_FALSE(r->candidates.empty());
      for (const Candidate& c : r->candidates) {
        EXPECT_TRUE(kKnown.names().count(c.applied_strategy)) << c.applied_strategy;
        EXPECT_FALSE(c.transformed_ir.empty());
      }
    } else {
      EXPECT_FALSE(r.error().category.empty());
    }
  }
  // The generator does produce valid answers sometimes, so both paths are exercised.
  EXPECT_GT(successes, 0);
}

TEST(AnswerParser, RandomBytesNeverCrash) {
  std::mt19937_64 rng(99);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string text(rng() % 512, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xff);
    auto r = parse_answer(text, kKnown);
    (void)r.ok();
  }
  std::string huge = "<answer>{\"applied_strategy\": \"loop_tiling\", \"transformed_IR\": \"" +
                     std::string(8u << 20, 'x') + "\"}</answer>";
  auto r = parse_answer(huge, kKnown);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->candidates[0].transformed_ir.size(), 8u << 20);
}

}  // namespace
}  // namespace steptp::llm
