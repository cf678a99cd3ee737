//===- ErrorLine.h - An error line and what it already says -----*- C++ -*-===//
//
// The commands print every error as one line. Some arrive already located
// ("models/x.yaml:3:7: error: ..." from the spec's checks) and are printed
// as they are; the rest are messages the command prefixes with its name
// ("gptc train: error: ..."). The kind travels with the text: nothing
// guesses it from the words.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_ERRORLINE_H
#define GPTC_RUNTIME_ERRORLINE_H

#include <ostream>
#include <string>

namespace gptc {
namespace runtime {

enum class ErrorKind {
  /// What went wrong, for the command to prefix with its name.
  Message,
  /// A located diagnostic, "FILE:LINE:COL: error: ...", printed as it is.
  Located,
};

struct ErrorLine {
  ErrorKind kind = ErrorKind::Message;
  std::string text;

  static ErrorLine message(std::string text) {
    return {ErrorKind::Message, std::move(text)};
  }
  static ErrorLine located(std::string text) {
    return {ErrorKind::Located, std::move(text)};
  }
};

/// The start of a command's error line: "gptc train: error: " for `me`
/// "gptc train: ".
inline std::string errorPrefix(const std::string &me) { return me + "error: "; }

/// Prints `error` as its line: a message after `me` ("gptc train: ") and
/// "error: ", a located diagnostic as it is.
inline void printErrorLine(std::ostream &os, const std::string &me,
                           const ErrorLine &error) {
  if (error.kind == ErrorKind::Message)
    os << errorPrefix(me);
  os << error.text << "\n";
}

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_ERRORLINE_H
