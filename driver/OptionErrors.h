//===- OptionErrors.h - llvm::cl's complaints as one line ------*- C++ -*-===//
//
// gptc check / compile and gptc-opt parse their options with llvm::cl,
// whose errors are several lines in LLVM's words; these say them as one
// line naming the fix. Header only: gptc-opt does not link the driver.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_OPTIONERRORS_H
#define GPTC_DRIVER_OPTIONERRORS_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace gptc {

/// llvm::cl's complaint about `args` (several lines, LLVM's words) as one
/// line naming the fix; `positional` names what the tool takes one of.
inline std::string oneLineOptionError(llvm::StringRef tool,
                                      llvm::StringRef llvmText,
                                      const std::vector<std::string> &args,
                                      const char *positional = "spec") {
  const std::string see = " (see " + tool.str() + " --help)";
  // "Unknown command line argument 'X'.  Try: ...\n... Did you mean 'Y'?"
  if (size_t at = llvmText.find("Unknown command line argument '");
      at != llvm::StringRef::npos) {
    llvm::StringRef rest = llvmText.drop_front(at + 31);
    std::string text = "unknown option '" +
                       rest.take_until([](char c) { return c == '\''; }).str() +
                       "'";
    if (size_t mean = llvmText.find("Did you mean '");
        mean != llvm::StringRef::npos)
      text += "; did you mean '" +
              llvmText.drop_front(mean + 14)
                  .take_until([](char c) { return c == '\''; })
                  .str() +
              "'?";
    return text + see;
  }
  if (llvmText.contains("Too many positional arguments")) {
    std::string specs;
    for (const std::string &arg : args)
      if (!arg.empty() && arg[0] != '-')
        specs += (specs.empty() ? "" : ", ") + arg;
    return std::string("more than one ") + positional + " (" + specs +
           "): give one";
  }
  // Anything else: LLVM's first line, without its program name (an
  // option's own value errors go to LLVM's stream, said there already).
  if (llvmText.empty())
    return "see the message above" + see;
  llvm::StringRef first = llvmText.take_until([](char c) { return c == '\n'; });
  if (first.starts_with(tool.str() + ": "))
    first = first.drop_front(tool.size() + 2);
  return first.str() + see;
}

} // namespace gptc

#endif // GPTC_DRIVER_OPTIONERRORS_H
