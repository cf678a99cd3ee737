//===- CacheScan.h - The bundles of gptc's compile cache --------*- C++ -*-===//
//
// What `gptc cache` lists and removes: the directories of a compile cache
// (CompileCache.h) that are bundles gptc compiled, found through one open
// directory and never through a symlink, with what `list` shows of them.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_CACHESCAN_H
#define GPTC_COMMANDS_CACHESCAN_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gptc::commands {

/// One cached bundle.
struct CachedBundle {
  std::string name;   ///< NAME-KEY.gptc, in the cache directory
  std::string spec;   ///< the manifest's spec_name
  std::string target; ///< the manifest's target
  uint64_t bytes = 0; ///< on disk
  /// When step.so was last loaded or written (seconds since the epoch).
  double usedAt = 0;
  /// "pid N (COMMAND)" of a process that has its step.so mapped, or "".
  std::string user;
};

/// The bundles of one cache directory, most recently used first.
struct CacheListing {
  CacheListing() = default;
  CacheListing(const CacheListing &) = delete;
  CacheListing &operator=(const CacheListing &) = delete;
  ~CacheListing();

  std::vector<CachedBundle> bundles;
  /// Names of the cache's form that are no bundle of gptc's, and why.
  std::vector<std::pair<std::string, std::string>> leftAlone;
  /// Staging directories of bundles that a killed compile left, and their
  /// size.
  std::vector<std::pair<std::string, uint64_t>> debris;
  /// The cache directory, open.
  int dirFd = -1;
  std::string dir;
};

/// NAME-KEY.gptc with KEY 12 lowercase hex digits (compileCacheBundleDir's
/// names).
bool isCacheBundleName(const std::string &name);

/// Lists the bundles in `dir` (not its subdirectories). False and `error`
/// when `dir` cannot be read.
bool scanCache(const std::string &dir, CacheListing &listing,
               std::string &error);

/// Removes `bundle` after checking again that it is a bundle of gptc's; it
/// removes only its files, by name, never following a symlink. False and
/// `error` otherwise.
bool removeCachedBundle(const CacheListing &listing, const CachedBundle &bundle,
                        std::string &error);

/// Removes the staging directory `name` if no writer holds it still.
bool removeAbandonedStaging(const CacheListing &listing,
                            const std::string &name);

} // namespace gptc::commands

#endif // GPTC_COMMANDS_CACHESCAN_H
