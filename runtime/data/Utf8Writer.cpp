//===- Utf8Writer.cpp - Bytes to valid UTF-8 text, escaping the rest ------===//

#include "runtime/data/Utf8Writer.h"

#include <cstdio>

namespace gptc {
namespace data {

namespace {

void escape(unsigned char b, std::string &out) {
  char text[8];
  std::snprintf(text, sizeof(text), "\\x%02X", b);
  out += text;
}

/// Continuation bytes a sequence led by `lead` accepts second (RFC 3629:
/// no overlong forms, no surrogates, nothing past U+10FFFF).
bool validSecond(unsigned char lead, unsigned char b) {
  switch (lead) {
  case 0xE0:
    return b >= 0xA0 && b <= 0xBF;
  case 0xED:
    return b >= 0x80 && b <= 0x9F;
  case 0xF0:
    return b >= 0x90 && b <= 0xBF;
  case 0xF4:
    return b >= 0x80 && b <= 0x8F;
  default:
    return b >= 0x80 && b <= 0xBF;
  }
}

} // namespace

void Utf8Writer::escapePending(std::string &out) {
  for (char c : pending)
    escape(static_cast<unsigned char>(c), out);
  pending.clear();
  need = 0;
}

std::string Utf8Writer::push(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    unsigned char b = static_cast<unsigned char>(c);
    if (need) {
      bool fits = pending.size() == 1
                      ? validSecond(static_cast<unsigned char>(pending[0]), b)
                      : b >= 0x80 && b <= 0xBF;
      if (fits) {
        pending += c;
        if (--need == 0) {
          out += pending;
          pending.clear();
        }
        continue;
      }
      escapePending(out); // then `b` starts afresh
    }
    if (b < 0x80) {
      out += c;
    } else if (b >= 0xC2 && b <= 0xDF) {
      pending = c;
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      pending = c;
      need = 2;
    } else if (b >= 0xF0 && b <= 0xF4) {
      pending = c;
      need = 3;
    } else {
      escape(b, out);
    }
  }
  return out;
}

std::string Utf8Writer::finish() {
  std::string out;
  escapePending(out);
  return out;
}

} // namespace data
} // namespace gptc
