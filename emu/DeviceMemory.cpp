//===- DeviceMemory.cpp - The emulated device's address space -------------===//

#include "emu/DeviceMemory.h"

#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>

namespace gptc::emu {

namespace {
/// Virtual bytes reserved for device allocations (address space only).
constexpr uint64_t kReserve = 1ull << 40;
constexpr uint64_t kPage = 4096;

void *reserve(uint64_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr,
                 "gptc-emu: cannot reserve %llu bytes of address "
                 "space\n",
                 (unsigned long long)bytes);
    std::abort();
  }
  return p;
}
} // namespace

DeviceMemory &DeviceMemory::get() {
  // Never destroyed: a real driver serves calls made from other libraries'
  // destructors at exit (a step library unloading its modules), so the
  // emulated one must too.
  static DeviceMemory *instance = new DeviceMemory;
  return *instance;
}

DeviceMemory::DeviceMemory() {
  hostBase = static_cast<uint8_t *>(reserve(kReserve));
  deviceBase = reinterpret_cast<uint64_t>(reserve(kReserve));
  windows = reinterpret_cast<uint64_t>(reserve(2ull << 32));
  next = kPage; // device address 0 + page stays unused: null stays invalid
}

uint64_t DeviceMemory::allocate(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  if (bytes == 0)
    bytes = 1;
  uint64_t span = (bytes + kPage - 1) / kPage * kPage;
  if (inUse + span > kTotalBytes)
    return 0;
  uint64_t off;
  if (next + span + kPage <= kReserve) {
    // Fresh address space first, so a stale pointer stays invalid for as
    // long as possible; a guard page follows every allocation.
    off = next;
    next += span + kPage;
  } else {
    auto it = freed.lower_bound(span);
    if (it == freed.end())
      return 0;
    off = it->second;
    if (it->first > span) // the rest stays free
      freed.emplace(it->first - span, off + span);
    freed.erase(it);
  }
  if (mprotect(hostBase + off, span, PROT_READ | PROT_WRITE) != 0)
    return 0;
  inUse += span;
  allocs[deviceBase + off] = {bytes, hostBase + off};
  return deviceBase + off;
}

bool DeviceMemory::release(uint64_t dev) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocs.find(dev);
  if (it == allocs.end() || dev < deviceBase || dev >= deviceBase + kReserve)
    return false;
  uint64_t span = (it->second.bytes + kPage - 1) / kPage * kPage;
  madvise(it->second.host, span, MADV_DONTNEED);
  mprotect(it->second.host, span, PROT_NONE);
  inUse -= span;
  freed.emplace(span, (uint64_t)(it->second.host - hostBase));
  allocs.erase(it);
  return true;
}

void DeviceMemory::registerHost(void *host, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  allocs[reinterpret_cast<uint64_t>(host)] = {bytes,
                                              static_cast<uint8_t *>(host)};
}

void DeviceMemory::unregisterHost(void *host) {
  std::lock_guard<std::mutex> lock(mutex);
  allocs.erase(reinterpret_cast<uint64_t>(host));
}

bool DeviceMemory::lookup(uint64_t dev, uint64_t &base, uint64_t &size,
                          uint8_t *&host) const {
  auto it = allocs.upper_bound(dev);
  if (it == allocs.begin())
    return false;
  --it;
  if (dev >= it->first + it->second.bytes)
    return false;
  base = it->first;
  size = it->second.bytes;
  host = it->second.host;
  return true;
}

uint8_t *DeviceMemory::translate(uint64_t dev, uint64_t bytes) const {
  auto it = allocs.upper_bound(dev);
  if (it == allocs.begin())
    return nullptr;
  --it;
  uint64_t off = dev - it->first;
  if (off + bytes > it->second.bytes)
    return nullptr;
  return it->second.host + off;
}

} // namespace gptc::emu
