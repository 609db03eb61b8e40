// tokenizer/bpe_tokenizer.h — a native byte-level BPE tokenizer that reads a Hugging Face
// tokenizer.json of the Qwen2/Qwen3 kind and gives the ids the `tokenizers` library gives.
//
// It implements exactly the features such files use (added tokens with their flags, NFC, Split
// regex + ByteLevel pre-tokenization, BPE with ranked merges, the ByteLevel decoder) and refuses
// every other feature with Error("unsupported_tokenizer") rather than approximate it. It is not a
// trainer and gives no offsets. A loaded tokenizer is immutable and safe to share across threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace steptp::tokenizer {

class BpeTokenizer {
 public:
  // Errors: "io_error" (unreadable file), "bad_tokenizer" (not JSON, missing or ill-typed fields,
  // merges naming unknown tokens), "unsupported_tokenizer" (a
  // feature this implementation does not have; the message names it).
  static Result<BpeTokenizer> from_file(const std::string& path);
  static Result<BpeTokenizer> from_json_text(std::string_view json_text);

  // The ids Hugging Face's Tokenizer.encode(text).ids gives (post-processing adds nothing in the
  // supported files). Bytes that are not UTF-8 are first replaced by U+FFFD per maximal subpart,
  // as Python's bytes.decode(errors="replace") does.
  std::vector<int32_t> encode(std::string_view text) const;
  // encode(text).size() without building the vector.
  int64_t count(std::string_view text) const;
  // The text of the ids, as Tokenizer.decode(ids, skip_special_tokens=skip_special) gives it:
  // byte-level characters mapped back to bytes, ill-formed UTF-8 replaced, unknown ids skipped.
  // decode(encode(s)) == NFC(s) for valid UTF-8 s.
  std::string decode(std::span<const int32_t> ids, bool skip_special = false) const;

  // The id of a vocabulary entry or added token, spelled as in the file (byte-level characters
  // for vocabulary entries: "Ġworld", added tokens as they are: "<|im_end|>").
  std::optional<int32_t> token_to_id(std::string_view token) const;
  // Vocabulary entries plus added tokens that are not in the vocabulary.
  int64_t vocab_size() const;

  struct Impl;  // opaque: the loaded model, defined in bpe_tokenizer.cpp

 private:
  explicit BpeTokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;  // shared: copies are cheap and share the word cache
};

}  // namespace steptp::tokenizer
