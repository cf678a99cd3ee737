// An ordinary CUDA driver-API program (in the style of NVIDIA's
// vectorAddDrv and matrixMulDrv samples), built against the toolkit's
// cuda.h and linked with -lcuda: it loads a PTX file, runs a vector add
// and a tiled matrix multiply, checks them on the host and prints PASSED.
//
//   driver_sample KERNELS.ptx

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult err_ = (call);                                                    \
    if (err_ != CUDA_SUCCESS) {                                                \
      const char *name_ = nullptr;                                             \
      cuGetErrorName(err_, &name_);                                            \
      std::fprintf(stderr, "%s failed: %s (%d)\n", #call, name_ ? name_ : "?", \
                   (int)err_);                                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

static bool vectorAdd(CUmodule module) {
  CUfunction kernel;
  CHECK(cuModuleGetFunction(&kernel, module, "VecAdd_kernel"));
  int n = 50000;
  size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = rand() / (float)RAND_MAX;
    b[i] = rand() / (float)RAND_MAX;
  }
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, bytes));
  CHECK(cuMemAlloc(&db, bytes));
  CHECK(cuMemAlloc(&dc, bytes));
  CHECK(cuMemcpyHtoD(da, a.data(), bytes));
  CHECK(cuMemcpyHtoD(db, b.data(), bytes));
  int threads = 256, blocks = (n + threads - 1) / threads;
  void *args[] = {&da, &db, &dc, &n};
  CHECK(cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, nullptr, args,
                       nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(c.data(), dc, bytes));
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok &= std::fabs(c[i] - (a[i] + b[i])) <= 1e-7f;
  CHECK(cuMemFree(da));
  CHECK(cuMemFree(db));
  CHECK(cuMemFree(dc));
  std::printf("vectorAdd: %d elements, %d blocks of %d threads: %s\n", n,
              blocks, threads, ok ? "ok" : "MISMATCH");
  return ok;
}

static bool matrixMul(CUmodule module) {
  CUfunction kernel;
  CHECK(cuModuleGetFunction(&kernel, module, "matrixMul_bs16"));
  const int bs = 16, hA = 4 * bs, wA = 3 * bs, wB = 5 * bs;
  std::vector<float> A(hA * wA), B(wA * wB), C(hA * wB);
  for (auto &x : A)
    x = (rand() % 100) / 50.0f - 1;
  for (auto &x : B)
    x = (rand() % 100) / 50.0f - 1;
  CUdeviceptr dA, dB, dC;
  CHECK(cuMemAlloc(&dA, A.size() * 4));
  CHECK(cuMemAlloc(&dB, B.size() * 4));
  CHECK(cuMemAlloc(&dC, C.size() * 4));
  CHECK(cuMemcpyHtoD(dA, A.data(), A.size() * 4));
  CHECK(cuMemcpyHtoD(dB, B.data(), B.size() * 4));
  // The sample's alternative parameter path: one buffer through `extra`.
  struct {
    CUdeviceptr c, a, b;
    int wA, wB;
  } params = {dC, dA, dB, wA, wB};
  size_t size = sizeof(params);
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &params,
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CHECK(cuEventRecord(start, stream));
  CHECK(cuLaunchKernel(kernel, wB / bs, hA / bs, 1, bs, bs, 1, 0, stream,
                       nullptr, extra));
  CHECK(cuEventRecord(stop, stream));
  CHECK(cuEventSynchronize(stop));
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, start, stop));
  CHECK(cuMemcpyDtoHAsync(C.data(), dC, C.size() * 4, stream));
  CHECK(cuStreamSynchronize(stream));
  bool ok = ms >= 0;
  for (int i = 0; i < hA; ++i)
    for (int j = 0; j < wB; ++j) {
      double ref = 0;
      for (int k = 0; k < wA; ++k)
        ref += (double)A[i * wA + k] * B[k * wB + j];
      ok &= std::fabs(C[i * wB + j] - ref) <= 1e-4 * (1 + std::fabs(ref));
    }
  CHECK(cuStreamDestroy(stream));
  CHECK(cuEventDestroy(start));
  CHECK(cuEventDestroy(stop));
  CHECK(cuMemFree(dA));
  CHECK(cuMemFree(dB));
  CHECK(cuMemFree(dC));
  std::printf("matrixMul: (%d x %d) * (%d x %d): %s\n", hA, wA, wA, wB,
              ok ? "ok" : "MISMATCH");
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s KERNELS.ptx\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ptx;
  ptx << in.rdbuf();
  CHECK(cuInit(0));
  int count = 0, version = 0;
  CHECK(cuDeviceGetCount(&count));
  CHECK(cuDriverGetVersion(&version));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  char name[128];
  CHECK(cuDeviceGetName(name, sizeof name, dev));
  int major = 0, minor = 0, sms = 0;
  CHECK(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CHECK(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                             dev));
  size_t total = 0;
  CHECK(cuDeviceTotalMem(&total, dev));
  std::printf("%d device(s); device 0: %s, sm_%d%d, %d SMs, %zu MiB; driver "
              "%d\n",
              count, name, major, minor, sms, total >> 20, version);
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, ptx.str().c_str()));
  bool ok = vectorAdd(module) && matrixMul(module);
  CHECK(cuModuleUnload(module));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
