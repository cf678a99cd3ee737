//===- PtxLexer.h - Tokens of PTX text --------------------------*- C++ -*-===//

#ifndef GPTC_EMU_PTXLEXER_H
#define GPTC_EMU_PTXLEXER_H

#include <cstdint>
#include <string>
#include <vector>

namespace gptc::emu {

struct Token {
  enum Kind : uint8_t { Ident, Number, String, Punct, End } kind = End;
  std::string text;
  uint32_t line = 0;
};

/// Splits PTX text into tokens: identifiers (with dots, `%`, `$`), numbers
/// (0f/0d/0x/decimal/float), strings and single-character punctuation.
/// Comments are dropped. Returns false on a character PTX does not use.
bool lexPtx(const std::string &text, std::vector<Token> &tokens,
            std::string &error);

} // namespace gptc::emu

#endif
