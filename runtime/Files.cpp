//===- Files.cpp - Checked reads and crash-safe writes --------------------===//

#include "runtime/Files.h"

#include "runtime/Sha256.h"

#include "llvm/Support/SHA256.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace gptc::runtime {

namespace {

std::string sysError(const std::string &path, const char *what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

std::string parentOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool fsyncPath(const std::string &path, bool directory, std::string &error) {
  int fd = ::open(path.c_str(),
                  (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    error = sysError(path, "cannot open to sync");
    return false;
  }
  bool ok = ::fsync(fd) == 0;
  if (!ok)
    error = sysError(path, "cannot sync");
  ::close(fd);
  return ok;
}

/// The names in directory `path` (without . and ..).
bool listDirectory(const std::string &path, std::vector<std::string> &names,
                   std::string &error) {
  DIR *dir = ::opendir(path.c_str());
  if (!dir) {
    error = sysError(path, "cannot list");
    return false;
  }
  while (struct dirent *e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..")
      names.push_back(name);
  }
  ::closedir(dir);
  return true;
}

} // namespace

bool checkRegularFile(const std::string &path, const char *what,
                      std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ELOOP)
      error = path + ": the " + what + " is a symbolic link loop";
    else if (errno == ENOENT)
      error = path + ": no such " + what;
    else
      error = sysError(path, (std::string("cannot read the ") + what).c_str());
    return false;
  }
  if (S_ISREG(st.st_mode))
    return true;
  const char *kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                         ? "a device"
                         : "not a regular file";
  error = path + ": the " + what + " is " + kind + ", not a regular file";
  return false;
}

bool readRegularFile(const std::string &path, const char *what,
                     uint64_t maxBytes, std::string &text, std::string &error) {
  if (!checkRegularFile(path, what, error))
    return false;
  // O_NONBLOCK: a FIFO swapped in after the check does not block the open.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = sysError(path, (std::string("cannot open the ") + what).c_str());
    return false;
  }
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!ok)
    error = path + ": the " + what + " is not a regular file";
  else if (uint64_t(st.st_size) > maxBytes) {
    error = path + ": the " + what + " is " + std::to_string(st.st_size) +
            " bytes, more than the " + std::to_string(maxBytes) + " one can be";
    ok = false;
  }
  if (ok) {
    text.resize(size_t(st.st_size));
    size_t got = 0;
    while (got < text.size()) {
      ssize_t r = ::pread(fd, &text[got], text.size() - got, off_t(got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += size_t(r);
    }
    if (got != text.size()) {
      error = path + ": the " + what + " shrank while it was read (" +
              std::to_string(got) + " of " + std::to_string(text.size()) +
              " bytes)";
      ok = false;
    }
  }
  ::close(fd);
  if (!ok)
    text.clear();
  return ok;
}

bool checkFileSizeAtMost(const std::string &path, int64_t maxBytes,
                         const std::string &bound, std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || st.st_size <= maxBytes)
    return true; // what is missing is said by the read that follows
  auto size = [](int64_t b) {
    char text[64];
    if (b >= (int64_t(1) << 30))
      std::snprintf(text, sizeof text, "%.2f GiB", double(b) / (1 << 30));
    else
      std::snprintf(text, sizeof text, "%.1f MiB", double(b) / (1 << 20));
    return std::string(text);
  };
  error = path + ": " + size(int64_t(st.st_size)) + ", more than " + bound +
          " (at most " + size(maxBytes) + "); not reading it";
  return false;
}

bool sha256File(const std::string &path, std::string &hex, int64_t &bytes,
                std::string &error) {
  // A FIFO or device is named, never read (a read would wait or not end).
  if (!checkRegularFile(path, "file to hash", error))
    return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    error = path + ": not a regular file";
    return false;
  }
  if (fd < 0) {
    error = sysError(path, "cannot open");
    return false;
  }
  llvm::SHA256 hash;
  std::vector<uint8_t> buf(1 << 20);
  bytes = 0;
  while (true) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      error = sysError(path, "cannot read");
      ::close(fd);
      return false;
    }
    if (n == 0)
      break;
    hash.update(llvm::ArrayRef<uint8_t>(buf.data(), size_t(n)));
    bytes += n;
  }
  ::close(fd);
  hex = hexDigest(hash.final());
  return true;
}

bool writeFileAtomically(
    const std::string &path,
    const std::function<bool(std::FILE *, std::string &)> &write,
    std::string &error) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    error = sysError(tmp, "cannot create");
    return false;
  }
  bool ok = write(f, error);
  if (ok && (std::fflush(f) != 0 || ::fsync(::fileno(f)) != 0)) {
    error = sysError(tmp, "cannot write");
    ok = false;
  }
  if (std::fclose(f) != 0 && ok) {
    error = sysError(tmp, "cannot write");
    ok = false;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = sysError(path, "cannot rename the written file to");
    ok = false;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return false;
  }
  return fsyncPath(parentOf(path), /*directory=*/true, error);
}

namespace {

/// The file a staging directory holds while gptc writes it. Its writer
/// keeps an flock on it until the directory is committed or the writer
/// dies (the kernel then drops the lock): a directory whose marker nobody
/// holds is debris. The writer's process id is in it for a reader's eyes;
/// a pid is not the test (pids are reused).
constexpr const char *kStagingMarker = ".gptc-staging";

/// "NAME.partial-XXXXXX" (mkdtemp's six characters) for `prefix` =
/// "NAME.partial-".
bool isStagingName(const std::string &name, const std::string &prefix) {
  return name.size() == prefix.size() + 6 &&
         name.compare(0, prefix.size(), prefix) == 0;
}

/// The process's umask, read without changing it (umask(2) would, racing
/// other threads): /proc/self/status's Umask line, else 022.
mode_t processUmask() {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  unsigned mask = 022;
  char line[256];
  while (f && std::fgets(line, sizeof(line), f))
    if (std::sscanf(line, "Umask: %o", &mask) == 1)
      break;
  if (f)
    std::fclose(f);
  return mode_t(mask);
}

/// The locked markers of this process's staging directories, by path.
std::mutex stagingMutex;
std::map<std::string, int> &heldMarkers() {
  static std::map<std::string, int> held;
  return held;
}

/// Closes the marker of `staging` if this process holds it (the lock goes).
void releaseMarker(const std::string &staging) {
  std::lock_guard<std::mutex> lock(stagingMutex);
  auto found = heldMarkers().find(staging);
  if (found == heldMarkers().end())
    return;
  ::close(found->second);
  heldMarkers().erase(found);
}

} // namespace

bool isAbandonedStaging(const std::string &path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      st.st_uid != ::geteuid())
    return false;
  std::string marker = path + "/" + kStagingMarker;
  int fd =
      ::open(marker.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return false;
  // A live writer (this process or another gptc compiling or saving to the
  // same target) holds the lock; a dead one's lock is gone.
  bool abandoned = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                   ::flock(fd, LOCK_SH | LOCK_NB) == 0;
  ::close(fd);
  return abandoned;
}

bool makeStagingDirectory(const std::string &target, std::string &staging,
                          std::string &error) {
  std::string t = target;
  while (t.size() > 1 && t.back() == '/')
    t.pop_back();
  std::vector<char> name(t.begin(), t.end());
  for (char c : std::string(".partial-XXXXXX"))
    name.push_back(c);
  name.push_back('\0');
  if (!::mkdtemp(name.data())) {
    error = sysError(parentOf(t), "cannot create a directory in");
    return false;
  }
  staging = name.data();
  // mkdtemp makes it 0700; a bundle or checkpoint gets the mode any new
  // directory of the user's would (0755 under the usual umask).
  ::chmod(staging.c_str(), 0777 & ~processUmask());
  std::string marker = staging + "/" + kStagingMarker;
  int fd = ::open(marker.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  std::string pid = std::to_string(::getpid()) + "\n";
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      ::write(fd, pid.data(), pid.size()) != ssize_t(pid.size())) {
    error = sysError(marker, "cannot write");
    if (fd >= 0)
      ::close(fd);
    ::unlink(marker.c_str());
    ::rmdir(staging.c_str());
    return false;
  }
  std::lock_guard<std::mutex> lock(stagingMutex);
  heldMarkers()[staging] = fd;
  return true;
}

void removeTree(const std::string &path) {
  releaseMarker(path);
  // A symlink (or a file) goes as itself: never what it points at.
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    ::unlink(path.c_str());
    return;
  }
  std::vector<std::string> names;
  std::string ignored;
  if (listDirectory(path, names, ignored))
    for (const std::string &n : names) {
      std::string child = path + "/" + n;
      struct stat st;
      if (::lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        removeTree(child);
      else
        ::unlink(child.c_str());
    }
  ::rmdir(path.c_str());
}

void removeStagingDirectories(const std::string &target) {
  std::string t = target;
  while (t.size() > 1 && t.back() == '/')
    t.pop_back();
  std::string dir = parentOf(t);
  std::string prefix = t.substr(t.find_last_of('/') + 1) + ".partial-";
  std::vector<std::string> names;
  std::string ignored;
  if (!listDirectory(dir, names, ignored))
    return;
  for (const std::string &n : names)
    if (isStagingName(n, prefix) && isAbandonedStaging(dir + "/" + n))
      removeTree(dir + "/" + n);
}

bool commitDirectory(
    const std::string &staging, const std::string &target,
    const std::function<bool(const std::string &)> &isReplaceable,
    std::string &error) {
  std::string marker = staging + "/" + kStagingMarker;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) {
    error = sysError(marker, "cannot remove");
    return false;
  }
  releaseMarker(staging);
  std::vector<std::string> names;
  if (!listDirectory(staging, names, error))
    return false;
  for (const std::string &n : names)
    if (!fsyncPath(staging + "/" + n, /*directory=*/false, error))
      return false;
  if (!fsyncPath(staging, /*directory=*/true, error))
    return false;

  struct stat st;
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      error = sysError(target, "cannot read");
      return false;
    }
    if (::rename(staging.c_str(), target.c_str()) != 0) {
      error = sysError(target, "cannot rename the new directory to");
      return false;
    }
  } else {
    if (!S_ISDIR(st.st_mode) || !isReplaceable(target)) {
      error = target + ": exists and is not " +
              (S_ISDIR(st.st_mode) ? "one gptc wrote" : "a directory") +
              "; not replacing it (remove it or choose another path)";
      return false;
    }
    // Swap the two trees in one step, then drop the old one.
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(),
                    RENAME_EXCHANGE) != 0) {
      error = sysError(target, "cannot replace");
      return false;
    }
    removeTree(staging);
  }
  return fsyncPath(parentOf(target), /*directory=*/true, error);
}

bool jsonNestingWithin(const std::string &text, int maxDepth) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

bool makeDirectories(const std::string &dir, std::string &error) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/')
      continue;
    std::string prefix = dir.substr(0, i);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      error = prefix + ": cannot create the directory: " + std::strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = dir + ": not a directory";
    return false;
  }
  return true;
}

bool checkWritableDestination(const std::string &path, std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    error = path + ": is a directory, not a file to write";
    return false;
  }
  std::string dir = parentOf(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = path + ": no such directory " + dir;
    return false;
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    error = sysError(dir, "cannot write into");
    return false;
  }
  return true;
}

} // namespace gptc::runtime
