//===- HostMemory.h - Whether a run fits this machine's memory --*- C++ -*-===//
//
// A CPU rank needs its step's arena (the manifest's arena_bytes: parameters,
// gradients, optimizer state, batch and the step's workspace, as the
// pipeline planned it) plus the runtime's own memory. `gptc check` prints
// that sum against what the machine has available; `gptc train` refuses a
// run whose ranks on this machine need more than that, before allocating
// anything (a run that would be killed by the OOM killer mid-step, or
// swap for hours, is worse than one line now).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_HOSTMEMORY_H
#define GPTC_RUNTIME_HOSTMEMORY_H

#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {

/// The runtime's memory beside the arena on the CPU: libraries, the data
/// loader, the GEMMs' buffers. Measured: `gptc train` of tiny-r08 peaks
/// at 113.7 MiB of RSS with a 12.8 MiB arena.
constexpr int64_t kRuntimeOverheadBytes = int64_t(100) << 20;

/// The memory a run can have now, and what sets it.
struct AvailableMemory {
  int64_t bytes = -1; ///< -1 when unknown
  /// "this machine has 22.99 GiB available", or "this process's memory
  /// cgroup (limit 600.0 MiB, /sys/fs/cgroup/...) leaves 512.3 MiB".
  std::string described;
};

/// The least of /proc/meminfo's MemAvailable and, for this process's
/// memory cgroup and every cgroup above it, its limit less its usage
/// (page cache it can reclaim, inactive_file, not counted as used): v2's
/// memory.max and memory.current, v1's memory.limit_in_bytes and
/// memory.usage_in_bytes. A container's memory limit is such a cgroup.
/// `root` prefixes every path read (tests give a fake /proc and /sys).
AvailableMemory availableMemory(const std::string &root = "");

/// availableMemory().bytes (-1 when unknown).
int64_t availableMemoryBytes();

/// "1.2 GiB" or "340.5 MiB".
std::string memoryText(int64_t bytes);

/// Whether `localRanks` CPU ranks of `arenaBytes` each (plus the runtime's
/// own) fit in the memory available now; false with `error` saying what the
/// run needs, what there is and what to change. True when the available
/// memory is unknown.
bool checkRunFits(int64_t arenaBytes, int64_t localRanks, std::string &error);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_HOSTMEMORY_H
