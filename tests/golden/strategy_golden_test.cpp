// tests/golden/strategy_golden_test.cpp — runs every strategy golden case under
// tests/golden/strategy/<strategy>/<case>.leir.
//
// Case format (STYLE.md §3):
//   # step: loop_unrolling(block=0, loop=a)
//   # expect-infeasible: loop_unrolling.too_long      (optional: a rejects_* case)
//   # expect-message-contains: loop 'a'               (optional)
//   # ---- input
//   <a program file: declarations, then the body>
//   # ---- expect
//   <the expected body; may span lines, which are concatenated>
// A positive case must: be listed by sites(), apply, print exactly the expected body, be well
// formed, round-trip through the printer and parser, replay from its printed step to the same
// program, and verify equivalent to the input (interpreter, seeded inputs, no safety error).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"
#include "strategy/registry.h"
#include "strategy/strategy.h"
#include "verify/verify.h"

namespace steptp::strategy {
namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string path;
  std::string step;
  std::string expect_infeasible;
  std::string expect_message;
  std::string input;
  std::string expect;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

GoldenCase read_case(const std::string& path) {
  std::ifstream in(path);
  GoldenCase c;
  c.path = path;
  std::string line;
  enum { kHeader, kInput, kExpect } section = kHeader;
  auto value_after = [](const std::string& l, const std::string& key) {
    return trim(l.substr(key.size()));
  };
  while (std::getline(in, line)) {
    if (line.rfind("# ---- input", 0) == 0) {
      section = kInput;
    } else if (line.rfind("# ---- expect", 0) == 0) {
      section = kExpect;
    } else if (section == kHeader) {
      if (line.rfind("# step:", 0) == 0) c.step = value_after(line, "# step:");
      if (line.rfind("# expect-infeasible:", 0) == 0)
        c.expect_infeasible = value_after(line, "# expect-infeasible:");
      if (line.rfind("# expect-message-contains:", 0) == 0)
        c.expect_message = value_after(line, "# expect-message-contains:");
    } else if (section == kInput) {
      c.input += line + "\n";
    } else {
      c.expect += trim(line);
    }
  }
  return c;
}

std::vector<std::string> case_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(STEPTP_GOLDEN_STRATEGY_DIR))
    if (e.is_regular_file() && e.path().extension() == ".leir") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string case_name(const testing::TestParamInfo<std::string>& info) {
  fs::path p(info.param);
  std::string n = p.parent_path().filename().string() + "__" + p.stem().string();
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class StrategyGolden : public testing::TestWithParam<std::string> {};

TEST_P(StrategyGolden, Case) {
  GoldenCase c = read_case(GetParam());
  ASSERT_FALSE(c.step.empty()) << c.path << ": no '# step:' line";
  Result<Site> site = parse_site(c.step);
  ASSERT_TRUE(site.ok()) << site.error().render();
  const Strategy* strategy = find_strategy(site->strategy());
  ASSERT_NE(strategy, nullptr) << "unknown strategy " << site->strategy();
  // The folder names the strategy.
  EXPECT_EQ(fs::path(c.path).parent_path().filename().string(), strategy->name());

  Result<leir::Program> input = leir::parse_program(c.input, c.path);
  ASSERT_TRUE(input.ok()) << input.error().render();
  Result<void> input_wf = leir::check_well_formed(*input);
  ASSERT_TRUE(input_wf.ok()) << "the input is not well formed: " << input_wf.error().render();

  Check check = strategy->check(*input, *site);
  Outcome<leir::Program> applied = strategy->apply(*input, *site);
  if (!c.expect_infeasible.empty()) {
    ASSERT_FALSE(check.ok()) << "expected " << c.expect_infeasible << ", but the step applies";
    EXPECT_EQ(check.infeasible().code, c.expect_infeasible) << check.infeasible().message;
    EXPECT_NE(check.infeasible().message.find(c.expect_message), std::string::npos)
        << "message: " << check.infeasible().message;
    ASSERT_FALSE(applied.ok());
    EXPECT_EQ(applied.infeasible().code, c.expect_infeasible);
    EXPECT_FALSE(strategy->explain(*input, *site).empty());
    return;
  }
  ASSERT_TRUE(check.ok()) << check.infeasible().render();
  ASSERT_TRUE(applied.ok()) << applied.infeasible().render();
  const leir::Program& out = *applied;

  // Exact expected text.
  EXPECT_EQ(leir::print_body(out.blocks), c.expect);
  // Listed by sites().
  std::vector<Site> sites = strategy->sites(*input);
  EXPECT_NE(std::find(sites.begin(), sites.end(), *site), sites.end())
      << site->to_string() << " is not among the " << sites.size() << " sites";
  // Well formed.
  Result<void> wf = leir::check_well_formed(out);
  EXPECT_TRUE(wf.ok()) << wf.error().render();
  // Round trip.
  Result<leir::Program> reparsed = leir::parse_program(leir::print_program(out));
  ASSERT_TRUE(reparsed.ok()) << reparsed.error().render();
  EXPECT_TRUE(*reparsed == out) << "parse(print(p)) differs from p";
  // Replay from the printed step.
  Result<Site> replayed = parse_site(site->to_string());
  ASSERT_TRUE(replayed.ok()) << replayed.error().render();
  EXPECT_EQ(*replayed, *site);
  Outcome<leir::Program> again = strategy->apply(*input, *replayed);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(*again == out) << "replaying the step gives another program";
  // Explained with the strategy's own words.
  EXPECT_FALSE(strategy->explain(*input, *site).empty());
  // Same values, no safety error.
  verify::VerifyReport report = verify::verify(*input, out);
  EXPECT_TRUE(report.equivalent()) << report.render();
}

INSTANTIATE_TEST_SUITE_P(Cases, StrategyGolden, testing::ValuesIn(case_files()), case_name);

}  // namespace
}  // namespace steptp::strategy
