//===- CacheScan.cpp - The bundles of gptc's compile cache ----------------===//

#include "commands/CacheScan.h"

#include "runtime/Files.h"

#include "llvm/Support/JSON.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

namespace gptc::commands {

namespace {

/// What a bundle holds (driver/Compile.cpp writes these).
constexpr const char *kBundleFiles[] = {"manifest.json", "step.so",
                                        "spec.yaml"};
constexpr uint64_t kMaxManifestBytes = 64 << 20;

bool isBundleFile(const std::string &name) {
  return std::any_of(std::begin(kBundleFiles), std::end(kBundleFiles),
                     [&](const char *f) { return name == f; });
}

/// "NAME-KEY.gptc.partial-XXXXXX": the staging directory of a bundle.
bool isStagingName(const std::string &name) {
  const std::string infix = ".partial-";
  size_t at = name.size() >= infix.size() + 6 ? name.size() - infix.size() - 6
                                              : std::string::npos;
  return at != std::string::npos &&
         name.compare(at, infix.size(), infix) == 0 &&
         isCacheBundleName(name.substr(0, at));
}

/// The names in the open directory `fd` (not "." and "..").
bool listNames(int fd, std::vector<std::string> &names) {
  int copy = ::dup(fd);
  DIR *d = copy < 0 ? nullptr : ::fdopendir(copy);
  if (!d) {
    if (copy >= 0)
      ::close(copy);
    return false;
  }
  ::rewinddir(d);
  while (struct dirent *e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..")
      names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return true;
}

double seconds(const struct timespec &t) {
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

uint64_t diskBytes(const struct stat &st) {
  return uint64_t(st.st_blocks) * 512;
}

/// A directory opened without following a symlink, closed on scope exit.
struct OpenDirectory {
  OpenDirectory(int at, const std::string &name)
      : fd(::openat(at, name.c_str(),
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) {}
  ~OpenDirectory() {
    if (fd >= 0)
      ::close(fd);
  }
  int fd;
};

/// Reads the manifest in the bundle `fd`: why it is not gptc's, or "".
std::string readManifest(int fd, CachedBundle &b) {
  int m = ::openat(fd, "manifest.json",
                   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (m < 0)
    return std::string("cannot read its manifest.json: ") +
           std::strerror(errno);
  std::string text;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(m, buffer, sizeof(buffer))) > 0 &&
         text.size() <= kMaxManifestBytes)
    text.append(buffer, size_t(n));
  ::close(m);
  if (n < 0 || text.size() > kMaxManifestBytes ||
      !runtime::jsonNestingWithin(text, 64))
    return "its manifest.json is not a gptc manifest";
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return "its manifest.json is not JSON";
  }
  const llvm::json::Object *o = json->getAsObject();
  std::optional<llvm::StringRef> format =
      o ? o->getString("format") : std::nullopt;
  if (!format || !format->starts_with("gptc-step/"))
    return "its manifest.json is not a gptc manifest (no format gptc-step/N)";
  b.spec = o->getString("spec_name").value_or("?").str();
  b.target = o->getString("target").value_or("?").str();
  return "";
}

/// Why `name` in the directory `dirFd` is not a bundle of gptc's, or "" and
/// `b` describes it.
std::string inspect(int dirFd, const std::string &name, CachedBundle &b) {
  struct stat st;
  if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return std::strerror(errno);
  if (S_ISLNK(st.st_mode))
    return "a symlink (not followed)";
  if (!S_ISDIR(st.st_mode))
    return "not a directory";
  if (st.st_uid != ::geteuid())
    return "it belongs to another user";
  OpenDirectory bundle(dirFd, name);
  std::vector<std::string> names;
  if (bundle.fd < 0 || !listNames(bundle.fd, names))
    return std::string("cannot read it: ") + std::strerror(errno);
  b = CachedBundle();
  b.name = name;
  b.bytes = diskBytes(st);
  bool step = false;
  if (std::find(names.begin(), names.end(), "manifest.json") == names.end())
    return "no manifest.json (not a gptc bundle)";
  for (const std::string &n : names) {
    struct stat file;
    if (!isBundleFile(n))
      return "it holds " + n + ", which no bundle does";
    if (::fstatat(bundle.fd, n.c_str(), &file, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(file.st_mode))
      return "its " + n + " is not a regular file";
    b.bytes += diskBytes(file);
    if (n == "step.so") {
      step = true;
      b.usedAt = std::max(seconds(file.st_atim), seconds(file.st_mtim));
    } else if (n == "manifest.json" && !step) {
      b.usedAt = seconds(file.st_mtim);
    }
  }
  return readManifest(bundle.fd, b);
}

/// The files this user's running processes have mapped (a loaded step.so),
/// by device and inode, each with one of those processes.
std::map<std::pair<dev_t, ino_t>, std::string> mappedFiles() {
  std::map<std::pair<dev_t, ino_t>, std::string> mapped;
  DIR *proc = ::opendir("/proc");
  if (!proc)
    return mapped;
  std::string self = std::to_string(::getpid());
  while (struct dirent *e = ::readdir(proc)) {
    std::string pid = e->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != pid.npos ||
        pid == self)
      continue;
    std::ifstream maps("/proc/" + pid + "/maps");
    std::string line, who;
    while (std::getline(maps, line)) {
      unsigned major = 0, minor = 0;
      unsigned long inode = 0;
      if (std::sscanf(line.c_str(), "%*s %*s %*s %x:%x %lu", &major, &minor,
                      &inode) != 3 ||
          inode == 0)
        continue;
      if (who.empty()) {
        std::ifstream comm("/proc/" + pid + "/comm");
        std::string name;
        std::getline(comm, name);
        who = "pid " + pid + (name.empty() ? "" : " (" + name + ")");
      }
      mapped.emplace(std::make_pair(makedev(major, minor), ino_t(inode)), who);
    }
  }
  ::closedir(proc);
  return mapped;
}

/// The size on disk of the files directly in `name` (a staging directory).
uint64_t flatBytes(int dirFd, const std::string &name) {
  OpenDirectory d(dirFd, name);
  std::vector<std::string> names;
  uint64_t bytes = 0;
  struct stat st;
  if (d.fd < 0 || !listNames(d.fd, names))
    return 0;
  for (const std::string &n : names)
    if (::fstatat(d.fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      bytes += diskBytes(st);
  return bytes;
}

} // namespace

CacheListing::~CacheListing() {
  if (dirFd >= 0)
    ::close(dirFd);
}

bool isCacheBundleName(const std::string &name) {
  const std::string suffix = ".gptc";
  if (name.size() < suffix.size() + 14 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  size_t key = name.size() - suffix.size() - 12;
  if (name[key - 1] != '-')
    return false;
  for (size_t i = key; i < key + 12; ++i)
    if (!((name[i] >= '0' && name[i] <= '9') ||
          (name[i] >= 'a' && name[i] <= 'f')))
      return false;
  return true;
}

bool scanCache(const std::string &dir, CacheListing &listing,
               std::string &error) {
  listing.dir = dir;
  listing.dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::vector<std::string> names;
  if (listing.dirFd < 0 || !listNames(listing.dirFd, names)) {
    error = dir + ": " + std::strerror(errno);
    return false;
  }
  std::map<std::pair<dev_t, ino_t>, std::string> mapped;
  bool mappedRead = false;
  for (const std::string &n : names) {
    if (isStagingName(n)) {
      if (runtime::isAbandonedStaging(dir + "/" + n))
        listing.debris.push_back({n, flatBytes(listing.dirFd, n)});
      continue;
    }
    if (!isCacheBundleName(n))
      continue;
    CachedBundle b;
    std::string why = inspect(listing.dirFd, n, b);
    if (!why.empty()) {
      listing.leftAlone.push_back({n, why});
      continue;
    }
    if (!mappedRead)
      mapped = mappedFiles(), mappedRead = true;
    struct stat step;
    std::string stepPath = n + "/step.so";
    if (::fstatat(listing.dirFd, stepPath.c_str(), &step,
                  AT_SYMLINK_NOFOLLOW) == 0) {
      auto it = mapped.find({step.st_dev, step.st_ino});
      if (it != mapped.end())
        b.user = it->second;
    }
    listing.bundles.push_back(b);
  }
  std::stable_sort(listing.bundles.begin(), listing.bundles.end(),
                   [](const CachedBundle &a, const CachedBundle &b) {
                     return a.usedAt > b.usedAt;
                   });
  return true;
}

bool removeCachedBundle(const CacheListing &listing, const CachedBundle &bundle,
                        std::string &error) {
  CachedBundle again;
  std::string why = inspect(listing.dirFd, bundle.name, again);
  if (!why.empty()) {
    error = bundle.name + ": not removed: " + why;
    return false;
  }
  // By name inside the open directory: a file swapped for a symlink since
  // is removed as the link, a directory not at all.
  OpenDirectory d(listing.dirFd, bundle.name);
  for (const char *f : kBundleFiles)
    if (d.fd < 0 || (::unlinkat(d.fd, f, 0) != 0 && errno != ENOENT)) {
      error =
          bundle.name + "/" + f + ": cannot remove: " + std::strerror(errno);
      return false;
    }
  if (::unlinkat(listing.dirFd, bundle.name.c_str(), AT_REMOVEDIR) != 0) {
    error = bundle.name + ": cannot remove: " + std::strerror(errno);
    return false;
  }
  return true;
}

bool removeAbandonedStaging(const CacheListing &listing,
                            const std::string &name) {
  std::string path = listing.dir + "/" + name;
  if (!isStagingName(name) || !runtime::isAbandonedStaging(path))
    return false;
  runtime::removeTree(path);
  return true;
}

} // namespace gptc::commands
