//===- Tokenizer.h - Byte-level tokenizer -----------------------*- C++ -*-===//
//
// The tokenizer gptc uses for CPU-sized models: a token is a byte value
// (0..255) and 256 is BOS, the document separator (GPT-2's <|endoftext|>
// plays that role, as 50256, in the FineWeb shards). Vocabulary size 257.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_TOKENIZER_H
#define GPTC_RUNTIME_DATA_TOKENIZER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gptc {
namespace data {

class ByteTokenizer {
public:
  static constexpr int kBOS = 256;
  static constexpr int kVocabSize = 257;
  /// How decode() prints BOS.
  static constexpr const char *kBOSText = "<|bos|>";

  /// Appends the tokens of `text` (one per byte) to `out`.
  static void encode(std::string_view text, std::vector<uint16_t> &out);
  static std::vector<uint16_t> encode(std::string_view text) {
    std::vector<uint16_t> out;
    encode(text, out);
    return out;
  }

  /// The text of one token: its byte, kBOSText for BOS, and `<|N|>` for an
  /// id outside the vocabulary.
  static std::string decodeToken(int token);
  /// Decodes a token sequence for printing samples. With `showBOS` false,
  /// BOS tokens are dropped.
  template <typename T>
  static std::string decode(const T *tokens, size_t n, bool showBOS = true) {
    std::string s;
    s.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      int t = int(tokens[i]);
      if (t >= 0 && t < 256)
        s.push_back(char(t));
      else if (t != kBOS || showBOS)
        s += decodeToken(t);
    }
    return s;
  }
  template <typename T>
  static std::string decode(const std::vector<T> &tokens, bool showBOS = true) {
    return decode(tokens.data(), tokens.size(), showBOS);
  }
};

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_TOKENIZER_H
