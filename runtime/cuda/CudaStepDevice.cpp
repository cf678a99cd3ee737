//===- CudaStepDevice.cpp - A step's arena in device memory ---------------===//

#include "runtime/cuda/CudaStepDevice.h"

#include "runtime/comm/Collectives.h"
#include "runtime/cuda/DeviceState.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gptc {
namespace runtime {
namespace cuda {

CudaStepDevice::~CudaStepDevice() {
  for (auto &[entry, graph] : graphByEntry)
    device.destroyGraph(graph);
  CudaDevice::State &s = device.state();
  s.unitBegin.clear();
  s.unitEnd.clear();
  s.unitPtr.clear();
  for (uint64_t p : unitAllocations)
    device.release(p);
  if (base)
    device.release(base);
}

bool CudaStepDevice::run(const char *entry, const std::function<void()> &call,
                         std::string &error) {
  if (!graphs)
    return StepDevice::run(entry, call, error);
  void *&graph = graphByEntry[entry];
  if (!graph)
    graph = device.captureGraph(call, error);
  // GPTC_CUDA_GRAPH_TIMES=FILE: each replay's device time, from CUDA
  // events around it, appended to FILE as "ENTRY MILLISECONDS" (the host
  // waits for each replay's end: a measurement, not a training mode).
  static const char *times = std::getenv("GPTC_CUDA_GRAPH_TIMES");
  float ms = 0;
  bool timed = times && *times;
  // A replay's collectives report their own errors only through the
  // communicator: read it after each replay, and name it with a failure.
  std::string collectives;
  comm::Collectives &ranks = comm::Collectives::get();
  bool launched = false;
  if (graph) {
    // A replay runs no host code; its NCCL calls may block the launch (a
    // full queue, a device that runs it at once) until the other ranks
    // join: watched, as the wait for its end in downloadRanges.
    comm::Collectives::DeviceWait watched(ranks);
    launched = device.launchGraph(graph, error, timed ? &ms : nullptr);
  }
  if (!launched) {
    error = std::string(entry) + ": " + error;
    if (!ranks.deviceHealthy(collectives))
      error += " (" + collectives + ")";
    return false;
  }
  if (!ranks.deviceHealthy(collectives)) {
    error = std::string(entry) + ": " + collectives;
    return false;
  }
  if (timed)
    if (FILE *f = std::fopen(times, "a")) {
      std::fprintf(f, "%s %.4f\n", entry, double(ms));
      std::fclose(f);
    }
  return finish(entry, error);
}

bool CudaStepDevice::attach(Arena &arena, std::string &error) {
  host = &arena;
  base = device.allocate(uint64_t(arena.size()), error);
  if (!base)
    return false;
  auto *p = reinterpret_cast<uint8_t *>(uintptr_t(base));
  descriptor = {p, p, 0, arena.size(), 1};
  if (apart) {
    if (!units) {
      error = "GPTC_DEBUG_BUFFERS: the step library has no buffer table "
              "(gptc_buffer_units); compile the bundle again";
      return false;
    }
    CudaDevice::State &s = device.state();
    for (int64_t i = 0; i < units[0]; ++i) {
      int64_t begin = units[1 + 2 * i], end = units[2 + 2 * i];
      if (begin < 0 || end <= begin || end > arena.size() ||
          (i && begin < s.unitEnd.back())) {
        error = "GPTC_DEBUG_BUFFERS: buffer unit " + std::to_string(i) + " [" +
                std::to_string(begin) + ", " + std::to_string(end) +
                ") is not in order inside the arena";
        return false;
      }
      uint64_t ptr = device.allocate(uint64_t(end - begin), error);
      if (!ptr)
        return false;
      unitAllocations.push_back(ptr);
      s.unitBegin.push_back(begin);
      s.unitEnd.push_back(end);
      s.unitPtr.push_back(ptr);
    }
    s.arenaBase = base;
  }
  // The slots are copied; the workspace (temporaries, written before they
  // are read) is only zeroed on the device, never staged on the host.
  int64_t slots = arena.slotBytes();
  return forEachPiece(slots, arena.size() - slots,
                      [&](uint64_t dst, int64_t, int64_t n) {
                        return device.zero(dst, uint64_t(n), error);
                      }) &&
         upload(0, slots, error);
}

bool CudaStepDevice::forEachPiece(
    int64_t offset, int64_t bytes,
    const std::function<bool(uint64_t, int64_t, int64_t)> &fn) {
  const CudaDevice::State &s = device.state();
  int64_t end = offset + bytes;
  while (offset < end) {
    auto next =
        std::upper_bound(s.unitBegin.begin(), s.unitBegin.end(), offset);
    size_t i = size_t(next - s.unitBegin.begin());
    if (i > 0 && offset < s.unitEnd[i - 1]) {
      int64_t stop = std::min(end, s.unitEnd[i - 1]);
      if (!fn(s.unitPtr[i - 1] + uint64_t(offset - s.unitBegin[i - 1]), offset,
              stop - offset))
        return false;
      offset = stop;
      continue;
    }
    int64_t stop = next == s.unitBegin.end() ? end : std::min(end, *next);
    if (!fn(base + uint64_t(offset), offset, stop - offset))
      return false;
    offset = stop;
  }
  return true;
}

bool CudaStepDevice::upload(int64_t offset, int64_t bytes, std::string &error) {
  return forEachPiece(offset, bytes, [&](uint64_t dst, int64_t at, int64_t n) {
    return device.upload(dst, host->data() + at, uint64_t(n), error);
  });
}

bool CudaStepDevice::downloadRanges(const std::vector<ByteRange> &ranges,
                                    std::string &error) {
  for (const ByteRange &r : ranges)
    if (!forEachPiece(r.offset, r.bytes,
                      [&](uint64_t src, int64_t at, int64_t n) {
                        return device.enqueueDownload(host->data() + at, src,
                                                      uint64_t(n), error);
                      }))
      return false;
  // The step's collectives on the device wait for the other ranks here.
  comm::Collectives::DeviceWait watched(comm::Collectives::get());
  return device.synchronize(error);
}

bool CudaStepDevice::zero(int64_t offset, int64_t bytes, std::string &error) {
  std::memset(host->data() + offset, 0, size_t(bytes));
  return forEachPiece(offset, bytes, [&](uint64_t dst, int64_t, int64_t n) {
    return device.zero(dst, uint64_t(n), error);
  });
}

bool CudaStepDevice::finish(const char *entry, std::string &error) {
  error = device.takeError();
  if (error.empty())
    return true;
  error = std::string(entry) + ": " + error;
  return false;
}

} // namespace cuda
} // namespace runtime
} // namespace gptc
