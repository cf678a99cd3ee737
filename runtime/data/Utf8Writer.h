//===- Utf8Writer.h - Bytes to valid UTF-8 text, escaping the rest -*- C++
//-*-===//
//
// A sampled model's tokens are bytes (or BPE pieces of bytes): in order
// they may not be UTF-8. gptc sample prints them through a Utf8Writer, so
// that a terminal or a pipe always receives valid UTF-8: a complete
// sequence passes through as it arrives, a byte that cannot start or
// continue one is written as the four characters \xNN.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_UTF8WRITER_H
#define GPTC_RUNTIME_DATA_UTF8WRITER_H

#include <string>
#include <string_view>

namespace gptc {
namespace data {

class Utf8Writer {
public:
  /// Takes `bytes`; returns the text they complete.
  std::string push(std::string_view bytes);
  /// The unfinished sequence at the end, escaped.
  std::string finish();

private:
  std::string pending; ///< a lead byte and its continuations so far
  unsigned need = 0;   ///< continuation bytes still expected
  void escapePending(std::string &out);
};

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_UTF8WRITER_H
