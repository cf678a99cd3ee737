//===- Utf8WriterTest.cpp - Sampled bytes as valid UTF-8 ------------------===//
//
// runtime/data/Utf8Writer.h: valid sequences pass through whole even when
// their bytes come one by one (as sampled tokens do); every other byte is
// \xNN; the output is valid UTF-8 whatever the input.
//
//===----------------------------------------------------------------------===//

#include "runtime/data/Utf8Writer.h"

#include <gtest/gtest.h>

#include <random>

using gptc::data::Utf8Writer;

namespace {

/// All of `bytes` through a writer, one byte at a time.
std::string byBytes(const std::string &bytes) {
  Utf8Writer w;
  std::string out;
  for (char c : bytes)
    out += w.push(std::string(1, c));
  return out + w.finish();
}

/// RFC 3629 validity, written independently of the writer.
bool isUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    unsigned n = b < 0x80         ? 0
                 : (b >> 5) == 6  ? 1
                 : (b >> 4) == 14 ? 2
                 : (b >> 3) == 30 ? 3
                                  : 9;
    if (n == 9 || i + n >= s.size() + (n ? 0 : 1))
      return false;
    uint32_t cp = n == 0 ? b : b & (0x3F >> n);
    for (unsigned k = 1; k <= n; ++k) {
      unsigned char c = static_cast<unsigned char>(s[i + k]);
      if ((c >> 6) != 2)
        return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    static const uint32_t minimum[] = {0, 0x80, 0x800, 0x10000};
    if (cp < minimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

TEST(Utf8Writer, ValidTextPassesThroughByteByByte) {
  const std::string text = "In the beginning \xC3\xA9t\xC3\xA9 \xE2\x82\xAC "
                           "\xF0\x9F\x98\x80 \xE4\xB8\xAD";
  EXPECT_EQ(byBytes(text), text);
  Utf8Writer w;
  EXPECT_EQ(w.push(text), text);
  EXPECT_EQ(w.finish(), "");
}

TEST(Utf8Writer, InvalidBytesAreEscaped) {
  EXPECT_EQ(byBytes("a\xFF"
                    "b"),
            "a\\xFFb");
  EXPECT_EQ(byBytes("\x80"), "\\x80");                   // a lone continuation
  EXPECT_EQ(byBytes("\xC3("), "\\xC3(");                 // a lead, then ASCII
  EXPECT_EQ(byBytes("\xC0\xAF"), "\\xC0\\xAF");          // overlong '/'
  EXPECT_EQ(byBytes("\xED\xA0\x80"), "\\xED\\xA0\\x80"); // a surrogate
  EXPECT_EQ(byBytes("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80"); // > U+10FFFF
  EXPECT_EQ(byBytes("ok\xE2\x82"), "ok\\xE2\\x82"); // cut short at the end
  // A broken sequence does not swallow the valid one after it.
  EXPECT_EQ(byBytes("\xE2\x82\xC3\xA9"), "\\xE2\\x82\xC3\xA9");
}

TEST(Utf8Writer, AnyBytesBecomeValidUtf8) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + rng() % 64, '\0');
    for (char &c : bytes)
      c = char(rng() % 256);
    std::string out = byBytes(bytes);
    EXPECT_TRUE(isUtf8(out)) << round;
  }
}

} // namespace
