//===- DriverMemory.cpp - Memory, stream, event and error entry points ----===//
//
// Copies and memsets check that every device range lies inside one live
// allocation (CUDA_ERROR_INVALID_VALUE otherwise). Streams and events are
// in order by construction: work runs when submitted, an event records the
// host time of its submission.
//
//===----------------------------------------------------------------------===//

#include "emu/DeviceMemory.h"
#include "emu/DriverState.h"
#include "emu/gptc_emu.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using namespace gptc::emu;

#define REQUIRE_INIT()                                                         \
  if (!driverInitialized())                                                    \
    return CUDA_ERROR_NOT_INITIALIZED;

namespace {
uint8_t *devicePtr(CUdeviceptr p, size_t bytes) {
  return bytes == 0 ? reinterpret_cast<uint8_t *>(1)
                    : DeviceMemory::get().translate(p, bytes);
}

CUresult copyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  REQUIRE_INIT();
  uint8_t *d = devicePtr(dst, bytes);
  if (!d || (!src && bytes))
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes)
    std::memcpy(d, src, bytes);
  return CUDA_SUCCESS;
}

CUresult copyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  REQUIRE_INIT();
  uint8_t *s = devicePtr(src, bytes);
  if (!s || (!dst && bytes))
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes)
    std::memcpy(dst, s, bytes);
  return CUDA_SUCCESS;
}

CUresult copyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  REQUIRE_INIT();
  uint8_t *d = devicePtr(dst, bytes), *s = devicePtr(src, bytes);
  if (!d || !s)
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes)
    std::memmove(d, s, bytes);
  return CUDA_SUCCESS;
}
} // namespace

extern "C" {

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes) {
  REQUIRE_INIT();
  traceCall("cuMemAlloc", bytes);
  if (!dptr || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t a = DeviceMemory::get().allocate(bytes);
  if (!a)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = a;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr dptr) {
  REQUIRE_INIT();
  traceCall("cuMemFree");
  if (dptr == 0)
    return CUDA_SUCCESS;
  return DeviceMemory::get().release(dptr) ? CUDA_SUCCESS
                                           : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetInfo(size_t *freeBytes, size_t *total) {
  REQUIRE_INIT();
  if (total)
    *total = DeviceMemory::kTotalBytes;
  if (freeBytes)
    *freeBytes = DeviceMemory::kTotalBytes - DeviceMemory::get().bytesInUse();
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int) {
  REQUIRE_INIT();
  if (!pp)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  DeviceMemory::get().registerHost(p, bytes);
  *pp = p;
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost(void **pp, size_t bytes) {
  return cuMemHostAlloc(pp, bytes, 0);
}

CUresult cuMemFreeHost(void *p) {
  REQUIRE_INIT();
  DeviceMemory::get().unregisterHost(p);
  std::free(p);
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int) {
  REQUIRE_INIT();
  if (!pdptr)
    return CUDA_ERROR_INVALID_VALUE;
  *pdptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  traceCall("cuMemcpyHtoD", bytes);
  return copyHtoD(dst, src, bytes);
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  traceCall("cuMemcpyDtoH", bytes);
  return copyDtoH(dst, src, bytes);
}

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  traceCall("cuMemcpyDtoD", bytes);
  return copyDtoD(dst, src, bytes);
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  traceCall("cuMemcpy", bytes);
  return copyDtoD(dst, src, bytes);
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
                           CUstream stream) {
  traceCall("cuMemcpyHtoDAsync", bytes);
  // Captured: the host bytes are read when the graph runs, as on a GPU.
  if (recordOnCapture(stream, [=] { return copyHtoD(dst, src, bytes); }))
    return CUDA_SUCCESS;
  return copyHtoD(dst, src, bytes);
}
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                           CUstream stream) {
  traceCall("cuMemcpyDtoHAsync", bytes);
  if (recordOnCapture(stream, [=] { return copyDtoH(dst, src, bytes); }))
    return CUDA_SUCCESS;
  return copyDtoH(dst, src, bytes);
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                           CUstream stream) {
  traceCall("cuMemcpyDtoDAsync", bytes);
  if (recordOnCapture(stream, [=] { return copyDtoD(dst, src, bytes); }))
    return CUDA_SUCCESS;
  return copyDtoD(dst, src, bytes);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream stream) {
  traceCall("cuMemcpyAsync", bytes);
  if (recordOnCapture(stream, [=] { return copyDtoD(dst, src, bytes); }))
    return CUDA_SUCCESS;
  return copyDtoD(dst, src, bytes);
}

} // extern "C"

namespace {
template <class T> CUresult memsetN(CUdeviceptr dst, T value, size_t n) {
  REQUIRE_INIT();
  if (dst % sizeof(T))
    return CUDA_ERROR_INVALID_VALUE;
  uint8_t *d = devicePtr(dst, n * sizeof(T));
  if (!d)
    return CUDA_ERROR_INVALID_VALUE;
  T *p = reinterpret_cast<T *>(d);
  for (size_t i = 0; i < n; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}
} // namespace

extern "C" {

CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  traceCall("cuMemsetD8", n * sizeof(uint8_t));
  return memsetN<uint8_t>(d, v, n);
}
CUresult cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) {
  traceCall("cuMemsetD16", n * sizeof(uint16_t));
  return memsetN<uint16_t>(d, v, n);
}
CUresult cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n) {
  traceCall("cuMemsetD32", n * sizeof(uint32_t));
  return memsetN<uint32_t>(d, v, n);
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n,
                         CUstream stream) {
  traceCall("cuMemsetD8Async", n * sizeof(uint8_t));
  if (recordOnCapture(stream, [=] { return memsetN<uint8_t>(d, v, n); }))
    return CUDA_SUCCESS;
  return memsetN<uint8_t>(d, v, n);
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n,
                          CUstream stream) {
  traceCall("cuMemsetD16Async", n * sizeof(uint16_t));
  if (recordOnCapture(stream, [=] { return memsetN<uint16_t>(d, v, n); }))
    return CUDA_SUCCESS;
  return memsetN<uint16_t>(d, v, n);
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n,
                          CUstream stream) {
  traceCall("cuMemsetD32Async", n * sizeof(uint32_t));
  if (recordOnCapture(stream, [=] { return memsetN<uint32_t>(d, v, n); }))
    return CUDA_SUCCESS;
  return memsetN<uint32_t>(d, v, n);
}

CUresult cuStreamCreate(CUstream *ph, unsigned int flags) {
  REQUIRE_INIT();
  if (!ph)
    return CUDA_ERROR_INVALID_VALUE;
  *ph = new CUstream_st{flags};
  return CUDA_SUCCESS;
}
CUresult cuStreamCreateWithPriority(CUstream *ph, unsigned int flags, int) {
  return cuStreamCreate(ph, flags);
}
CUresult cuStreamDestroy(CUstream h) {
  REQUIRE_INIT();
  // A stream drawn into a capture leaves it (the capture must not end by
  // touching a freed stream); its recorded work stays in the graph.
  if (h && h->capture && h->capture->origin != h) {
    h->capture->submitted.erase(h);
    h->capture->seen.erase(h);
    for (auto &[member, seen] : h->capture->seen)
      seen.erase(h);
  }
  delete h;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream stream) {
  REQUIRE_INIT();
  traceCall("cuStreamSynchronize");
  // Waiting inside a capture: not allowed, and the capture is invalid.
  if (stream && stream->capture) {
    stream->capture->error = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  return takeDeferredError();
}
CUresult cuStreamQuery(CUstream) {
  REQUIRE_INIT();
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int) {
  REQUIRE_INIT();
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  // Work runs when it is submitted: the event has happened. In a capture
  // the wait is an edge of the graph (and may draw the stream in).
  return joinCaptureOnWait(stream, event);
}

CUresult cuEventCreate(CUevent *ph, unsigned int) {
  REQUIRE_INIT();
  if (!ph)
    return CUDA_ERROR_INVALID_VALUE;
  *ph = new CUevent_st;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent h) {
  REQUIRE_INIT();
  delete h;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent h, CUstream stream) {
  REQUIRE_INIT();
  if (!h)
    return CUDA_ERROR_INVALID_HANDLE;
  noteEventRecord(h, stream);
  if (h->capture)
    return CUDA_SUCCESS; // a node of the graph, not a time
  h->ns = hostNs();
  h->recorded = true;
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent h) {
  REQUIRE_INIT();
  traceCall("cuEventSynchronize");
  if (!h)
    return CUDA_ERROR_INVALID_HANDLE;
  return takeDeferredError();
}
CUresult cuEventQuery(CUevent h) {
  REQUIRE_INIT();
  return h ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  REQUIRE_INIT();
  if (!ms || !start || !end)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!start->recorded || !end->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms = (float)((double)(end->ns - start->ns) * 1e-6);
  return CUDA_SUCCESS;
}

void *gptcEmuTranslate(uint64_t dev, uint64_t bytes) {
  return DeviceMemory::get().translate(dev, bytes);
}

CUresult cuGetErrorName(CUresult error, const char **str);
CUresult cuGetErrorString(CUresult error, const char **str);

} // extern "C"
