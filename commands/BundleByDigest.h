//===- BundleByDigest.h - A checkpoint's bundle, from the cache -*- C++ -*-===//
//
// A bundle is code: its step.so runs in the process that opens it. A
// checkpoint (or a manifest) is data, and may come from anyone; so no
// command opens a bundle because a checkpoint names it. `gptc sample`
// takes the bundle the user names (--bundle DIR), or looks one up in the
// compile cache by the SHA-256 of the step library the checkpoint was
// saved with: a NAME-KEY.gptc directory of this user's alone (CompileCache.h)
// whose manifest records that digest. The path the checkpoint records is
// only printed, as the --bundle to give.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_BUNDLEBYDIGEST_H
#define GPTC_COMMANDS_BUNDLEBYDIGEST_H

#include <string>

namespace gptc::commands {

/// The cached bundle (in compileCacheDirectories()) whose step library's
/// SHA-256 is `stepLibrarySha256` and that is this user's alone; false when
/// there is none.
bool findCachedBundle(const std::string &stepLibrarySha256,
                      std::string &bundle);

} // namespace gptc::commands

#endif // GPTC_COMMANDS_BUNDLEBYDIGEST_H
