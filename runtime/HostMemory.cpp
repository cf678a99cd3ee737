//===- HostMemory.cpp - Whether a run fits this machine's memory ----------===//

#include "runtime/HostMemory.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace gptc {
namespace runtime {

namespace {

/// The first number in the file `path` ("max" and a missing file: -1).
int64_t readNumber(const std::string &path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max")
    return -1;
  char *end = nullptr;
  long long v = std::strtoll(word.c_str(), &end, 10);
  return end && *end == 0 && v >= 0 ? int64_t(v) : -1;
}

/// The value of `key` in a memory.stat file (0 when absent).
int64_t statValue(const std::string &path, const std::string &key) {
  std::ifstream in(path);
  std::string k;
  int64_t v = 0;
  while (in >> k >> v)
    if (k == key)
      return v;
  return 0;
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// One hierarchy's files: v2 or v1 names.
struct CgroupFiles {
  const char *limit, *usage, *inactive;
};
constexpr CgroupFiles kV2 = {"memory.max", "memory.current", "inactive_file"};
constexpr CgroupFiles kV1 = {"memory.limit_in_bytes", "memory.usage_in_bytes",
                             "total_inactive_file"};

/// The least room left in `mount` + `path` and every cgroup above it up to
/// `mount`, into `best` (when less than it).
void walkCgroups(const std::string &mount, std::string path,
                 const CgroupFiles &files, AvailableMemory &best) {
  if (!isDirectory(mount))
    return;
  // A container sees its own cgroup as the mount's root: the path
  // /proc/self/cgroup names may not be under the mount.
  if (!isDirectory(mount + path))
    path = "";
  for (;;) {
    const std::string dir = mount + path;
    int64_t limit = readNumber(dir + "/" + files.limit);
    // v1 says "no limit" as a huge number (PAGE_COUNTER_MAX pages).
    if (limit >= 0 && limit < (int64_t(1) << 60)) {
      int64_t used = std::max<int64_t>(
          0, readNumber(dir + "/" + files.usage) -
                 statValue(dir + "/memory.stat", files.inactive));
      int64_t left = std::max<int64_t>(limit - used, 0);
      if (best.bytes < 0 || left < best.bytes)
        best = {left, "this process's memory cgroup (limit " +
                          memoryText(limit) + ", " + dir + ") leaves " +
                          memoryText(left)};
    }
    if (path.empty() || path == "/")
      return;
    path = path.substr(0, path.find_last_of('/'));
  }
}

} // namespace

AvailableMemory availableMemory(const std::string &root) {
  AvailableMemory best;
  {
    std::ifstream in(root + "/proc/meminfo");
    std::string key, unit;
    int64_t kib = 0;
    while (in >> key >> kib >> unit)
      if (key == "MemAvailable:") {
        best = {kib * 1024,
                "this machine has " + memoryText(kib * 1024) + " available"};
        break;
      }
  }
  std::ifstream in(root + "/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    // ID:CONTROLLERS:PATH; v2 is 0::PATH.
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos)
      continue;
    std::string id = line.substr(0, a),
                controllers = line.substr(a + 1, b - a - 1),
                path = line.substr(b + 1);
    if (id == "0" && controllers.empty()) {
      const std::string unified = root + "/sys/fs/cgroup";
      walkCgroups(isDirectory(unified + "/unified") ? unified + "/unified"
                                                    : unified,
                  path, kV2, best);
    } else if (("," + controllers + ",").find(",memory,") !=
               std::string::npos) {
      walkCgroups(root + "/sys/fs/cgroup/memory", path, kV1, best);
    }
  }
  return best;
}

int64_t availableMemoryBytes() { return availableMemory().bytes; }

std::string memoryText(int64_t bytes) {
  char buf[64];
  if (bytes >= (int64_t(1) << 30))
    std::snprintf(buf, sizeof(buf), "%.2f GiB",
                  double(bytes) / double(int64_t(1) << 30));
  else
    std::snprintf(buf, sizeof(buf), "%.1f MiB",
                  double(bytes) / double(1 << 20));
  return buf;
}

bool checkRunFits(int64_t arenaBytes, int64_t localRanks, std::string &error) {
  const AvailableMemory memory = availableMemory();
  const int64_t available = memory.bytes;
  const int64_t perRank = arenaBytes + kRuntimeOverheadBytes;
  if (available < 0 || perRank * localRanks <= available)
    return true;
  error =
      "the run needs " + memoryText(perRank) + " per rank (its arena " +
      memoryText(arenaBytes) + " + about " + memoryText(kRuntimeOverheadBytes) +
      " of runtime)" +
      (localRanks > 1
           ? " x " + std::to_string(localRanks) +
                 " ranks on this machine = " + memoryText(perRank * localRanks)
           : std::string()) +
      " and " + memory.described +
      ": fewer tokens per rank (training.device_batch or "
      "training.seq_len) or more machines; gptc check SPEC shows the "
      "split; --force-memory runs it anyway";
  return false;
}

} // namespace runtime
} // namespace gptc
