//===- Bundle.h - A compiled bundle, verified and loaded ---------*- C++
//-*-===//
//
// A bundle directory (docs/artifact.md) is trusted only as far as it proves
// itself. `openBundle`:
//   1. reads and checks manifest.json (runtime/Manifest.h);
//   2. checks that the step library named by the manifest is a regular file
//      of the recorded size and SHA-256 -- before dlopen, so a truncated or
//      foreign step.so is one error line, not a SIGBUS or SIGSEGV;
//   3. loads it and compares the layout descriptor it exports (arena size,
//      workspace, slot table; runtime/StepLayout.h) with the manifest's:
//      the first difference is one error line naming the field.
// spec.yaml is not read: it is kept in the bundle for people and for
// `gptc check`.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_BUNDLE_H
#define GPTC_RUNTIME_BUNDLE_H

#include "runtime/Manifest.h"
#include "runtime/StepLibrary.h"

#include <string>

namespace gptc::runtime {

/// Steps 1 and 2 of `openBundle`, without loading the library: what a
/// compile cache checks before reusing a bundle. A step library, once
/// loaded, stays loaded (StepLibrary.h), and a CUDA one loads its kernels
/// into the device that is active then: it is loaded where it runs.
bool checkBundleFiles(const std::string &dir, Manifest &manifest,
                      std::string &error);

/// Opens the bundle in `dir` into `manifest` and `step`; false with one
/// `error` line otherwise.
bool openBundle(const std::string &dir, Manifest &manifest, StepLibrary &step,
                std::string &error);

/// Compares a step library's layout descriptor `libraryText` with
/// `manifest`'s: empty when they agree, else "FIELD: VALUE in manifest.json,
/// VALUE in LIBRARY". Exposed for tests.
std::string compareLayouts(const Manifest &manifest,
                           const std::string &libraryText,
                           const std::string &libraryName);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_BUNDLE_H
