// Hostile input: truncations of real programs, random bytes, extreme nesting, huge literals and
// extents. The parser must always answer with a value or a typed parse_error (with a location
// inside the text) — never crash, hang or exhaust the stack.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"

namespace steptp::leir {
namespace {

std::vector<std::string> corpus_texts() {
  std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/tests/data/leir_corpus_level1.jsonl");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line).at("leir").get<std::string>());
  return out;
}

// Success (then print/re-parse must agree) or a located parse_error.
void expect_typed_outcome(std::string_view text) {
  auto r = parse_program(text);
  if (r.ok()) {
    auto again = parse_program(print_program(*r));
    ASSERT_TRUE(again.ok()) << print_program(*r);
    EXPECT_EQ(*again, *r);
    (void)check_well_formed(*r, WellFormedOptions{false, true});
    return;
  }
  const Error& e = r.error();
  ASSERT_EQ(e.category, "parse_error") << e.render();
  ASSERT_FALSE(e.message.empty());
  if (e.diagnostic) {
    EXPECT_GE(e.diagnostic->where.line, 1);
    EXPECT_GE(e.diagnostic->where.column, 1);
    (void)e.render();
  }
}

TEST(HostileInput, EveryPrefixOfSomeRowsAndEverySeventhOfAll) {
  std::vector<std::string> rows = corpus_texts();
  ASSERT_FALSE(rows.empty());
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string& text = rows[r];
    size_t step = r < 3 ? 1 : 7;
    for (size_t n = 0; n < text.size(); n += step) {
      auto result = parse_program(std::string_view(text).substr(0, n));
      // A strict prefix of a one-line program never ends in "];" at a block boundary unless it
      // is a complete shorter program; either way the outcome must be typed.
      expect_typed_outcome(std::string_view(text).substr(0, n));
      if (!result.ok()) {
        ASSERT_TRUE(result.error().diagnostic.has_value());
        EXPECT_LE(result.error().diagnostic->where.column, static_cast<int>(n) + 1);
      }
    }
  }
}

TEST(HostileInput, RandomByteStrings) {
  std::mt19937 rng(4242);
  const std::string alphabet = "LBPVUACDXab tx=0123456789^{}_[];,.()+-*/%<>=!&|e#\n fgil";
  for (int i = 0; i < 10000; ++i) {
    size_t len = std::uniform_int_distribution<size_t>(0, 80)(rng);
    std::string s;
    for (size_t k = 0; k < len; ++k) {
      if (i % 2 == 0)
        s += static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
      else
        s += alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
    }
    expect_typed_outcome(s);
  }
}

TEST(HostileInput, MutatedCorpusRows) {
  std::vector<std::string> rows = corpus_texts();
  std::mt19937 rng(99);
  for (int i = 0; i < 3000; ++i) {
    std::string s = rows[static_cast<size_t>(i) % rows.size()];
    for (int m = 0; m < 3; ++m) {
      size_t at = std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng);
      switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
        case 0:
          s.erase(at, 1);
          break;
        case 1:
          s.insert(at, 1, s[std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng)]);
          break;
        default:
          s[at] = "[]{}();,^_=+-*0a"[std::uniform_int_distribution<int>(0, 15)(rng)];
          break;
      }
    }
    expect_typed_outcome(s);
  }
}

TEST(HostileInput, DeepBracketsAndParenthesesAreRejectedNotRecursed) {
  const int kDeep = 10000;
  std::string brackets(kDeep, '[');
  auto b = parse_body(brackets + "C^{f64,g}=1;" + std::string(kDeep, ']'));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().category, "parse_error");
  EXPECT_NE(b.error().message.find("nesting is deeper than the limit of 256"), std::string::npos);

  auto p =
      parse_body("[C^{f64,g}=" + std::string(kDeep, '(') + "1" + std::string(kDeep, ')') + ";];");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("nesting is deeper"), std::string::npos);

  auto sub = parse_expr([&] {
    std::string s;
    for (int i = 0; i < kDeep; ++i) s += "A^{i64,g}_{";
    s += "0";
    for (int i = 0; i < kDeep; ++i) s += "}";
    return s;
  }());
  ASSERT_FALSE(sub.ok());
  EXPECT_NE(sub.error().message.find("nesting is deeper"), std::string::npos);

  auto minus = parse_expr(std::string(kDeep, '-') + "1");
  ASSERT_FALSE(minus.ok());
  auto power = parse_expr([&] {
    std::string s = "a";
    for (int i = 0; i < kDeep; ++i) s += "**a";
    return s;
  }());
  ASSERT_FALSE(power.ok());
}

TEST(HostileInput, NestingWithinTheLimitIsAccepted) {
  auto p = parse_expr(std::string(200, '(') + "1" + std::string(200, ')'));
  ASSERT_TRUE(p.ok()) << p.error().render();
  ParseLimits tight;
  tight.max_nesting_depth = 3;
  EXPECT_TRUE(parse_body("[[C^{f64,g}=1;];];", "<input>", tight).ok());
  EXPECT_FALSE(parse_body("[[[C^{f64,g}=(1);];];];", "<input>", tight).ok());
}

TEST(HostileInput, VeryLongOperatorChainsAreBounded) {
  std::string s = "a";
  for (int i = 0; i < 100000; ++i) s += "+a";
  auto r = parse_expr(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("expression is too large"), std::string::npos);
  // A flat chain of comparisons is one node and is fine.
  std::string chain = "a";
  for (int i = 0; i < 5000; ++i) chain += "<a";
  EXPECT_TRUE(parse_expr(chain).ok());
}

TEST(HostileInput, HugeLiterals) {
  auto e = parse_expr("1e999999");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "number too large: '1e999999' does not fit in a double");
  auto digits = parse_expr(std::string(400, '9'));
  ASSERT_FALSE(digits.ok());
  EXPECT_EQ(digits.error().message.rfind("number too large", 0), 0u);
  auto tiny = parse_expr("1e-999999");  // underflows to 0: representable, accepted
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ((*tiny)->number_value(), 0.0);
  auto endless = parse_expr(std::string(100000, '1'));
  ASSERT_FALSE(endless.ok());
  EXPECT_EQ(endless.error().category, "parse_error");
  auto fine = parse_expr("17976931348623157" + std::string(292, '0'));
  EXPECT_TRUE(fine.ok());  // DBL_MAX written out in full still fits
}

TEST(HostileInput, ExtentsAreParsedUpTo2To62) {
  auto t = parse_body("L^{1000000000000}_{a=0}L^{1000000000000}_{c=0}[C^{f64,g}=1;];");
  ASSERT_TRUE(t.ok());
  auto over = parse_body("L^{1000000000000000000000000000000}_{a=0}[C^{f64,g}=1;];");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message,
            "loop extent '100000000000000000000000...' exceeds the limit 2^62 "
            "(4611686018427387904)");
}

TEST(HostileInput, OversizedInputIsRejectedUpFront) {
  ParseLimits small;
  small.max_input_bytes = 16;
  auto r = parse_body("B^{16}_{tx=0}[C^{f64,g}=1;];", "<input>", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "input is 28 bytes, over the limit of 16 bytes");
  EXPECT_FALSE(parse_program("B^{16}_{tx=0}[C^{f64,g}=1;];", "<input>", small).ok());
  EXPECT_FALSE(parse_expr("1+1+1+1+1+1+1+1+1", "<input>", small).ok());
}

TEST(HostileInput, UndeclaredTensorIsIllFormedNotACrash) {
  auto p = parse_program(
      "input A f64[4]\noutput C f64[4]\n"
      "B^{4}_{tx=0}[C^{f64,g}_{tx}=Q^{f64,g}_{tx}+A^{f64,g}_{tx};];");
  ASSERT_TRUE(p.ok());
  auto wf = check_well_formed(*p);
  ASSERT_FALSE(wf.ok());
  EXPECT_EQ(wf.error().category, "ill_formed");
  EXPECT_EQ(
      wf.error().message.rfind("tensor 'Q' is read but never written (and is not declared)", 0), 0u)
      << wf.error().message;
}

}  // namespace
}  // namespace steptp::leir
