// The native BPE tokenizer against Hugging Face `tokenizers`: every line of
// tests/data/tokenizer/corpus.jsonl must give the ids in expected_ids.jsonl, which
// tests/tokenizer/make_expected_ids.py computed with the real library (Qwen3's tokenizer.json and
// four tiny tokenizers cut from it that switch on the features Qwen3 leaves off). Also: typed
// errors for bad and unsupported files, round trips, invalid UTF-8, and sharing across threads.
#include "tokenizer/bpe_tokenizer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tokenizer/qwen3_chat.h"
#include "tokenizer/unicode_text.h"

namespace {

using steptp::tokenizer::BpeTokenizer;
using steptp::tokenizer::ChatMessage;
using Json = nlohmann::json;

const std::string kQwenPath = std::string(STEPTP_SHARED_DIR) + "/data/qwen3/tokenizer.json";
const std::string kDataDir = std::string(STEPTP_SOURCE_DIR) + "/tests/data/tokenizer/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Loaded once per binary (11 MB of JSON). Null with the reason in `error` when it cannot load:
// the tests that need it then fail with that reason, they do not skip.
const BpeTokenizer* load_cached(const std::string& path, std::string& error) {
  static std::map<std::string, std::pair<std::optional<BpeTokenizer>, std::string>> cache;
  auto it = cache.find(path);
  if (it == cache.end()) {
    auto r = BpeTokenizer::from_file(path);
    std::pair<std::optional<BpeTokenizer>, std::string> entry;
    if (r.ok())
      entry.first = std::move(r).value();
    else
      entry.second = r.error().render();
    it = cache.emplace(path, std::move(entry)).first;
  }
  error = it->second.second;
  return it->second.first ? &*it->second.first : nullptr;
}

#define LOAD_OR_FAIL(var, path)                                                                  \
  std::string var##_error;                                                                       \
  const BpeTokenizer* var##_ptr = load_cached(path, var##_error);                                \
  ASSERT_NE(var##_ptr, nullptr) << "cannot load the tokenizer " << (path) << ": " << var##_error \
                                << " (Qwen3's tokenizer.json belongs in ../shared/data/qwen3)";  \
  const BpeTokenizer& var = *var##_ptr

std::vector<Json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  std::vector<Json> rows;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(Json::parse(line));
  return rows;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

struct CorpusLine {
  std::string name;
  std::optional<std::string> text;  // absent for chat cases
  std::vector<ChatMessage> messages;
};

const std::map<std::string, CorpusLine>& corpus() {
  static const std::map<std::string, CorpusLine> lines = [] {
    std::map<std::string, CorpusLine> out;
    for (const Json& row : read_jsonl(kDataDir + "corpus.jsonl")) {
      CorpusLine line;
      line.name = row.at("name").get<std::string>();
      if (row.contains("text")) line.text = row["text"].get<std::string>();
      if (row.contains("bytes_hex")) line.text = from_hex(row["bytes_hex"].get<std::string>());
      if (row.contains("messages"))
        for (const Json& m : row["messages"])
          line.messages.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
      out[line.name] = std::move(line);
    }
    return out;
  }();
  return lines;
}

std::string describe(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size() && i < 40; ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + (ids.size() > 40 ? ",...]" : "]") + " (" + std::to_string(ids.size()) + " ids)";
}

std::string nfc(const std::string& s) {
  std::string out;
  return steptp::tokenizer::nfc_if_changed(s, out) ? out : s;
}

TEST(BpeTokenizer, ReadmeCheckHelloWorld) {
  LOAD_OR_FAIL(qwen, kQwenPath);
  EXPECT_EQ(qwen.encode("hello world"), (std::vector<int32_t>{14990, 1879}));
  EXPECT_EQ(qwen.count("hello world"), 2);
  EXPECT_EQ(qwen.vocab_size(), 151643 + 26);
  EXPECT_EQ(qwen.token_to_id("<|im_end|>"), 151645);
  EXPECT_EQ(qwen.token_to_id("Ġworld"), 1879);
  EXPECT_EQ(qwen.token_to_id("no such token"), std::nullopt);
}

TEST(BpeTokenizer, MatchesHuggingFaceOnEveryCorpusLine) {
  const std::vector<Json> expected = read_jsonl(kDataDir + "expected_ids.jsonl");
  ASSERT_GT(expected.size(), 1u) << "missing " << kDataDir << "expected_ids.jsonl";
  ASSERT_EQ(expected[0].at("meta").at("corpus_lines").get<size_t>(), corpus().size())
      << "expected_ids.jsonl is stale: rerun tests/tokenizer/make_expected_ids.py";
  std::map<std::string, int> checked, mismatched;
  for (size_t k = 1; k < expected.size(); ++k) {
    const Json& e = expected[k];
    const std::string tok_name = e.at("tokenizer").get<std::string>();
    const std::string name = e.at("name").get<std::string>();
    const std::string path = tok_name == "qwen3" ? kQwenPath : kDataDir + tok_name + ".json";
    LOAD_OR_FAIL(tok, path);
    auto line = corpus().find(name);
    ASSERT_NE(line, corpus().end()) << "no corpus line named " << name;
    const auto want = e.at("ids").get<std::vector<int32_t>>();
    std::vector<int32_t> got;
    if (line->second.text) {
      got = tok.encode(*line->second.text);
      EXPECT_EQ(tok.count(*line->second.text), static_cast<int64_t>(want.size())) << name;
    } else {
      const std::string rendered = steptp::tokenizer::render_qwen3_chat(line->second.messages);
      EXPECT_EQ(rendered, e.at("rendered").get<std::string>()) << "chat rendering of " << name;
      got = tok.encode(rendered);
      EXPECT_EQ(steptp::tokenizer::chat_token_count(tok, line->second.messages),
                static_cast<int64_t>(want.size()))
          << name;
    }
    ++checked[tok_name];
    if (got != want) {
      ++mismatched[tok_name];
      ADD_FAILURE() << tok_name << " / " << name << ":\n  want " << describe(want) << "\n  got  "
                    << describe(got);
    }
  }
  EXPECT_EQ(checked["qwen3"], static_cast<int>(corpus().size()));
  for (const auto& [tok_name, n] : checked)
    std::printf("[ corpus   ] %-16s %4d lines, %d differ from Hugging Face\n", tok_name.c_str(), n,
                mismatched[tok_name]);
}

TEST(BpeTokenizer, DecodeInvertsEncodeUpToNfc) {
  LOAD_OR_FAIL(qwen, kQwenPath);
  int checked = 0;
  for (const auto& [name, line] : corpus()) {
    if (!line.text || !steptp::tokenizer::is_valid_utf8(*line.text)) continue;
    EXPECT_EQ(qwen.decode(qwen.encode(*line.text)), nfc(*line.text)) << name;
    ++checked;
  }
  EXPECT_GT(checked, 250);
  EXPECT_EQ(qwen.decode(qwen.encode("e\u0301")), "\u00e9");
}

TEST(BpeTokenizer, DecodeSkipsSpecialTokensOnRequestAndUnknownIdsAlways) {
  LOAD_OR_FAIL(qwen, kQwenPath);
  const auto ids = qwen.encode("<|im_start|>user\nhi<think>x</think><|im_end|>");
  EXPECT_EQ(qwen.decode(ids, /*skip_special=*/true), "user\nhi<think>x</think>");
  std::vector<int32_t> with_unknown = {14990, -5, 99999999, 1879};
  EXPECT_EQ(qwen.decode(with_unknown), "hello world");
  // Half of a multi-byte character decodes to U+FFFD, as from_utf8_lossy does.
  const auto emoji = qwen.encode("😀");
  ASSERT_GE(emoji.size(), 1u);
  const std::string partial = qwen.decode(std::vector<int32_t>{qwen.encode("😀😀")[0]});
  EXPECT_TRUE(steptp::tokenizer::is_valid_utf8(partial));
}

TEST(BpeTokenizer, InvalidUtf8IsReplacedPerMaximalSubpartAndNeverCrashes) {
  LOAD_OR_FAIL(qwen, kQwenPath);
  EXPECT_EQ(steptp::tokenizer::repair_utf8("a\xC3(b"), "a\uFFFD(b");
  EXPECT_EQ(steptp::tokenizer::repair_utf8("\xF0\x9F\x98x"), "\uFFFDx");
  EXPECT_EQ(steptp::tokenizer::repair_utf8("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const auto ids = qwen.encode(bytes);
    EXPECT_EQ(qwen.count(bytes), static_cast<int64_t>(ids.size()));
    const std::string back = qwen.decode(ids);
    EXPECT_TRUE(steptp::tokenizer::is_valid_utf8(back));
    EXPECT_EQ(back, nfc(steptp::tokenizer::repair_utf8(bytes)));
  }
}

TEST(BpeTokenizer, OneTokenizerIsSafeToShareAcrossThreads) {
  LOAD_OR_FAIL(qwen, kQwenPath);
  std::vector<std::string> texts;
  for (const auto& [name, line] : corpus())
    if (line.text) texts.push_back(*line.text);
  std::vector<std::vector<int32_t>> want;
  for (const std::string& t : texts) want.push_back(qwen.encode(t));
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const BpeTokenizer copy = qwen;  // copies share the model and the cache
      for (int pass = 0; pass < 3; ++pass)
        for (size_t k = t; k < texts.size() + t; ++k)
          if (copy.encode(texts[k % texts.size()]) != want[k % texts.size()]) ++bad[t];
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad, std::vector<int>(4, 0));
}

TEST(BpeTokenizer, AddedTokenIdsAreAssignedAsHuggingFaceAssignsThem) {
  // tiny_flags.json lists "word" with id 2267, but "word" is vocabulary entry 1158: HF encodes
  // it as 1158 and gives the next new token ("café") 2267. The expected ids depend on this.
  LOAD_OR_FAIL(flags, kDataDir + "tiny_flags.json");
  EXPECT_EQ(flags.token_to_id("word"), 1158);
  EXPECT_EQ(flags.token_to_id("café"), 2267);
  EXPECT_EQ(flags.vocab_size(), 2273);
}

TEST(Qwen3Chat, RendersNothingForNoMessages) {
  LOAD_OR_FAIL(qwen, kQwenPath);
  EXPECT_EQ(steptp::tokenizer::render_qwen3_chat({}), "");
  EXPECT_EQ(steptp::tokenizer::chat_token_count(qwen, {}), 0);
}

TEST(Qwen3Chat, FinalAssistantKeepsItsThinkBlockOnce) {
  const std::string r = steptp::tokenizer::render_qwen3_chat(
      {{"user", "q"}, {"assistant", "<think>\nwhy\n</think>\n\nanswer"}});
  EXPECT_EQ(r,
            "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\nwhy\n</think>\n\n"
            "answer<|im_end|>\n");
}

// ---- bad and unsupported files ------------------------------------------------------------------

// A small valid tokenizer (cut from Qwen3's) to break one field at a time.
Json tiny() {
  static const Json base = Json::parse(read_file(kDataDir + "tiny_no_unk.json"));
  return base;
}

void expect_error(const Json& j, const std::string& category, const std::string& fragment) {
  auto r = BpeTokenizer::from_json_text(j.dump());
  ASSERT_FALSE(r.ok()) << "accepted a file that should fail with " << fragment;
  EXPECT_EQ(r.error().category, category) << r.error().render();
  EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().render();
}

TEST(BpeTokenizerErrors, TheTinyBaseLoads) {
  auto r = BpeTokenizer::from_json_text(tiny().dump());
  ASSERT_TRUE(r.ok()) << r.error().render();
  EXPECT_EQ(r->decode(r->encode("hello world")), "hello world");
}

TEST(BpeTokenizerErrors, MalformedFilesAreBadTokenizer) {
  for (const char* text : {"", "not json", "{", "[1,2]", "{\"model\": 3}"}) {
    auto r = BpeTokenizer::from_json_text(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(r.error().category == "bad_tokenizer" ||
                r.error().category == "unsupported_tokenizer")
        << r.error().render();
  }
  Json j = tiny();
  j["model"]["vocab"] = Json::array({1, 2});
  expect_error(j, "bad_tokenizer", "vocab");
  j = tiny();
  j["model"]["vocab"]["Ġneg"] = -1;
  expect_error(j, "bad_tokenizer", "outside");
  j = tiny();
  j["model"]["vocab"]["Ġhuge"] = int64_t{1} << 40;
  expect_error(j, "bad_tokenizer", "outside");
  j = tiny();
  j["model"]["merges"].push_back(Json::array({"Ġnot_a_token", "x"}));
  expect_error(j, "bad_tokenizer", "is not in the vocabulary");
  j = tiny();
  j["model"]["merges"].push_back("a b c");
  expect_error(j, "bad_tokenizer", "one space");
  j = tiny();
  j["model"]["merges"].push_back(Json::array({"a"}));
  expect_error(j, "bad_tokenizer", "neither");
  j = tiny();
  j["model"]["merges"] = "nope";
  expect_error(j, "bad_tokenizer", "merges");
  j = tiny();
  j["added_tokens"][0]["id"] = "five";
  expect_error(j, "bad_tokenizer", "ill-typed");
  j = tiny();
  j["added_tokens"][0].erase("content");
  expect_error(j, "bad_tokenizer", "content");
  j = tiny();
  j["model"]["fuse_unk"] = "yes";
  expect_error(j, "bad_tokenizer", "ill-typed");
  j = tiny();
  j["model"]["unk_token"] = "<nowhere>";
  expect_error(j, "bad_tokenizer", "unk_token");
  j = tiny();
  j.erase("model");
  expect_error(j, "bad_tokenizer", "model");
}

TEST(BpeTokenizerErrors, MissingFileIsIoError) {
  auto r = BpeTokenizer::from_file("/nonexistent/tokenizer.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().category, "io_error");
}

TEST(BpeTokenizerErrors, UnsupportedFeaturesAreNamed) {
  struct Case {
    const char* what;
    std::function<void(Json&)> edit;
  };
  const std::vector<Case> cases = {
      {"model 'WordPiece'", [](Json& j) { j["model"]["type"] = "WordPiece"; }},
      {"normalizer 'Lowercase'",
       [](Json& j) {
         j["normalizer"] = {{"type", "Lowercase"}};
       }},
      {"normalizer 'NFKC'",
       [](Json& j) {
         j["normalizer"] = {{"type", "Sequence"},
                            {"normalizers", Json::array({{{"type", "NFC"}}, {{"type", "NFKC"}}})}};
       }},
      {"pre_tokenizer 'Whitespace'",
       [](Json& j) {
         j["pre_tokenizer"]["pretokenizers"].insert(j["pre_tokenizer"]["pretokenizers"].begin(),
                                                    Json::object({{"type", "Whitespace"}}));
       }},
      {"Split behavior 'Removed'",
       [](Json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed"; }},
      {"invert", [](Json& j) { j["pre_tokenizer"]["pretokenizers"][0]["invert"] = true; }},
      {"use_regex true",
       [](Json& j) { j["pre_tokenizer"]["pretokenizers"][1]["use_regex"] = true; }},
      {"add_prefix_space true",
       [](Json& j) { j["pre_tokenizer"]["pretokenizers"][1].erase("add_prefix_space"); }},
      {"final ByteLevel",
       [](Json& j) { j["pre_tokenizer"] = j["pre_tokenizer"]["pretokenizers"][0]; }},
      {"no pre_tokenizer", [](Json& j) { j["pre_tokenizer"] = nullptr; }},
      {"post_processor 'TemplateProcessing'",
       [](Json& j) {
         j["post_processor"] = {{"type", "TemplateProcessing"}};
       }},
      {"truncation",
       [](Json& j) {
         j["truncation"] = {{"max_length", 8}};
       }},
      {"padding",
       [](Json& j) {
         j["padding"] = {{"strategy", "BatchLongest"}};
       }},
      {"decoder 'null'", [](Json& j) { j["decoder"] = nullptr; }},
      {"decoder 'WordPiece'",
       [](Json& j) {
         j["decoder"] = {{"type", "WordPiece"}};
       }},
      {"dropout", [](Json& j) { j["model"]["dropout"] = 0.1; }},
      {"byte_fallback", [](Json& j) { j["model"]["byte_fallback"] = true; }},
      {"continuing_subword_prefix",
       [](Json& j) { j["model"]["continuing_subword_prefix"] = "##"; }},
      {"escape \\b",
       [](Json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\bx"; }},
      {"anchor '^'",
       [](Json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "^a"; }},
      {"does not compile",
       [](Json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a"; }},
      {"listed twice",
       [](Json& j) {
         Json dup = j["added_tokens"][0];
         dup["id"] = dup["id"].get<int>() + 1;
         j["added_tokens"].push_back(dup);
       }},
  };
  for (const Case& c : cases) {
    Json j = tiny();
    c.edit(j);
    SCOPED_TRACE(c.what);
    expect_error(j, "unsupported_tokenizer", c.what);
  }
}

TEST(BpeTokenizer, StringAndArrayMergesGiveTheSameIds) {
  Json arrays = tiny();
  Json strings = arrays;
  for (Json& m : strings["model"]["merges"])
    m = m[0].get<std::string>() + " " + m[1].get<std::string>();
  auto a = BpeTokenizer::from_json_text(arrays.dump());
  auto s = BpeTokenizer::from_json_text(strings.dump());
  ASSERT_TRUE(a.ok() && s.ok());
  for (const auto& [name, line] : corpus()) {
    if (line.text && line.text->size() < 2000) {
      EXPECT_EQ(a->encode(*line.text), s->encode(*line.text)) << name;
    }
  }
}

TEST(BpeTokenizer, LiteralStringSplitPatternsAreEscaped) {
  Json j = tiny();
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"String", "."}};
  auto r = BpeTokenizer::from_json_text(j.dump());
  ASSERT_TRUE(r.ok()) << r.error().render();
  // '.' is a literal: "a.b" splits into a . b, and the letters are not split apart.
  EXPECT_EQ(r->encode("ab.cd").size(), r->encode("ab").size() + 1 + r->encode("cd").size());
}

}  // namespace
