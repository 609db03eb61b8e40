// tokenizer/bpe_tokenizer.cpp — loading a tokenizer.json and the encode pipeline of Hugging Face
// `tokenizers`, step for step:
//
//   text ─ repair UTF-8 ─ split on added tokens (raw) ─ NFC ─ split on added tokens (normalized)
//        ─ Split regex pieces (Isolated) ─ ByteLevel ─ BPE per piece (cached) ─ ids
//
// The model works on raw bytes: byte-level vocabulary entries are mapped back to the bytes their
// characters stand for at load time, so a piece is never re-encoded into GPT-2 characters.
#include "tokenizer/bpe_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

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

// ---- added tokens -------------------------------------------------------------------------------

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = false;
};

// Finds added tokens the way aho-corasick's MatchKind::LeftmostLongest does: the match that
// starts first, the longest of those, then the search resumes at its end.
class AddedTokenMatcher {
 public:
  void add(std::string pattern, int token) { patterns_.push_back({std::move(pattern), token}); }

  void build() {
    for (auto& bucket : by_first_byte_) bucket.clear();
    for (int k = 0; k < static_cast<int>(patterns_.size()); ++k)
      by_first_byte_[static_cast<unsigned char>(patterns_[k].text[0])].push_back(k);
    for (auto& bucket : by_first_byte_)
      std::stable_sort(bucket.begin(), bucket.end(), [&](int a, int b) {
        return patterns_[a].text.size() > patterns_[b].text.size();
      });
  }

  bool empty() const { return patterns_.empty(); }

  // The first match at or after `from`: its start, length and token.
  bool find(std::string_view text, size_t from, size_t& start, size_t& length, int& token) const {
    for (size_t i = from; i < text.size(); ++i) {
      const auto& bucket = by_first_byte_[static_cast<unsigned char>(text[i])];
      for (int k : bucket) {
        const std::string& p = patterns_[k].text;
        if (text.compare(i, p.size(), p) == 0) {
          start = i;
          length = p.size();
          token = patterns_[k].token;
          return true;
        }
      }
    }
    return false;
  }

 private:
  struct Pattern {
    std::string text;  // never empty
    int token;
  };
  std::vector<Pattern> patterns_;
  std::array<std::vector<int>, 256> by_first_byte_;
};

// ---- the Split regex ----------------------------------------------------------------------------

// Hugging Face compiles Split patterns with Oniguruma; PCRE2 agrees with it except for the Unicode
// meaning of a few escapes. Those are spelled out (Oniguruma's documented classes); constructs
// whose meaning differs in ways not worth guessing are refused.
constexpr std::string_view kOnigSpace =
    "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";
constexpr std::string_view kOnigWord = "\\p{L}\\p{M}\\p{N}\\p{Pc}";
constexpr std::string_view kOnigHex = "0-9a-fA-F";

Result<std::string> onig_to_pcre2(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 >= pattern.size()) return bad("Split regex ends with a lone backslash");
      const char e = pattern[++i];
      std::string_view cls;
      bool negated = false;
      switch (e) {
        case 's':
          cls = kOnigSpace;
          break;
        case 'S':
          cls = kOnigSpace;
          negated = true;
          break;
        case 'w':
          cls = kOnigWord;
          break;
        case 'W':
          cls = kOnigWord;
          negated = true;
          break;
        // Oniguruma's \h is a hex digit, PCRE2's a horizontal blank.
        case 'h':
          cls = kOnigHex;
          break;
        case 'H':
          cls = kOnigHex;
          negated = true;
          break;
        case 'b':
        case 'B':
        case 'y':
        case 'Y':
        case 'O':
          return unsupported(std::string("Split regex escape \\") + e +
                             " (its Oniguruma meaning has no exact PCRE2 spelling)");
        default:
          out += '\\';
          out += e;
          continue;
      }
      if (in_class) {
        if (negated)
          return unsupported(std::string("Split regex escape \\") + e + " inside a class");
        out += cls;
      } else {
        out += negated ? "[^" : "[";
        out += cls;
        out += ']';
      }
      continue;
    }
    if (in_class) {
      if (c == '[' && (i + 1 >= pattern.size() || pattern[i + 1] != ':'))
        return unsupported("Split regex with a nested character class");
      if (c == '&' && i + 1 < pattern.size() && pattern[i + 1] == '&')
        return unsupported("Split regex with a class intersection (&&)");
      if (c == '[') {  // a POSIX class [:alpha:]: copy it whole
        const size_t close = pattern.find(":]", i + 2);
        if (close == pattern.npos) return bad("Split regex has an unterminated [: class");
        out.append(pattern.substr(i, close + 2 - i));
        i = close + 1;
        continue;
      }
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' first in a class (after an optional '^') is a literal in both dialects.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (c == '^' || c == '$')
      return unsupported("Split regex anchor '" + std::string(1, c) +
                         "' (Oniguruma anchors it at every line)");
    if (c == '(' && pattern.substr(i).starts_with("(?m"))
      return unsupported("Split regex option (?m) (Oniguruma's dot-all)");
    out += c;
  }
  if (in_class) return bad("Split regex has an unterminated character class");
  return out;
}

std::string escape_literal(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u)) out += '\\';
    out += c;
  }
  return out;
}

struct Pcre2CodeFree {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
using Regex = std::unique_ptr<pcre2_code, Pcre2CodeFree>;

Result<Regex> compile_regex(const std::string& pattern) {
  std::unique_ptr<pcre2_compile_context, decltype(&pcre2_compile_context_free)> ctx(
      pcre2_compile_context_create(nullptr), &pcre2_compile_context_free);
  pcre2_set_newline(ctx.get(), PCRE2_NEWLINE_LF);
  int code = 0;
  PCRE2_SIZE offset = 0;
  Regex re(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_UCP, &code, &offset, ctx.get()));
  if (!re) {
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(code, message.data(), message.size());
    return unsupported("Split regex does not compile as PCRE2 at offset " + std::to_string(offset) +
                       ": " + reinterpret_cast<const char*>(message.data()));
  }
  pcre2_jit_compile(re.get(), PCRE2_JIT_COMPLETE);  // without JIT, pcre2_match interprets
  return re;
}

// Per-thread match state: patterns are shared, match data and the JIT stack are not.
struct MatchScratch {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  // Long runs (10k spaces under \s+(?!\S)) backtrack deeply; the stack grows on demand.
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, 64 * 1024 * 1024, nullptr);
  MatchScratch() { pcre2_jit_stack_assign(context, nullptr, stack); }
  ~MatchScratch() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
};

MatchScratch& match_scratch() {
  thread_local MatchScratch scratch;
  return scratch;
}

size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Split with behavior Isolated: every match is a piece and so is every gap between matches.
template <typename OnPiece>
void split_isolated(const pcre2_code* re, std::string_view text, OnPiece&& on_piece) {
  MatchScratch& scratch = match_scratch();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t prev = 0, offset = 0;
  while (offset < text.size()) {
    const int rc = pcre2_match(re, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, scratch.data,
                               scratch.context);
    // No match, or a resource limit on a pathological text: the rest stays one piece (the BPE
    // of a piece is still exact; only its split points could differ from the reference).
    if (rc < 0) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(scratch.data);
    const size_t start = ov[0], end = ov[1];
    if (start > prev) on_piece(text.substr(prev, start - prev));
    if (end > start) on_piece(text.substr(start, end - start));
    prev = end;
    // An empty match splits there; the search resumes one character on, as Oniguruma's does.
    offset = end > start ? end : start + utf8_length(static_cast<unsigned char>(text[start]));
  }
  if (prev < text.size()) on_piece(text.substr(prev));
}

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
