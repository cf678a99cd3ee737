//===- StepCallbacks.h - What a CUDA step.so calls back ---------*- C++ -*-===//
//
// The functions a CUDA bundle's host step.so leaves undefined and binds to
// the process: MLIR's GPU runtime calls (the signatures of MLIR's
// CudaRuntimeWrappers.cpp, with the driver's handles as void *), device
// memory for temporaries and the GEMMs of runtime/gptrt.h on device
// pointers. All run on CudaDevice::current(); errors are kept there
// (CudaDevice::takeError).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CUDA_STEPCALLBACKS_H
#define GPTC_RUNTIME_CUDA_STEPCALLBACKS_H

#include "runtime/gptrt.h"

#include <cstddef>
#include <cstdint>

extern "C" {

/// PTX text (null-terminated) -> CUmodule.
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel, size_t size);
void mgpuModuleUnload(void *module);
/// CUfunction of `name` in `module`.
void *mgpuModuleGetFunction(void *module, const char *name);
/// Launches on the device's stream (whatever `stream` is).
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
/// The device's stream (created once, by CudaDevice::open).
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);

/// Device memory for the step's temporaries (null after an error).
void *gptc_cuda_alloc(size_t bytes);
void gptc_cuda_free(void *ptr);

/// The byte shift from the arena's base at which the step reaches the
/// buffer at arena offset `offset` (gptc-arena-buffer-units): `offset`
/// itself, or, when the buffers were placed apart (GPTC_DEBUG_BUFFERS=1),
/// the distance to its own allocation.
int64_t gptc_cuda_buffer_shift(int64_t offset);

/// runtime/gptrt.h's gptc_gemm_f32 / _bf16 / _bf16_f32 on device
/// pointers, through cuBLASLt (f32 compute, no TF32).
void gptc_cuda_gemm_f32(GPTC_GEMM_ARGS(float));
void gptc_cuda_gemm_bf16(GPTC_GEMM_ARGS(float));
void gptc_cuda_gemm_bf16_f32(GPTC_GEMM_ARGS(float));

} // extern "C"

#endif // GPTC_RUNTIME_CUDA_STEPCALLBACKS_H
