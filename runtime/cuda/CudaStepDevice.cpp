//===- CudaStepDevice.cpp - A step's arena in device memory ---------------===//

#include "runtime/cuda/CudaStepDevice.h"

#include <cstring>

namespace gptc {
namespace runtime {
namespace cuda {

CudaStepDevice::~CudaStepDevice() {
  for (auto &[entry, graph] : graphByEntry)
    device.destroyGraph(graph);
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
  if (!graph || !device.launchGraph(graph, error)) {
    error = std::string(entry) + ": " + error;
    return false;
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
  return upload(0, arena.size(), error);
}

bool CudaStepDevice::upload(int64_t offset, int64_t bytes, std::string &error) {
  return device.upload(base + uint64_t(offset), host->data() + offset,
                       uint64_t(bytes), error);
}

bool CudaStepDevice::downloadRanges(const std::vector<ByteRange> &ranges,
                                    std::string &error) {
  for (const ByteRange &r : ranges)
    if (!device.enqueueDownload(host->data() + r.offset,
                                base + uint64_t(r.offset), uint64_t(r.bytes),
                                error))
      return false;
  return device.synchronize(error);
}

bool CudaStepDevice::zero(int64_t offset, int64_t bytes, std::string &error) {
  std::memset(host->data() + offset, 0, size_t(bytes));
  return device.zero(base + uint64_t(offset), uint64_t(bytes), error);
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
