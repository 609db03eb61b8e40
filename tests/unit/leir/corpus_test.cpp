// The reference corpus (tests/data/leir_corpus_level1.jsonl, copied from the reference emitter):
// every row parses, prints back to the identical text, survives print_program/parse_program,
// and with declarations built from its known names/shapes/dtypes is well-formed.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "leir/parser.h"
#include "leir/printer.h"
#include "leir/wellformed.h"

namespace steptp::leir {
namespace {

struct CorpusRow {
  std::string model;
  std::string leir;
  std::vector<TensorDecl> decls;
};

DType dtype_from_torch(const std::string& torch_name) {
  static const std::pair<const char*, DType> kTable[] = {
      {"torch.float64", DType::kF64}, {"torch.float32", DType::kF32},
      {"torch.float16", DType::kF16}, {"torch.bfloat16", DType::kBF16},
      {"torch.int64", DType::kI64},   {"torch.int32", DType::kI32},
      {"torch.int16", DType::kI16},   {"torch.int8", DType::kI8},
      {"torch.uint8", DType::kU8},    {"torch.bool", DType::kBool},
  };
  for (const auto& [name, t] : kTable)
    if (torch_name == name) return t;
  ADD_FAILURE() << "unmapped torch dtype " << torch_name;
  return DType::kF64;
}

std::vector<CorpusRow> load_corpus() {
  std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/tests/data/leir_corpus_level1.jsonl");
  EXPECT_TRUE(in.good()) << "missing tests/data/leir_corpus_level1.jsonl";
  std::vector<CorpusRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    CorpusRow row;
    row.model = j.at("model").get<std::string>();
    row.leir = j.at("leir").get<std::string>();
    auto names = j.at("known_names").get<std::vector<std::string>>();
    auto shapes = j.at("known_shapes").get<std::vector<std::vector<int64_t>>>();
    auto dtypes = j.at("known_dtype").get<std::vector<std::string>>();
    auto inputs = j.at("input_known_names").get<std::vector<std::string>>();
    for (size_t i = 0; i < names.size(); ++i) {
      bool is_input = std::find(inputs.begin(), inputs.end(), names[i]) != inputs.end();
      row.decls.push_back(TensorDecl{names[i], is_input ? TensorRole::kInput : TensorRole::kOutput,
                                     dtype_from_torch(dtypes[i]), shapes[i]});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<CorpusRow>& corpus() {
  static const std::vector<CorpusRow> rows = load_corpus();
  return rows;
}

TEST(Corpus, HasAllLevel1Rows) { EXPECT_EQ(corpus().size(), 83u); }

TEST(Corpus, EveryRowParsesAndPrintsBackIdentically) {
  for (const CorpusRow& row : corpus()) {
    auto body = parse_body(row.leir, row.model);
    ASSERT_TRUE(body.ok()) << row.model << "\n" << body.error().render();
    EXPECT_EQ(print_body(*body), row.leir) << row.model;
  }
}

TEST(Corpus, EveryRowIsWellFormedWithItsDeclarations) {
  for (const CorpusRow& row : corpus()) {
    auto body = parse_body(row.leir, row.model);
    ASSERT_TRUE(body.ok()) << row.model;
    Program p{row.decls, *body};
    auto wf = check_well_formed(p);
    EXPECT_TRUE(wf.ok()) << row.model << ": " << (wf.ok() ? "" : wf.error().render());
    // The emitter keeps every tx extent within CUDA's limits at the default shapes.
    auto cuda = check_well_formed(p, WellFormedOptions{true, true});
    EXPECT_TRUE(cuda.ok()) << row.model << ": " << (cuda.ok() ? "" : cuda.error().render());
  }
}

TEST(Corpus, ProgramFilesRoundTrip) {
  for (const CorpusRow& row : corpus()) {
    auto body = parse_body(row.leir);
    ASSERT_TRUE(body.ok());
    Program p{row.decls, *body};
    std::string text = print_program(p);
    auto back = parse_program(text, row.model + ".leir");
    ASSERT_TRUE(back.ok()) << back.error().render();
    EXPECT_EQ(*back, p) << row.model;
    EXPECT_EQ(print_program(*back), text);
  }
}

TEST(Corpus, SpacedOutRowsParseToTheSameProgram) {
  // Whitespace between every token (what an LLM might write) changes nothing.
  for (const CorpusRow& row : corpus()) {
    std::string spaced;
    for (size_t i = 0; i < row.leir.size(); ++i) {
      char c = row.leir[i];
      spaced += c;
      bool word_char = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
      char next = i + 1 < row.leir.size() ? row.leir[i + 1] : ' ';
      bool next_word = std::isalnum(static_cast<unsigned char>(next)) || next == '_' || next == '.';
      bool two_char_op = (c == '*' && next == '*') || (c == '/' && next == '/') ||
                         ((c == '<' || c == '>' || c == '=' || c == '!') && next == '=');
      // Only between tokens: never inside a word, number or two-character operator, and not
      // after a number's exponent 'e' (1e-05).
      auto digit_at = [&](size_t k) {
        return k < row.leir.size() && std::isdigit(static_cast<unsigned char>(row.leir[k]));
      };
      bool in_exponent =
          (c == 'e' && i > 0 && digit_at(i - 1) && (next == '-' || next == '+')) ||
          ((c == '-' || c == '+') && i > 1 && row.leir[i - 1] == 'e' && digit_at(i - 2));
      if (!(word_char && next_word) && !two_char_op && !in_exponent)
        spaced += (c == ';') ? "\n" : " ";
    }
    auto a = parse_body(row.leir);
    auto b = parse_body(spaced);
    ASSERT_TRUE(b.ok()) << row.model << "\n" << b.error().render();
    EXPECT_EQ(*a, *b) << row.model;
  }
}

}  // namespace
}  // namespace steptp::leir
