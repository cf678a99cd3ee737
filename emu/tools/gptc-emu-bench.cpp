//===- gptc-emu-bench.cpp - gptc-emu-bench: thread-instructions per second ===//
//
//   gptc-emu-bench KERNELS.ptx
//
// Runs the attention-like, RMSNorm and elementwise kernels of
// bench/emu-kernels.cu on the emulated device and prints, per kernel, the
// thread-instructions it executed and how many per second (the launch's
// host time, from gptcEmuGetLaunchCounters). bench/emu-throughput.sh runs
// it on one host thread (GPTC_EMU_THREADS=1).
//
//===----------------------------------------------------------------------===//

#include "emu/gptc_emu.h"

#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool ok(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "gptc-emu-bench: %s: %s\n", what, name);
  return false;
}

CUdeviceptr buffer(size_t floats) {
  std::vector<float> host(floats);
  for (size_t i = 0; i < floats; ++i)
    host[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  CUdeviceptr p = 0;
  ok(cuMemAlloc(&p, floats * 4), "cuMemAlloc");
  ok(cuMemcpyHtoD(p, host.data(), floats * 4), "cuMemcpyHtoD");
  return p;
}

/// Launches `name` `repeat` times; prints its rate.
bool bench(CUmodule m, const char *name, unsigned grid, unsigned block,
           std::vector<void *> args, int repeat) {
  CUfunction f;
  if (!ok(cuModuleGetFunction(&f, m, name), name))
    return false;
  uint64_t instructions = 0;
  double seconds = 0;
  for (int i = 0; i < repeat; ++i) {
    if (!ok(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, args.data(),
                           nullptr),
            name))
      return false;
    gptcEmuLaunchCounters c;
    gptcEmuGetLaunchCounters(&c);
    instructions += c.threadInstructions;
    seconds += c.seconds;
  }
  std::printf("%-10s %6u blocks x %4u threads: %12llu thread-instructions "
              "in %7.3f s = %7.1f M thread-instructions/s\n",
              name, grid, block, (unsigned long long)instructions, seconds,
              instructions / seconds * 1e-6);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gptc-emu-bench KERNELS.ptx\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ptx;
  ptx << in.rdbuf();
  CUdevice dev;
  CUcontext ctx;
  CUmodule m;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent") ||
      !ok(cuModuleLoadData(&m, ptx.str().c_str()), "cuModuleLoadData"))
    return 1;
  int rows = 256, keys = 512, cols = 2048, n = 1 << 20;
  CUdeviceptr q = buffer(rows * 64), k = buffer(keys * 64),
              v = buffer(keys * 64), o = buffer(rows * 64);
  CUdeviceptr x = buffer(rows * cols), w = buffer(cols),
              y = buffer(rows * cols);
  CUdeviceptr e = buffer(n), ey = buffer(n);
  bool good =
      bench(m, "attention", rows / 4, 128, {&q, &k, &v, &o, &keys}, 2) &&
      bench(m, "rmsnorm", rows, 256, {&x, &w, &y, &cols}, 2) &&
      bench(m, "silu", 1024, 256, {&e, &ey, &n}, 2);
  return good ? 0 : 1;
}
