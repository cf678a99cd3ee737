//===- CudaDevice.h - The CUDA runtime of gptc ------------------*- C++ -*-===//
//
// The thin CUDA runtime a CUDA bundle's host step.so runs on. Nothing here
// links the CUDA toolkit: libcuda.so.1 (the driver API) and
// libcublasLt.so.13 are opened with dlopen, whichever ones the dynamic
// loader finds first (a GPU's driver, or gptc's emulated device when
// LD_LIBRARY_PATH names build/lib/emu). Nothing here knows which.
//
// The device: device 0, its primary context, one stream for the step.
// A CUDA bundle's step.so calls back into the process for
//   - MLIR's GPU runtime calls (mgpuModuleLoad, mgpuModuleLoadJIT,
//     mgpuModuleGetFunction, mgpuLaunchKernel, mgpuStream*,
//     mgpuModuleUnload),
//   - gptc_cuda_alloc / gptc_cuda_free (temporaries in device memory),
//   - gptc_cuda_gemm_f32 / _bf16 (runtime/gptrt.h's GEMM contract, on
//     device pointers, through cuBLASLt),
// all defined in this library and exported by the executables that link
// it. Those calls cannot return errors to the step: the first error is
// kept (naming the call and, for a launch, the kernel) and returned by
// CudaDevice::takeError() after the entry point returns; later calls do
// nothing until it is taken.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_CUDADEVICE_H
#define GPTC_RUNTIME_CUDA_CUDADEVICE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace gptc {
namespace runtime {
namespace cuda {

/// The process's CUDA device (a singleton: the step's callbacks use it).
class CudaDevice {
public:
  /// Opens libcuda.so.1 and libcublasLt.so.13 (once per process), then
  /// device 0 and its primary context. Without a driver: null and one line
  ///   no CUDA driver: libcuda.so.1 not found (...); to run on gptc's
  ///   emulated device: LD_LIBRARY_PATH=build/lib/emu gptc train ...
  static CudaDevice *open(std::string &error);
  /// The device open() made, or null.
  static CudaDevice *current();

  /// "NVIDIA H100 80GB HBM3, sm_90" (cuDeviceGetName + compute capability).
  const std::string &description() const;

  /// Device memory (cuMemAlloc); 0 and `error` on failure.
  uint64_t allocate(uint64_t bytes, std::string &error);
  void release(uint64_t ptr);
  /// A copy to the device and a memset, enqueued on the step's stream
  /// after the work before them; `src` may be reused on return.
  bool upload(uint64_t dst, const void *src, uint64_t bytes,
              std::string &error);
  bool zero(uint64_t dst, uint64_t bytes, std::string &error);
  /// A copy back, enqueued on the step's stream: `dst` holds it after the
  /// next synchronize().
  bool enqueueDownload(void *dst, uint64_t src, uint64_t bytes,
                       std::string &error);
  /// enqueueDownload, then synchronize().
  bool download(void *dst, uint64_t src, uint64_t bytes, std::string &error);
  /// Waits for the step's stream; returns false with the first error a
  /// callback kept or the synchronisation's own.
  bool synchronize(std::string &error);

  /// Records what `enqueue` puts on the step's stream as a CUDA graph
  /// (stream capture) and returns its executable graph, or null with
  /// `error` (the capture's, or the first error a callback kept).
  void *captureGraph(const std::function<void()> &enqueue, std::string &error);
  /// Enqueues an executable graph of captureGraph on the step's stream.
  /// With `milliseconds`, also times the replay with CUDA events recorded
  /// on the stream before and after it, waiting for the second: the
  /// graph's device time (GPTC_CUDA_GRAPH_TIMES, CudaStepDevice.h).
  bool launchGraph(void *graph, std::string &error,
                   float *milliseconds = nullptr);
  void destroyGraph(void *graph);

  /// The first error kept by a callback since the last take ("" if none).
  std::string takeError();

  /// The driver-level state (DeviceState.h), for the step's callbacks.
  struct State;
  State &state() { return *deviceState; }

private:
  explicit CudaDevice(State *deviceState) : deviceState(deviceState) {}
  State *deviceState;
};

} // namespace cuda
} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CUDA_CUDADEVICE_H
