//===- CompileCache.cpp - Where `gptc train SPEC` keeps its bundles -------===//

#include "commands/CompileCache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace gptc {
namespace commands {

namespace {

/// $XDG_CACHE_HOME/gptc, or $HOME/.cache/gptc; made 0700 when missing
/// and `create`.
std::string userCacheDir(bool create, std::string &error) {
  std::string root;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    root = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home == '/')
    root = std::string(home) + "/.cache";
  if (root.empty()) {
    error = "the working directory is not writable and neither "
            "XDG_CACHE_HOME nor HOME names a cache directory; run from a "
            "writable directory";
    return "";
  }
  std::string dir = root + "/gptc";
  if (!create)
    return dir;
  ::mkdir(root.c_str(), 0700); // may exist
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    error = dir + ": cannot create the compile cache: " + std::strerror(errno);
    return "";
  }
  std::string why;
  if (!isPrivateToUser(dir, why)) {
    error = dir + ": not used as the compile cache: " + why;
    return "";
  }
  return dir;
}

} // namespace

bool isPrivateToUser(const std::string &path, std::string &why) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    why = path + ": " + std::strerror(errno);
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    why = path + " is a symlink";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    why = path + " belongs to another user (uid " + std::to_string(st.st_uid) +
          ")";
    return false;
  }
  if ((st.st_mode & S_IWOTH) ||
      ((st.st_mode & S_IWGRP) && st.st_gid != ::getegid())) {
    why = path + " is writable by other users";
    return false;
  }
  return true;
}

bool isTrustedBundle(const std::string &dir, std::string &why) {
  return isPrivateToUser(dir, why) && isPrivateToUser(dir + "/step.so", why) &&
         isPrivateToUser(dir + "/manifest.json", why);
}

std::vector<std::string> compileCacheDirectories() {
  std::vector<std::string> dirs = {"."};
  std::string error, user = userCacheDir(/*create=*/false, error);
  if (!user.empty())
    dirs.push_back(user);
  return dirs;
}

std::string compileCacheDirectory(bool create, std::string &error) {
  return ::access(".", W_OK) == 0 ? "." : userCacheDir(create, error);
}

std::string compileCacheBundleDir(const std::string &specPath,
                                  const std::string &key, std::string &error) {
  std::string base = specPath.substr(specPath.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0)
    base = base.substr(0, dot);
  if (!key.empty())
    base += "-" + key.substr(0, 12);
  base += ".gptc";
  std::string cache = compileCacheDirectory(/*create=*/true, error);
  return cache.empty() ? "" : cache == "." ? base : cache + "/" + base;
}

CompileLock::CompileLock(const std::string &bundleDir) {
  size_t slash = bundleDir.find_last_of('/');
  dir = slash == std::string::npos ? "." : bundleDir.substr(0, slash);
  if (dir.empty())
    dir = "/";
  fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  // Without it (an unreadable directory) compiles run side by side, as
  // they did before the lock.
  isHeld = fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) == 0;
}

void CompileLock::wait() {
  while (fd >= 0 && !isHeld)
    isHeld = ::flock(fd, LOCK_EX) == 0 || errno != EINTR;
}

CompileLock::~CompileLock() {
  if (fd >= 0)
    ::close(fd);
}

} // namespace commands
} // namespace gptc
