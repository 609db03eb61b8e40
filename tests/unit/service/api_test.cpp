// Tests of the JSON operation table: answers, the HTTP statuses of the three error kinds, the
// diagnostic's location, and the limits.
#include "service/api.h"

#include <gtest/gtest.h>

namespace steptp::service {
namespace {

using nlohmann::json;

const char* kProgram =
    "input A f64[4,6]\noutput C f64[4,6]\n"
    "B^{4}_{tx=0}L^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];\n";

TEST(Api, AppliesAStep) {
  Response r =
      call("apply", {{"program", kProgram}, {"step", "loop_unrolling(block=0, loop=a)"}}, Limits{});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["body"], "B^{4}_{tx=0}U^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];");
}

TEST(Api, AStepThatDoesNotApplyIs422WithItsInfeasibleCode) {
  Response r =
      call("apply", {{"program", kProgram}, {"step", "loop_unrolling(block=3, loop=a)"}}, Limits{});
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["error"]["kind"], "does_not_apply");
  EXPECT_EQ(r.body["error"]["code"], "loop_unrolling.no_such_block");
}

TEST(Api, AParseErrorIs400WithItsLocation) {
  Response r = call("parse", {{"program", "input A f64[4]\nB^{4"}}, Limits{});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["kind"], "bad_input");
  EXPECT_EQ(r.body["error"]["code"], "parse_error");
  EXPECT_EQ(r.body["error"]["location"]["line"], 2);
  EXPECT_EQ(r.body["error"]["location"]["column"], 5);
}

TEST(Api, WrongFieldTypesAreBadRequests) {
  EXPECT_EQ(call("parse", json::array(), Limits{}).status, 400);
  EXPECT_EQ(call("parse", {{"program", 3}}, Limits{}).body["error"]["code"], "bad_request");
  Response r =
      call("verify", {{"original", kProgram}, {"candidate", kProgram}, {"seeds", -1}}, Limits{});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(
      call("verify",
           {{"original", kProgram}, {"candidate", kProgram}, {"seeds", 18446744073709551615u}},
           Limits{})
          .status,
      400);
}

TEST(Api, AProgramOverTheLimitIs413) {
  Limits small;
  small.max_program_bytes = 16;
  Response r = call("parse", {{"program", kProgram}}, small);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body["error"]["code"], "too_large");
}

TEST(Api, TheWorkBudgetBoundsVerification) {
  Limits tight;
  tight.work_budget = 10;
  Response r = call("verify", {{"original", kProgram}, {"candidate", kProgram}}, tight);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["code"], "budget_exceeded");
}

TEST(Api, AnUnknownOperationIs404) {
  EXPECT_EQ(call("nope", json::object(), Limits{}).status, 404);
}

TEST(Api, MeasuringNeedsPermission) {
  Limits no_measure;
  no_measure.allow_measure = false;
  EXPECT_EQ(call("bench", {{"program", kProgram}}, no_measure).status, 403);
}

TEST(Api, RewardReadsABuildDatasetRecord) {
  // The user message in the prompt format of prompt/chat_prompt.h.
  json record = {{"original_program", kProgram},
                 {"messages",
                  {{{"role", "user"}, {"content", "optimize this"}},
                   {{"role", "assistant"},
                    {"content",
                     "<answer>{\"applied_strategy\": \"loop_unrolling\", \"transformed_IR\": "
                     "\"B^{4}_{tx=0}U^{6}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];\"}"
                     "</answer>"}}}}};
  Response r =
      call("reward",
           {{"record", record}, {"answer", record["messages"][1]["content"].get<std::string>()}},
           Limits{});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["matched"], true);
  EXPECT_EQ(r.body["correct"], true);
}

}  // namespace
}  // namespace steptp::service
