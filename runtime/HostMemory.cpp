//===- HostMemory.cpp - Whether a run fits this machine's memory ----------===//

#include "runtime/HostMemory.h"

#include <cstdio>
#include <fstream>

namespace gptc {
namespace runtime {

int64_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  int64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:")
      return kib * 1024;
  return 0;
}

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
  const int64_t available = availableMemoryBytes();
  const int64_t perRank = arenaBytes + kRuntimeOverheadBytes;
  if (available <= 0 || perRank * localRanks <= available)
    return true;
  error =
      "the run needs " + memoryText(perRank) + " per rank (its arena " +
      memoryText(arenaBytes) + " + about " + memoryText(kRuntimeOverheadBytes) +
      " of runtime)" +
      (localRanks > 1
           ? " x " + std::to_string(localRanks) +
                 " ranks on this machine = " + memoryText(perRank * localRanks)
           : std::string()) +
      " and this machine has " + memoryText(available) +
      " available: fewer tokens per rank (training.device_batch or "
      "training.seq_len) or more machines; gptc check SPEC shows the "
      "split; --force-memory runs it anyway";
  return false;
}

} // namespace runtime
} // namespace gptc
