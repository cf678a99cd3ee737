//===- CudaStepDevice.h - A step's arena in device memory -------*- C++ -*-===//
//
// The StepDevice (runtime/StepDevice.h) of a CUDA bundle: the arena in
// device memory of the process's CudaDevice, transfers with its
// synchronous copies, and after every entry point a synchronisation that
// reports the first error the step's callbacks kept (naming the call and
// the kernel).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_CUDASTEPDEVICE_H
#define GPTC_RUNTIME_CUDA_CUDASTEPDEVICE_H

#include "runtime/StepDevice.h"
#include "runtime/cuda/CudaDevice.h"

#include <functional>
#include <map>
#include <vector>

namespace gptc {
namespace runtime {
namespace cuda {

class CudaStepDevice final : public StepDevice {
public:
  explicit CudaStepDevice(CudaDevice &device) : device(device) {}
  ~CudaStepDevice() override;

  std::string name() const override { return device.description(); }
  bool attach(Arena &arena, std::string &error) override;
  gptc_arena_ref *ref() override { return &descriptor; }
  bool upload(int64_t offset, int64_t bytes, std::string &error) override;
  bool downloadRanges(const std::vector<ByteRange> &ranges,
                      std::string &error) override;
  bool zero(int64_t offset, int64_t bytes, std::string &error) override;
  bool finish(const char *entry, std::string &error) override;
  /// With graphs on: the first call of each entry point is captured as a
  /// CUDA graph, and every call launches that graph (one driver call for
  /// the step's hundreds of launches).
  bool run(const char *entry, const std::function<void()> &call,
           std::string &error) override;
  /// Graphs need every call of the step on the one stream: off for jobs
  /// of several ranks (NCCL's calls) and with GPTC_CUDA_GRAPHS=0.
  void useGraphs(bool on) { graphs = on; }
  /// GPTC_DEBUG_BUFFERS=1: every buffer unit of the step library in an
  /// allocation of its own (the step reaches it through
  /// gptc_cuda_buffer_shift), so that a kernel writing past a buffer
  /// leaves its allocation and the driver reports it with the kernel's
  /// name; the rest of the arena stays in one allocation.
  void placeBuffersApart(bool on) { apart = on; }
  void useBufferUnits(const int64_t *table) override { units = table; }

private:
  CudaDevice &device;
  Arena *host = nullptr;
  uint64_t base = 0;
  gptc_arena_ref descriptor = {nullptr, nullptr, 0, 0, 1};
  bool graphs = false, apart = false;
  const int64_t *units = nullptr;
  std::vector<uint64_t> unitAllocations;
  /// `fn(device address, arena offset, bytes)` for each piece of
  /// [offset, offset + bytes): a unit's allocation or the arena's.
  bool forEachPiece(int64_t offset, int64_t bytes,
                    const std::function<bool(uint64_t, int64_t, int64_t)> &fn);
  std::map<std::string, void *> graphByEntry;
};

} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CUDA_CUDASTEPDEVICE_H
