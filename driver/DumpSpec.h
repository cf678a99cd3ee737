//===- DumpSpec.h - The spec an --emit dump was made from -------*- C++ -*-===//
//
// `gptc compile SPEC --from DUMP` continues a dump with SPEC's settings: the
// dump must be of the same resolved configuration (the spec with its
// extends merged and its --set overrides applied), not only of the same
// spec name, or the bundle's slots disagree with its IR. The dump's header
// carries the configuration's digest and its last lines the configuration
// itself ("//| " lines), which name the keys that differ.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_DUMPSPEC_H
#define GPTC_DRIVER_DUMPSPEC_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace gptc {

/// The first 16 hex digits of the SHA-256 of a resolved spec's text.
std::string specDigest(llvm::StringRef resolvedYaml);

/// The resolved spec a dump's "//| " lines carry ("" if none).
std::string embeddedSpecOf(llvm::StringRef dump);

/// The first key whose value differs between two resolved specs, as
/// "training.device_batch: 4 in the dump, 8 here" ("" when equal).
std::string firstSpecDifference(llvm::StringRef dumped, llvm::StringRef here);

} // namespace gptc

#endif // GPTC_DRIVER_DUMPSPEC_H
