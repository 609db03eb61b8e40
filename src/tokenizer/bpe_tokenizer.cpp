// tokenizer/bpe_tokenizer.cpp — loading a tokenizer.json and the encode pipeline of Hugging Face
// `tokenizers`, step for step:
//
//   text ─ repair UTF-8 ─ split on added tokens (raw) ─ NFC ─ split on added tokens (normalized)
//        ─ Split regex pieces (Isolated) ─ ByteLevel ─ BPE per piece (cached) ─ ids
//
// The model works on raw bytes: byte-level vocabulary entries are mapped back to the bytes their
// characters stand for at load time, so a piece is never re-encoded into GPT-2 characters.
#include "tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>

#include "tokenizer/added_tokens.h"
#include "tokenizer/split_regex.h"
#include "tokenizer/unicode_text.h"

namespace steptp::tokenizer {
namespace {

using Json = nlohmann::json;

Error bad(std::string message) { return Error::make("bad_tokenizer", std::move(message)); }
Error unsupported(std::string message) {
  return Error::make("unsupported_tokenizer", std::move(message));
}

// Ids index dense tables; a file claiming larger ids is refused rather than allocated for.
constexpr int64_t kMaxId = (int64_t{1} << 24) - 1;

// ---- BPE merges ---------------------------------------------------------------------------------

// (left id, right id) → (rank, merged id), open addressing: the merge loop's only lookup.
class MergeTable {
 public:
  struct Entry {
    uint64_t key = kEmpty;
    int32_t rank = 0;
    int32_t merged = 0;
  };

  void reserve(size_t n) {
    size_t capacity = 16;
    while (capacity < n * 2) capacity <<= 1;
    slots_.assign(capacity, Entry{});
    mask_ = capacity - 1;
  }

  // A later merge of the same pair replaces the earlier one, as in HF's HashMap collect.
  void insert(int32_t left, int32_t right, int32_t rank, int32_t merged) {
    const uint64_t key = pack(left, right);
    for (size_t s = slot(key);; s = (s + 1) & mask_) {
      if (slots_[s].key == kEmpty || slots_[s].key == key) {
        slots_[s] = Entry{key, rank, merged};
        return;
      }
    }
  }

  const Entry* find(int32_t left, int32_t right) const {
    const uint64_t key = pack(left, right);
    for (size_t s = slot(key);; s = (s + 1) & mask_) {
      if (slots_[s].key == key) return &slots_[s];
      if (slots_[s].key == kEmpty) return nullptr;
    }
  }

 private:
  static constexpr uint64_t kEmpty = std::numeric_limits<uint64_t>::max();  // ids are >= 0
  static uint64_t pack(int32_t l, int32_t r) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(r);
  }
  size_t slot(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull >> 17) & mask_; }

  std::vector<Entry> slots_{16};
  size_t mask_ = 15;
};

// ---- the word cache -----------------------------------------------------------------------------

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Word → ids, bounded and shared by every thread that encodes with one tokenizer. A full shard
// is emptied: the words a corpus repeats come back at once.
class WordCache {
 public:
  static constexpr size_t kMaxWordBytes = 256;

  template <typename Sink>
  bool lookup(std::string_view word, Sink& sink) const {
    const Shard& shard = shard_of(word);
    std::shared_lock lock(shard.mutex);
    auto it = shard.map.find(word);
    if (it == shard.map.end()) return false;
    sink.push(it->second);
    return true;
  }

  void insert(std::string_view word, std::span<const int32_t> ids) {
    Shard& shard = shard_of(word);
    std::unique_lock lock(shard.mutex);
    if (shard.map.size() >= kEntriesPerShard) shard.map.clear();
    shard.map.try_emplace(std::string(word), ids.begin(), ids.end());
  }

 private:
  static constexpr size_t kShards = 16;
  static constexpr size_t kEntriesPerShard = 16384;
  struct Shard {
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> map;
  };
  Shard& shard_of(std::string_view word) const {
    return shards_[StringHash{}(word)*0x9E3779B97F4A7C15ull >> 60];
  }
  mutable std::array<Shard, kShards> shards_;
};

// Where encode puts ids: into a vector, or only counted.
struct IdSink {
  std::vector<int32_t>* ids = nullptr;
  int64_t count = 0;
  void push(int32_t id) {
    ++count;
    if (ids) ids->push_back(id);
  }
  void push(std::span<const int32_t> more) {
    count += static_cast<int64_t>(more.size());
    if (ids) ids->insert(ids->end(), more.begin(), more.end());
  }
};

}  // namespace

// ---- the tokenizer ------------------------------------------------------------------------------

struct BpeTokenizer::Impl {
  // Pipeline configuration.
  bool nfc = false;
  std::vector<Regex> splits;  // applied in order, each splitting the pieces of the one before
  std::vector<AddedToken> added;
  AddedTokenMatcher raw_matcher;         // tokens with normalized=false, on the input text
  AddedTokenMatcher normalized_matcher;  // tokens with normalized=true, on NFC text

  // The model.
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> vocab;        // as spelled
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> whole_words;  // bytes
  std::array<int32_t, 256> byte_id{};  // the symbol of each byte, -1 when the vocab lacks it
  MergeTable merges;
  int32_t unk_id = -1;
  bool fuse_unk = false;
  bool ignore_merges = false;

  // Decoding: the bytes of every id, and which ids are special added tokens.
  std::vector<std::string> id_bytes;
  std::vector<uint8_t> id_known;
  std::vector<uint8_t> id_special;

  mutable WordCache cache;

  void encode(std::string_view text, IdSink& sink) const {
    std::string repaired;
    if (!is_valid_utf8(text)) {
      repaired = repair_utf8(text);
      text = repaired;
    }
    split_on_added(raw_matcher, text, sink, [&](std::string_view piece) {
      std::string normalized;
      if (nfc && nfc_if_changed(piece, normalized)) piece = normalized;
      split_on_added(normalized_matcher, piece, sink,
                     [&](std::string_view rest) { pre_tokenize(rest, 0, sink); });
    });
  }

  // HF's AddedVocabulary::find_matches: tokens become ids, the text between them goes on.
  template <typename OnText>
  void split_on_added(const AddedTokenMatcher& matcher, std::string_view sentence, IdSink& sink,
                      OnText&& on_text) const {
    if (sentence.empty()) return;
    if (matcher.empty()) {
      on_text(sentence);
      return;
    }
    size_t emitted = 0;  // end of the text already handed on (may step back, as HF's does)
    size_t search = 0, match = 0, length = 0;
    int k = 0;
    while (matcher.find(sentence, search, match, length, k)) {
      const AddedToken& token = added[k];
      size_t start = match, stop = match + length;
      search = stop;
      if (token.single_word) {
        const bool free_before = start == 0 || !is_word_char(code_point_before(sentence, start));
        size_t at = stop;
        const bool free_after =
            stop == sentence.size() || !is_word_char(next_code_point(sentence, at));
        if (!free_before || !free_after) continue;
      }
      if (token.lstrip) {
        size_t s = start;
        while (s > 0) {
          const char32_t cp = code_point_before(sentence, s);
          if (!is_white_space(cp)) break;
          size_t probe = s - 1;
          while (probe > 0 && (static_cast<unsigned char>(sentence[probe]) & 0xC0) == 0x80) --probe;
          s = probe;
        }
        start = std::max(s, emitted);
      }
      if (token.rstrip) {
        size_t at = stop;
        while (at < sentence.size()) {
          size_t next = at;
          if (!is_white_space(next_code_point(sentence, next))) break;
          at = next;
        }
        stop = at;
      }
      if (emitted < start) on_text(sentence.substr(emitted, start - emitted));
      sink.push(token.id);
      emitted = stop;
    }
    if (emitted != sentence.size()) on_text(sentence.substr(emitted));
  }

  void pre_tokenize(std::string_view piece, size_t level, IdSink& sink) const {
    if (piece.empty()) return;
    if (level == splits.size()) {
      model_word(piece, sink);
      return;
    }
    split_isolated(splits[level].get(), piece,
                   [&](std::string_view sub) { pre_tokenize(sub, level + 1, sink); });
  }

  void model_word(std::string_view word, IdSink& sink) const {
    if (ignore_merges) {
      if (auto it = whole_words.find(word); it != whole_words.end()) {
        sink.push(it->second);
        return;
      }
    }
    if (word.size() == 1 && byte_id[static_cast<unsigned char>(word[0])] >= 0) {
      sink.push(byte_id[static_cast<unsigned char>(word[0])]);
      return;
    }
    const bool cacheable = word.size() <= WordCache::kMaxWordBytes;
    if (cacheable && cache.lookup(word, sink)) return;
    thread_local std::vector<int32_t> ids;
    ids.clear();
    merge_word(word, ids);
    sink.push(ids);
    if (cacheable) cache.insert(word, ids);
  }

  // HF's BPE::merge_word + Word::merge_all: one symbol per byte (unknown bytes become unk or are
  // dropped), then the best-ranked adjacent pair is merged until none is left; among equal ranks
  // the leftmost goes first. O(n log n) with a heap and lazy invalidation.
  void merge_word(std::string_view word, std::vector<int32_t>& out) const {
    struct Symbol {
      int32_t id;
      int32_t prev;
      int32_t next;
      bool alive;
    };
    struct Candidate {
      int32_t rank;
      int32_t pos;
      int32_t merged;
    };
    thread_local std::vector<Symbol> symbols;
    thread_local std::vector<Candidate> heap;
    symbols.clear();
    heap.clear();

    auto push_symbol = [&](int32_t id) {
      const auto n = static_cast<int32_t>(symbols.size());
      symbols.push_back({id, n - 1, -1, true});
      if (n > 0) symbols[n - 1].next = n;
    };
    bool pending_unk = false;
    for (char c : word) {
      const int32_t id = byte_id[static_cast<unsigned char>(c)];
      if (id >= 0) {
        if (pending_unk) push_symbol(unk_id);
        pending_unk = false;
        push_symbol(id);
      } else if (unk_id >= 0) {
        if (pending_unk && !fuse_unk) push_symbol(unk_id);
        pending_unk = true;
      }
    }
    if (pending_unk) push_symbol(unk_id);

    // Lower rank first, then lower position: the top of a max-heap under this order.
    auto worse = [](const Candidate& a, const Candidate& b) {
      return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    };
    auto offer = [&](int32_t pos) {
      const Symbol& s = symbols[pos];
      if (s.next < 0) return;
      if (const MergeTable::Entry* m = merges.find(s.id, symbols[s.next].id)) {
        heap.push_back({m->rank, pos, m->merged});
        std::push_heap(heap.begin(), heap.end(), worse);
      }
    };
    for (int32_t i = 0; i + 1 < static_cast<int32_t>(symbols.size()); ++i) offer(i);

    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), worse);
      const Candidate top = heap.back();
      heap.pop_back();
      Symbol& left = symbols[top.pos];
      if (!left.alive || left.next < 0) continue;
      const int32_t right_pos = left.next;
      const Symbol right = symbols[right_pos];
      // A stale candidate: the pair at this position has changed since it was offered.
      const MergeTable::Entry* m = merges.find(left.id, right.id);
      if (m == nullptr || m->merged != top.merged) continue;
      left.id = top.merged;
      left.next = right.next;
      symbols[right_pos].alive = false;
      if (right.next >= 0) symbols[right.next].prev = top.pos;
      if (left.prev >= 0) offer(left.prev);
      offer(top.pos);
    }
    for (const Symbol& s : symbols)
      if (s.alive) out.push_back(s.id);
  }
};

namespace {

// The bytes a byte-level token string stands for; a string with a character outside GPT-2's
// table decodes to its own UTF-8, as HF's ByteLevel decoder does per token.
std::string token_bytes(std::string_view token, bool* pure_byte_level = nullptr) {
  std::string out;
  if (!is_valid_utf8(token)) {
    if (pure_byte_level) *pure_byte_level = false;
    return std::string(token);
  }
  size_t i = 0;
  while (i < token.size()) {
    const int b = char_to_byte(next_code_point(token, i));
    if (b < 0) {
      if (pure_byte_level) *pure_byte_level = false;
      return std::string(token);
    }
    out += static_cast<char>(b);
  }
  if (pure_byte_level) *pure_byte_level = true;
  return out;
}

std::string type_of(const Json& j) {
  if (j.is_object() && j.contains("type") && j["type"].is_string())
    return j["type"].get<std::string>();
  return j.is_object() ? "<no type>" : std::string(j.type_name());
}

bool flag(const Json& obj, const char* key, bool fallback) {
  if (!obj.contains(key) || obj[key].is_null()) return fallback;
  return obj[key].get<bool>();  // ill-typed → json::type_error → bad_tokenizer
}

bool null_or_absent(const Json& obj, const char* key) {
  return !obj.contains(key) || obj[key].is_null();
}

Result<void> load_normalizer(const Json& root, BpeTokenizer::Impl& impl) {
  if (null_or_absent(root, "normalizer")) return ok();
  const Json& n = root["normalizer"];
  std::vector<const Json*> parts;
  if (type_of(n) == "Sequence") {
    for (const Json& m : n.at("normalizers")) parts.push_back(&m);
  } else {
    parts.push_back(&n);
  }
  for (const Json* p : parts) {
    if (type_of(*p) != "NFC")
      return unsupported("normalizer '" + type_of(*p) + "' (only NFC is implemented)");
    impl.nfc = true;
  }
  return ok();
}

Result<void> load_pre_tokenizer(const Json& root, BpeTokenizer::Impl& impl) {
  if (null_or_absent(root, "pre_tokenizer"))
    return unsupported("no pre_tokenizer (a ByteLevel pre-tokenizer is required)");
  const Json& pt = root["pre_tokenizer"];
  std::vector<const Json*> parts;
  if (type_of(pt) == "Sequence") {
    for (const Json& m : pt.at("pretokenizers")) parts.push_back(&m);
  } else {
    parts.push_back(&pt);
  }
  if (parts.empty() || type_of(*parts.back()) != "ByteLevel")
    return unsupported("pre_tokenizer without a final ByteLevel step");
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    const Json& p = *parts[k];
    const std::string type = type_of(p);
    if (type != "Split")
      return unsupported("pre_tokenizer '" + type + "' (only Split and ByteLevel are implemented)");
    const std::string behavior = p.at("behavior").get<std::string>();
    if (behavior != "Isolated")
      return unsupported("Split behavior '" + behavior + "' (only Isolated is implemented)");
    if (flag(p, "invert", false)) return unsupported("Split with invert true");
    const Json& pattern = p.at("pattern");
    std::string pcre;
    if (pattern.contains("Regex")) {
      Result<std::string> translated = onig_to_pcre2(pattern["Regex"].get<std::string>());
      STEPTP_TRY(translated);
      pcre = std::move(translated).value();
    } else if (pattern.contains("String")) {
      pcre = escape_literal(pattern["String"].get<std::string>());
    } else {
      return bad("Split pattern is neither {\"Regex\": ...} nor {\"String\": ...}");
    }
    Result<Regex> re = compile_regex(pcre);
    STEPTP_TRY(re);
    impl.splits.push_back(std::move(re).value());
  }
  const Json& bl = *parts.back();
  // HF's defaults for a ByteLevel step that omits them are true.
  if (flag(bl, "add_prefix_space", true))
    return unsupported("ByteLevel pre_tokenizer with add_prefix_space true");
  if (flag(bl, "use_regex", true))
    return unsupported("ByteLevel pre_tokenizer with use_regex true (the GPT-2 split)");
  return ok();
}

Result<void> load_processors(const Json& root) {
  if (!null_or_absent(root, "truncation")) return unsupported("truncation (it would cut the ids)");
  if (!null_or_absent(root, "padding")) return unsupported("padding (it would add ids)");
  if (!null_or_absent(root, "post_processor")) {
    const Json& pp = root["post_processor"];
    std::vector<const Json*> parts;
    if (type_of(pp) == "Sequence") {
      for (const Json& m : pp.at("processors")) parts.push_back(&m);
    } else {
      parts.push_back(&pp);
    }
    for (const Json* p : parts)  // ByteLevel post-processing only moves offsets
      if (type_of(*p) != "ByteLevel")
        return unsupported("post_processor '" + type_of(*p) + "' (it would add ids)");
  }
  if (null_or_absent(root, "decoder") || type_of(root["decoder"]) != "ByteLevel")
    return unsupported(
        "decoder '" +
        (null_or_absent(root, "decoder") ? std::string("null") : type_of(root["decoder"])) +
        "' (only ByteLevel is implemented)");
  return ok();
}

Result<void> load_model(const Json& root, BpeTokenizer::Impl& impl) {
  if (!root.contains("model") || !root["model"].is_object()) return bad("no model object");
  const Json& m = root["model"];
  if (type_of(m) != "BPE") return unsupported("model '" + type_of(m) + "' (only BPE)");
  if (!null_or_absent(m, "dropout") && m["dropout"].get<double>() != 0.0)
    return unsupported("BPE dropout (ids would be random)");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (!null_or_absent(m, key) && !m[key].get<std::string>().empty())
      return unsupported(std::string("BPE ") + key);
  if (flag(m, "byte_fallback", false)) return unsupported("BPE byte_fallback");
  impl.fuse_unk = flag(m, "fuse_unk", false);
  impl.ignore_merges = flag(m, "ignore_merges", false);

  if (!m.contains("vocab") || !m["vocab"].is_object()) return bad("model.vocab is not an object");
  int64_t max_id = -1;
  impl.vocab.reserve(m["vocab"].size());
  for (const auto& [token, id_json] : m["vocab"].items()) {
    if (!id_json.is_number_integer()) return bad("vocab entry '" + token + "' has no integer id");
    const int64_t id = id_json.get<int64_t>();
    if (id < 0 || id > kMaxId)
      return bad("vocab entry '" + token + "' has id " + std::to_string(id) + " outside [0, " +
                 std::to_string(kMaxId) + "]");
    impl.vocab[token] = static_cast<int32_t>(id);
    max_id = std::max(max_id, id);
  }
  impl.id_bytes.assign(static_cast<size_t>(max_id + 1), {});
  impl.id_known.assign(static_cast<size_t>(max_id + 1), 0);
  impl.byte_id.fill(-1);
  const auto& chars = byte_to_char();
  for (int b = 0; b < 256; ++b) {
    std::string s;
    append_utf8(s, chars[b]);
    if (auto it = impl.vocab.find(s); it != impl.vocab.end()) impl.byte_id[b] = it->second;
  }
  for (const auto& [token, id] : impl.vocab) {
    bool pure = false;
    std::string bytes = token_bytes(token, &pure);
    if (impl.ignore_merges && pure) impl.whole_words[bytes] = id;
    impl.id_bytes[id] = std::move(bytes);
    impl.id_known[id] = 1;
  }

  if (!null_or_absent(m, "unk_token")) {
    const std::string unk = m["unk_token"].get<std::string>();
    auto it = impl.vocab.find(unk);
    if (it == impl.vocab.end()) return bad("unk_token '" + unk + "' is not in the vocabulary");
    impl.unk_id = it->second;
  }

  if (!m.contains("merges") || !m["merges"].is_array()) return bad("model.merges is not a list");
  const Json& merges = m["merges"];
  if (merges.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return bad("too many merges");
  impl.merges.reserve(merges.size());
  std::string left, right;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const Json& e = merges[rank];
    const std::string where = "merge " + std::to_string(rank);
    if (e.is_string()) {  // "a b"
      const std::string& s = e.get_ref<const std::string&>();
      const size_t space = s.find(' ');
      if (space == s.npos || s.find(' ', space + 1) != s.npos)
        return bad(where + " '" + s + "' is not two tokens separated by one space");
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
      left = e[0].get<std::string>();
      right = e[1].get<std::string>();
    } else {
      return bad(where + " is neither \"a b\" nor [\"a\", \"b\"]");
    }
    auto l = impl.vocab.find(left), r = impl.vocab.find(right);
    auto merged = impl.vocab.find(left + right);
    if (l == impl.vocab.end()) return bad(where + ": '" + left + "' is not in the vocabulary");
    if (r == impl.vocab.end()) return bad(where + ": '" + right + "' is not in the vocabulary");
    if (merged == impl.vocab.end())
      return bad(where + ": '" + left + right + "' is not in the vocabulary");
    impl.merges.insert(l->second, r->second, static_cast<int32_t>(rank), merged->second);
  }
  return ok();
}

Result<void> load_added_tokens(const Json& root, BpeTokenizer::Impl& impl) {
  if (null_or_absent(root, "added_tokens")) return ok();
  const Json& list = root["added_tokens"];
  if (!list.is_array()) return bad("added_tokens is not a list");
  // HF does not take the ids in the file: it assigns its own, the vocabulary id of a token
  // already in it, else one past the largest added id (at least the vocabulary size), and only
  // warns when the file says otherwise. The ids it encodes with are the ones that count.
  const auto vocab_size = static_cast<int64_t>(impl.vocab.size());
  int64_t max_added = -1;
  std::unordered_map<std::string, int> seen;
  for (const Json& t : list) {
    if (!t.is_object() || !t.contains("content") || !t.contains("id"))
      return bad("an added token without content or id");
    AddedToken token;
    token.content = t["content"].get<std::string>();
    (void)t["id"].get<int64_t>();  // must be an integer, though HF recomputes it
    token.special = flag(t, "special", false);
    token.lstrip = flag(t, "lstrip", false);
    token.rstrip = flag(t, "rstrip", false);
    token.single_word = flag(t, "single_word", false);
    token.normalized = flag(t, "normalized", !token.special);
    if (token.content.empty()) continue;  // HF skips these
    if (!is_valid_utf8(token.content)) return bad("an added token is not UTF-8");
    if (seen.contains(token.content))
      return unsupported("added token '" + token.content + "' listed twice");
    int64_t id;
    if (auto it = impl.vocab.find(token.content); it != impl.vocab.end()) {
      id = it->second;
    } else if (max_added < 0) {
      id = vocab_size;
    } else {
      id = (max_added >= vocab_size || vocab_size == 0) ? max_added + 1 : vocab_size;
    }
    if (id > kMaxId) return bad("added token id " + std::to_string(id) + " is too large");
    max_added = std::max(max_added, id);
    token.id = static_cast<int32_t>(id);
    seen[token.content] = static_cast<int>(impl.added.size());
    impl.added.push_back(std::move(token));
  }

  size_t table = impl.id_bytes.size();
  for (const AddedToken& t : impl.added) table = std::max(table, static_cast<size_t>(t.id) + 1);
  impl.id_bytes.resize(table);
  impl.id_known.resize(table, 0);
  impl.id_special.assign(table, 0);
  for (int k = 0; k < static_cast<int>(impl.added.size()); ++k) {
    const AddedToken& t = impl.added[k];
    impl.id_bytes[t.id] = token_bytes(t.content);
    impl.id_known[t.id] = 1;
    impl.id_special[t.id] = t.special ? 1 : 0;
    if (!t.normalized) {
      impl.raw_matcher.add(t.content, k);
    } else {
      std::string pattern = t.content;
      std::string normalized;
      if (impl.nfc && nfc_if_changed(pattern, normalized)) pattern = std::move(normalized);
      impl.normalized_matcher.add(std::move(pattern), k);
    }
  }
  impl.raw_matcher.build();
  impl.normalized_matcher.build();
  return ok();
}

}  // namespace

BpeTokenizer::BpeTokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<BpeTokenizer> BpeTokenizer::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make("io_error", "cannot read tokenizer file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error::make("io_error", "cannot read tokenizer file '" + path + "'");
  Result<BpeTokenizer> r = from_json_text(text.str());
  if (!r.ok()) {
    Error e = std::move(r).error();
    e.message = path + ": " + e.message;
    return e;
  }
  return r;
}

Result<BpeTokenizer> BpeTokenizer::from_json_text(std::string_view json_text) {
  Json root = Json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return bad("not valid JSON");
  if (!root.is_object()) return bad("the top level is not an object");
  auto impl = std::make_shared<Impl>();
  try {
    // Order matters: added-token patterns are normalized with the normalizer, and their ids
    // follow the vocabulary.
    STEPTP_TRY(load_processors(root));
    STEPTP_TRY(load_normalizer(root, *impl));
    STEPTP_TRY(load_pre_tokenizer(root, *impl));
    STEPTP_TRY(load_model(root, *impl));
    STEPTP_TRY(load_added_tokens(root, *impl));
  } catch (const Json::exception& e) {
    // A field of the wrong type or a missing required member (nlohmann reports both by throwing).
    return bad(std::string("ill-typed or missing field: ") + e.what());
  }
  if (impl->id_special.size() < impl->id_bytes.size())
    impl->id_special.resize(impl->id_bytes.size(), 0);
  return BpeTokenizer(std::move(impl));
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  IdSink sink{&ids};
  impl_->encode(text, sink);
  return ids;
}

int64_t BpeTokenizer::count(std::string_view text) const {
  IdSink sink;
  impl_->encode(text, sink);
  return sink.count;
}

std::string BpeTokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  std::string bytes;
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= impl_->id_bytes.size() || !impl_->id_known[id])
      continue;
    if (skip_special && impl_->id_special[id]) continue;
    bytes += impl_->id_bytes[id];
  }
  return is_valid_utf8(bytes) ? bytes : repair_utf8(bytes);
}

std::optional<int32_t> BpeTokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& t : impl_->added)
    if (t.content == token) return t.id;
  if (auto it = impl_->vocab.find(token); it != impl_->vocab.end()) return it->second;
  return std::nullopt;
}

int64_t BpeTokenizer::vocab_size() const {
  int64_t n = static_cast<int64_t>(impl_->vocab.size());
  for (const AddedToken& t : impl_->added)
    if (!impl_->vocab.contains(t.content)) ++n;
  return n;
}

}  // namespace steptp::tokenizer
