//===- StepDevice.h - Where a step's arena lives ----------------*- C++ -*-===//
//
// The training loop (Trainer.h) keeps the arena in host memory (Arena.h):
// it initialises the parameters there, the data loader writes each batch
// there, and it reads the loss from there. A StepDevice is where the
// compiled step runs on that arena:
//
//   - HostStepDevice: the CPU; the host arena is the step's arena and
//     every transfer is nothing.
//   - cuda::CudaStepDevice (runtime/cuda/CudaStepDevice.h): a copy of the
//     arena in device memory; the loop uploads what it wrote (the batch,
//     the step counter) and downloads what it reads (the loss, the
//     parameters for the divergence guard and --save-params).
//
// The loop names the byte ranges it touches; nothing else differs between
// the two, so the loop cannot tell which device it drives.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_STEPDEVICE_H
#define GPTC_RUNTIME_STEPDEVICE_H

#include "runtime/Arena.h"
#include "runtime/gptrt.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {

/// Bytes [offset, offset + bytes) of the arena.
struct ByteRange {
  int64_t offset = 0;
  int64_t bytes = 0;
};

class StepDevice {
public:
  virtual ~StepDevice() = default;
  /// "cpu" or the device's description, for the run's first line.
  virtual std::string name() const = 0;
  /// Places `arena` (allocated and initialised) on the device.
  virtual bool attach(Arena &arena, std::string &error) = 0;
  /// Before attach(): the arena's buffer units of the step library
  /// (StepLibrary::bufferUnits; null if none). A device may place each
  /// unit apart (CUDA, GPTC_DEBUG_BUFFERS=1); the default ignores them.
  virtual void useBufferUnits(const int64_t *units) { (void)units; }
  /// The arena descriptor the entry points take.
  virtual gptc_arena_ref *ref() = 0;
  /// Copies bytes [offset, offset + bytes) of the host arena to the device
  /// after the work enqueued before (the host bytes may change on return).
  virtual bool upload(int64_t offset, int64_t bytes, std::string &error) = 0;
  /// Copies each range of the device's arena back to the host's and waits
  /// for them: the one wait for everything enqueued before.
  virtual bool downloadRanges(const std::vector<ByteRange> &ranges,
                              std::string &error) = 0;
  bool download(int64_t offset, int64_t bytes, std::string &error) {
    return downloadRanges({{offset, bytes}}, error);
  }
  /// Zeroes bytes [offset, offset + bytes) on both.
  virtual bool zero(int64_t offset, int64_t bytes, std::string &error) = 0;
  /// After entry point `entry` returned: false and `error` when it failed
  /// to enqueue its work. It does not wait: a kernel that fails on the
  /// device is reported by the next download.
  virtual bool finish(const char *entry, std::string &error) = 0;
  /// Runs entry point `entry` -- `call` calls it on ref() -- then finish().
  /// A device may record the work of the first call and replay it for the
  /// later ones (the step's host code does the same on every call).
  virtual bool run(const char *entry, const std::function<void()> &call,
                   std::string &error) {
    call();
    return finish(entry, error);
  }
};

/// The CPU: the arena is the host's.
class HostStepDevice final : public StepDevice {
public:
  std::string name() const override { return "cpu"; }
  bool attach(Arena &a, std::string &) override {
    arena = &a;
    return true;
  }
  gptc_arena_ref *ref() override { return arena->ref(); }
  bool upload(int64_t, int64_t, std::string &) override { return true; }
  bool downloadRanges(const std::vector<ByteRange> &, std::string &) override {
    return true;
  }
  bool zero(int64_t offset, int64_t bytes, std::string &) override {
    std::memset(arena->data() + offset, 0, size_t(bytes));
    return true;
  }
  bool finish(const char *, std::string &) override { return true; }

private:
  Arena *arena = nullptr;
};

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_STEPDEVICE_H
