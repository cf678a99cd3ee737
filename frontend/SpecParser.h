//===- SpecParser.h - YAML spec -> ModelSpec --------------------*- C++ -*-===//
//
// Reads a YAML spec, resolves `extends:` chains (paths relative to the file
// that extends), applies `--set key.path=value` overrides, validates every
// key against the schema (SpecSchema.h) and every cross-field rule, and
// fills a ModelSpec. No MLIR.
//
// Every failure is one SpecError: a single line
//   FILE:LINE:COL: error: KEY: message
// naming the YAML node (or the `--set` argument) at fault.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_SPECPARSER_H
#define GPTC_FRONTEND_SPECPARSER_H

#include "ModelSpec.h"

#include <string>
#include <vector>

namespace gptc {

struct SpecError {
  SourceLoc loc;
  std::string key; ///< dotted key path, may be empty (syntax errors)
  std::string message;
  /// "FILE:LINE:COL: error: KEY: message" (key part omitted when empty).
  std::string str() const;
};

/// Parses `path` with the `overrides` ("model.seq_len=16384" each) applied
/// on top. On failure returns false and sets `error`; never throws.
bool parseSpecFile(const std::string &path,
                   const std::vector<std::string> &overrides, ModelSpec &out,
                   SpecError &error);

/// Same, from a string (for tests); `fileName` is used in locations and as
/// the base directory of `extends:`.
bool parseSpecString(const std::string &text, const std::string &fileName,
                     const std::vector<std::string> &overrides, ModelSpec &out,
                     SpecError &error);

} // namespace gptc

#endif // GPTC_FRONTEND_SPECPARSER_H
