//===- CompileCache.h - Where gptc train SPEC keeps bundles ----*- C++ -*-===//
//
// `gptc train SPEC` compiles into SPEC-BASENAME-KEY.gptc/ and a later run
// with the same KEY reuses that bundle, which means running its step.so.
// So a cached bundle is reused only when this user owns it and no one else
// may have written it; the cache outside the working directory is a
// directory of this user's alone ($XDG_CACHE_HOME/gptc, or
// ~/.cache/gptc, made 0700), never a shared directory like /tmp where
// another user could plant a bundle at a predictable name.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_COMPILECACHE_H
#define GPTC_COMMANDS_COMPILECACHE_H

#include <string>
#include <vector>

namespace gptc {
namespace commands {

/// The directory a spec's bundle goes to: SPEC-BASENAME-KEY.gptc (KEY: the
/// first 12 digits of `key`; none without one) in the working directory
/// when it is writable, else in the user's cache directory (made if
/// missing). Empty and `error` when neither can be used.
std::string compileCacheBundleDir(const std::string &specPath,
                                  const std::string &key, std::string &error);

/// Where `gptc train SPEC` run here puts its bundles: "." when the working
/// directory is writable, else the user's cache directory (made if missing
/// and `create`). Empty and `error` when neither can be used.
std::string compileCacheDirectory(bool create, std::string &error);

/// The directories a spec's bundles may be in: the working directory, and
/// the user's cache directory (not made here).
std::vector<std::string> compileCacheDirectories();

/// True if `path` (not followed: a symlink is not trusted) is owned by this
/// user and writable by no other: not by others, and by its group only
/// when that is the user's own group. Otherwise false and `why`.
bool isPrivateToUser(const std::string &path, std::string &why);

/// A cached bundle directory and its step library are private to this user
/// (isPrivateToUser), so that running it runs only this user's code.
bool isTrustedBundle(const std::string &dir, std::string &why);

/// An exclusive lock on the directory a spec's bundle goes to, held while
/// it is looked up and compiled (flock on the directory itself: no file is
/// left behind; the kernel drops it if the process dies).
class CompileLock {
public:
  explicit CompileLock(const std::string &bundleDir);
  ~CompileLock();
  CompileLock(const CompileLock &) = delete;
  CompileLock &operator=(const CompileLock &) = delete;
  /// Taken at construction (false: another process holds it, or the
  /// directory cannot be opened).
  bool held() const { return isHeld; }
  /// Waits until the other process lets go (nothing without a directory).
  void wait();
  const std::string &directory() const { return dir; }

private:
  std::string dir;
  int fd = -1;
  bool isHeld = false;
};

} // namespace commands
} // namespace gptc

#endif // GPTC_COMMANDS_COMPILECACHE_H
