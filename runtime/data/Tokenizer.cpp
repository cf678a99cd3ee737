//===- Tokenizer.cpp - Byte-level tokenizer -------------------------------===//

#include "runtime/data/Tokenizer.h"

namespace gptc {
namespace data {

void ByteTokenizer::encode(std::string_view text, std::vector<uint16_t> &out) {
  out.reserve(out.size() + text.size());
  for (char c : text)
    out.push_back(uint16_t(static_cast<unsigned char>(c)));
}

std::string ByteTokenizer::decodeToken(int token) {
  if (token >= 0 && token < 256)
    return std::string(1, char(token));
  if (token == kBOS)
    return kBOSText;
  return "<|" + std::to_string(token) + "|>";
}

} // namespace data
} // namespace gptc
