//===- gptc-emu-run.cpp - gptc-emu-run: load and run PTX on the emulator --===//
//
//   gptc-emu-run [--run] [--max-blocks N] PTX... | --jobs FILE
//
// Loads every PTX file with cuModuleLoadData (so every opcode must decode)
// and, with --run, launches every .entry once with random inputs under the
// emulator's memory checks. A jobs file gives, per line, a PTX file and its
// launch: `FILE GX GY GZ BX BY BZ BYTES` (BYTES: the size of the buffer
// each pointer parameter gets); without one, kernels run one block of
// one thread with 16 MiB buffers. --max-blocks caps a grid's blocks (the
// grid keeps its shape, trimmed from the last dimension). Prints a summary,
// every failure, and the thread-instructions per second.
//
//===----------------------------------------------------------------------===//

#include "emu/PtxParser.h"
#include "emu/gptc_emu.h"

#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace gptc::emu;

namespace {

struct Job {
  std::string file;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint64_t bytes = 16u << 20;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char *errorName(CUresult r) {
  const char *name = "?";
  cuGetErrorName(r, &name);
  return name;
}

/// Buffers whose first 64 KiB hold random small words (valid as indices
/// and as f32/bf16 data; the rest is zero)
/// for the pointer parameters; scalars get 1 (integers) or 0.5 (floats).
bool runKernel(const Job &job, CUmodule module, const Function &fn,
               uint64_t maxBlocks, std::mt19937 &rng, std::string &why) {
  CUfunction f;
  CUresult r = cuModuleGetFunction(&f, module, fn.name.c_str());
  if (r != CUDA_SUCCESS) {
    why = std::string("cuModuleGetFunction: ") + errorName(r);
    return false;
  }
  std::vector<CUdeviceptr> buffers;
  std::vector<std::vector<uint8_t>> values(fn.params.size());
  std::vector<void *> args;
  size_t fill = std::min<uint64_t>(job.bytes, 64u << 10) / 4;
  std::vector<uint32_t> words(fill);
  for (size_t i = 0; i < fn.params.size(); ++i) {
    std::vector<uint8_t> &v = values[i];
    v.assign(fn.params[i].second, 0);
    if (fn.paramIsPtr[i]) {
      CUdeviceptr p;
      if (cuMemAlloc(&p, job.bytes) != CUDA_SUCCESS) {
        why = "cuMemAlloc failed";
        return false;
      }
      for (uint32_t &w : words)
        w = rng() % 32;
      cuMemcpyHtoD(p, words.data(), words.size() * 4);
      buffers.push_back(p);
      std::memcpy(v.data(), &p, std::min<size_t>(8, v.size()));
    } else if (fn.paramTy[i] == Ty::F32) {
      float h = 0.5f;
      std::memcpy(v.data(), &h, 4);
    } else if (fn.paramTy[i] == Ty::F64) {
      double h = 0.5;
      std::memcpy(v.data(), &h, 8);
    } else if (!v.empty()) {
      v[0] = 1;
    }
    args.push_back(v.data());
  }
  unsigned grid[3] = {job.grid[0], job.grid[1], job.grid[2]};
  for (int d = 2; d >= 0; --d)
    while ((uint64_t)grid[0] * grid[1] * grid[2] > maxBlocks && grid[d] > 1)
      grid[d] = std::max<uint64_t>(
          1, maxBlocks / ((uint64_t)grid[0] * grid[1] * grid[2] / grid[d]));
  r = cuLaunchKernel(f, grid[0], grid[1], grid[2], job.block[0], job.block[1],
                     job.block[2], 0, nullptr, args.data(), nullptr);
  for (CUdeviceptr p : buffers)
    cuMemFree(p);
  if (r != CUDA_SUCCESS) {
    cuCtxSynchronize(); // clears the launch's error
    why = std::string("cuLaunchKernel: ") + errorName(r);
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  bool run = false;
  uint64_t maxBlocks = UINT64_MAX;
  std::vector<Job> jobs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--run") {
      run = true;
    } else if (a == "--max-blocks" && i + 1 < argc) {
      maxBlocks = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--jobs" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      Job j;
      while (in >> j.file >> j.grid[0] >> j.grid[1] >> j.grid[2] >>
             j.block[0] >> j.block[1] >> j.block[2] >> j.bytes)
        jobs.push_back(j);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "usage: gptc-emu-run [--run] [--max-blocks N] "
                           "PTX... | --jobs FILE\n");
      return 2;
    } else {
      Job j;
      j.file = a;
      jobs.push_back(j);
    }
  }
  // A kernel that loops on its random inputs fails instead of hanging.
  setenv("GPTC_EMU_WATCHDOG", "20000000", 0);
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
      cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
    std::fprintf(stderr, "gptc-emu-run: no CUDA device\n");
    return 1;
  }
  std::mt19937 rng(1234);
  unsigned loaded = 0, kernels = 0, ran = 0, failedRuns = 0;
  uint64_t instructions = 0;
  double seconds = 0;
  for (const Job &job : jobs) {
    std::string text = readFile(job.file);
    CUmodule module;
    CUresult r = cuModuleLoadData(&module, text.c_str());
    if (r != CUDA_SUCCESS) {
      std::printf("LOAD FAILED %s: %s\n", job.file.c_str(), errorName(r));
      continue;
    }
    ++loaded;
    Module meta;
    std::string error;
    parsePtx(text, meta, [](uint64_t) { return (uint64_t)1 << 40; }, error);
    for (const Function &fn : meta.funcs) {
      if (!fn.isEntry)
        continue;
      ++kernels;
      if (!run)
        continue;
      std::string why;
      if (runKernel(job, module, fn, maxBlocks, rng, why)) {
        ++ran;
        gptcEmuLaunchCounters c;
        gptcEmuGetLaunchCounters(&c);
        instructions += c.threadInstructions;
        seconds += c.seconds;
      } else {
        ++failedRuns;
        std::printf("RUN FAILED %s (%s): %s\n", job.file.c_str(),
                    fn.name.c_str(), why.c_str());
      }
    }
    cuModuleUnload(module);
  }
  std::printf("gptc-emu-run: loaded %u of %zu PTX files (%u kernels)\n", loaded,
              jobs.size(), kernels);
  if (run)
    std::printf("gptc-emu-run: ran %u kernels memcheck-clean, %u failed; "
                "%llu thread-instructions in %.2f s (%.1f M/s)\n",
                ran, failedRuns, (unsigned long long)instructions, seconds,
                seconds > 0 ? instructions / seconds * 1e-6 : 0.0);
  return loaded == jobs.size() && failedRuns == 0 ? 0 : 1;
}
