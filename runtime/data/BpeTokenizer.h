//===- BpeTokenizer.h - GPT-2 style byte-pair encoding ----------*- C++ -*-===//
//
// `gptc data --tokenizer FILE` tokenises with a byte-level BPE vocabulary in
// tiktoken's file format (GPT-2's r50k_base, GPT-4's cl100k_base, ...):
// one token per line, its bytes in base64 and its rank:
//
//     IQ== 0
//     Ig== 1
//     ...
//
// Encoding is tiktoken's: the text is split by GPT-2's pre-tokenisation
// pattern
//
//     '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// and each piece is merged from single bytes, always merging the adjacent
// pair whose joined bytes have the lowest rank (the leftmost on a tie),
// until no joined pair is a token; the token ids are the ranks. Every byte
// must be a token. The document separator (<|endoftext|>) is the id after
// the largest rank: 50256 for GPT-2's vocabulary.
//
// Unicode classes: ASCII is classified exactly; other code points by the
// C library's C.UTF-8 locale (iswalpha for \p{L}, iswspace for \s), so a
// non-ASCII numeral (\p{N} beyond 0-9, e.g. U+00BD) counts as a letter
// or a symbol, where tiktoken would count it as a number.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_BPETOKENIZER_H
#define GPTC_RUNTIME_DATA_BPETOKENIZER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gptc {
namespace data {

class BpeTokenizer {
public:
  /// Reads a tiktoken-format file: false with `error` naming the file and
  /// line (bad base64, a repeated token or rank, a missing byte, a rank
  /// that does not fit a uint16 shard).
  bool load(const std::string &path, std::string &error);

  /// Appends the ids of `text` to `out`.
  void encode(std::string_view text, std::vector<uint16_t> &out) const;

  /// The document separator's id: one past the largest rank.
  uint16_t endOfText() const { return eot; }
  /// Ids in use: endOfText() + 1.
  int64_t vocabSize() const { return int64_t(eot) + 1; }

  /// The bytes of token `id` ("" for <|endoftext|> and unknown ids).
  const std::string &decode(uint16_t id) const {
    static const std::string none;
    return id < byId.size() ? byId[id] : none;
  }

  /// GPT-2's pre-tokenisation: the pieces of `text`, in order.
  static std::vector<std::string_view> split(std::string_view text);

private:
  void mergePiece(std::string_view piece, std::vector<uint16_t> &out) const;
  int64_t rankOf(std::string_view bytes) const {
    auto it = ranks.find(std::string(bytes));
    return it == ranks.end() ? -1 : int64_t(it->second);
  }

  std::unordered_map<std::string, uint16_t> ranks;
  std::vector<std::string> byId;
  uint16_t eot = 0;
};

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_BPETOKENIZER_H
