//===- DeviceMemory.h - The emulated device's address space -----*- C++ -*-===//
//
// Device allocations live at addresses the host cannot dereference: the
// emulator reserves a device range with PROT_NONE and hands out addresses
// inside it, backed by a second (host) range at the same offset; a kernel's
// access is translated by that offset after being checked against the live
// allocations. Freed ranges become inaccessible and are handed out again
// only when the fresh part of the 1 TiB range is used up, so a late access
// is reported, not served. Generic addresses of shared and local
// memory fall in two more reserved windows.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_DEVICEMEMORY_H
#define GPTC_EMU_DEVICEMEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace gptc::emu {

class DeviceMemory {
public:
  static DeviceMemory &get();

  /// Allocates `bytes` (256-byte aligned); 0 when out of memory.
  uint64_t allocate(uint64_t bytes);
  /// Frees an allocation; false when `dev` is not the start of one.
  bool release(uint64_t dev);
  /// Makes host memory (cuMemAllocHost) addressable by kernels at its own
  /// address.
  void registerHost(void *host, uint64_t bytes);
  void unregisterHost(void *host);

  /// Host pointer of [dev, dev+bytes) if it lies inside one live
  /// allocation, else null. Not synchronised with allocate/release: the
  /// driver runs launches synchronously.
  uint8_t *translate(uint64_t dev, uint64_t bytes) const;
  /// The allocation containing `dev`: its device base, size and host base
  /// (false: none).
  bool lookup(uint64_t dev, uint64_t &base, uint64_t &size,
              uint8_t *&host) const;

  uint64_t bytesInUse() const { return inUse; }
  static constexpr uint64_t kTotalBytes = 80ull << 30;

  /// Generic-address windows of shared and local memory (4 GiB each).
  uint64_t sharedWindow() const { return windows; }
  uint64_t localWindow() const { return windows + (1ull << 32); }

private:
  DeviceMemory();
  struct Allocation {
    uint64_t bytes;
    uint8_t *host;
  };
  std::map<uint64_t, Allocation> allocs;
  /// Released ranges (span -> offset), reused once the fresh address
  /// space is used up.
  std::multimap<uint64_t, uint64_t> freed;
  uint8_t *hostBase = nullptr;
  uint64_t deviceBase = 0, next = 0, inUse = 0, windows = 0;
  mutable std::mutex mutex;
};

} // namespace gptc::emu

#endif
