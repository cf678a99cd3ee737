//===- gptc-emu-check.cpp - gptc-emu-check: every kernel, CPU vs emulator -===//
//
//   gptc-emu-check CPU_BUNDLE CUDA_BUNDLE [--name NAME] [--seed S]
//                  [--entries grad,update,eval]
//
// The per-kernel differential check of the emulated device. Both bundles
// come from one spec compiled with --kernel-marks: CPU_BUNDLE for the CPU
// (gptc compile SPEC --kernel-marks -o DIR) and CUDA_BUNDLE for CUDA
// (... --target=cuda ...: a host step.so whose launches go through MLIR's
// mgpu* runtime calls, defined here on the emulated libcuda.so.1). Every
// kernel nest is bracketed by gptc_kernel_mark(ID, 0|1) on both targets.
//
// The arena is filled with random data in the manifest's layout (tokens
// and targets random ids below the vocabulary, step 3, parameters normal
// with their init's scale, gradients and optimizer states uniform in
// [0, 0.01), the workspace random). For each entry point (grad, update,
// eval, in that order, each starting from the CPU's arena after the
// previous one) the CPU step runs first and records, at every mark, which
// arena bytes changed. The CUDA step then runs on a copy of the same
// starting arena (pinned host memory, which kernels address directly):
// before every kernel the arena is set to exactly the CPU's arena before
// that kernel (GEMM calls run on the host in between), the kernel is
// launched on the emulator with its real grid, block and arguments, and
// the whole arena is compared with the CPU's arena after that kernel.
// So each kernel is checked on its own, on the inputs the CPU kernel had.
//
// Tolerances: named slots by their dtype (integers exact; f32 within
// 1e-6 + 1e-5 * |cpu|, or 2^-8 (|cpu| + M) after a kernel that rounds
// values to bf16 inside (opened by mark phase 2, see KernelMarks.cpp), M
// the largest magnitude among the f32 words the CPU's kernel wrote;
// bf16 within 1 ulp); the workspace has no dtype,
// so a differing 32-bit word there passes as f32 with the same tolerance
// or as two bf16 halves within 1 ulp each, and in both readings only
// between normal numbers (an integer word of the workspace is exact).
//
// Prints one line per entry point's kernel that failed to launch or
// mismatched, and a summary:
//   NAME: compared N kernels (grad A, update B, eval C): all match
//
//===----------------------------------------------------------------------===//

#include "emu/gptc_emu.h"
#include "runtime/Manifest.h"
#include "runtime/StepLibrary.h"
#include "runtime/gptrt.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace gptc::runtime;

namespace {

const char *errorName(CUresult r) {
  const char *name = "?";
  cuGetErrorName(r, &name);
  return name;
}

/// The 32-bit words of the arena that changed since the last mark.
struct Delta {
  std::vector<std::pair<uint64_t, uint32_t>> words; // word index, value
};

struct Event {
  int64_t id, phase;
  Delta delta;
};

/// What the CUDA run saw between a kernel's two marks.
struct KernelResult {
  std::vector<std::string> kernels; // .entry names launched
  std::string launchError;
  bool bf16Inside = false; ///< opened by mark phase 2
  double scale = 0;        ///< with it: the largest f32 the CPU wrote
  uint64_t mismatched = 0, tolerated = 0;
  double maxAbs = 0, maxRel = 0;
  uint64_t firstBad = UINT64_MAX;
};

enum class WordKind { Exact, F32, BF16, Unknown };

struct State {
  bool cudaMode = false;
  uint8_t *arena = nullptr; // the running step's arena
  uint64_t bytes = 0;
  std::vector<uint8_t> prev; // CPU: the arena at the last mark
  std::vector<Event> events;
  // CUDA:
  size_t next = 0; // index into events
  std::vector<uint8_t> ref;
  bool orderBroken = false;
  std::vector<KernelResult> results;
  KernelResult *current = nullptr;
  std::vector<WordKind> kinds; // per 32-bit word
  std::map<CUfunction, std::string> names;
} S;

void recordDelta(Delta &d) {
  const uint64_t chunk = 4096;
  for (uint64_t off = 0; off < S.bytes; off += chunk) {
    uint64_t n = std::min(chunk, S.bytes - off);
    if (std::memcmp(S.prev.data() + off, S.arena + off, n) == 0)
      continue;
    const uint32_t *a = (const uint32_t *)(S.arena + off);
    const uint32_t *p = (const uint32_t *)(S.prev.data() + off);
    for (uint64_t i = 0; i < n / 4; ++i)
      if (a[i] != p[i])
        d.words.push_back({off / 4 + i, a[i]});
    std::memcpy(S.prev.data() + off, S.arena + off, n);
  }
}

void apply(const Delta &d, uint8_t *to) {
  for (auto &[w, v] : d.words)
    std::memcpy(to + w * 4, &v, 4);
}

float asF32(uint32_t w) {
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

bool normalF32(uint32_t w) {
  uint32_t e = (w >> 23) & 0xff;
  return e != 0 && e != 0xff;
}

/// f32 words within 1e-6 + 1e-5 |want|; with `bf16Inside` (a kernel that
/// rounds intermediate values to bf16, so that one rounding may go the
/// other way: the attention's output moves by 2^-8 of a probability times
/// a row of v, on the scale of its largest outputs `scale`, whatever the
/// size of the output itself) within 2^-8 (|want| + scale).
bool closeF32(uint32_t got, uint32_t want, double &abs, double &rel,
              bool bf16Inside, double scale) {
  if (!normalF32(got) || !normalF32(want))
    return false;
  double g = asF32(got), r = asF32(want);
  abs = std::fabs(g - r);
  rel = std::fabs(r) >= 1e-3 ? abs / std::fabs(r) : 0.0;
  if (bf16Inside)
    return abs <= std::ldexp(std::fabs(r) + scale, -8);
  return abs <= 1e-6 + 1e-5 * std::fabs(r);
}

bool closeBF16(uint16_t got, uint16_t want) {
  if (got == want)
    return true;
  uint32_t eg = (got >> 7) & 0xff, ew = (want >> 7) & 0xff;
  if (eg == 0 || eg == 0xff || ew == 0 || ew == 0xff)
    return false;
  if ((got ^ want) & 0x8000)
    return false;
  return (got > want ? got - want : want - got) <= 1;
}

/// Compares the CUDA arena with the reference after a kernel; makes the
/// CUDA arena equal to the reference again.
void compareAfterKernel(KernelResult &res) {
  const uint64_t chunk = 4096;
  for (uint64_t off = 0; off < S.bytes; off += chunk) {
    uint64_t n = std::min(chunk, S.bytes - off);
    if (std::memcmp(S.ref.data() + off, S.arena + off, n) == 0)
      continue;
    const uint32_t *a = (const uint32_t *)(S.arena + off);
    const uint32_t *r = (const uint32_t *)(S.ref.data() + off);
    for (uint64_t i = 0; i < n / 4; ++i) {
      if (a[i] == r[i])
        continue;
      uint64_t w = off / 4 + i;
      double abs = 0, rel = 0;
      bool ok = false;
      switch (S.kinds[w]) {
      case WordKind::Exact:
        break;
      case WordKind::F32:
        ok = closeF32(a[i], r[i], abs, rel, res.bf16Inside, res.scale);
        break;
      case WordKind::BF16:
        ok = closeBF16(a[i] & 0xffff, r[i] & 0xffff) &&
             closeBF16(a[i] >> 16, r[i] >> 16);
        break;
      case WordKind::Unknown:
        ok = closeF32(a[i], r[i], abs, rel, res.bf16Inside, res.scale) ||
             (closeBF16(a[i] & 0xffff, r[i] & 0xffff) &&
              closeBF16(a[i] >> 16, r[i] >> 16));
        if (ok && !normalF32(a[i]))
          abs = rel = 0; // the bf16 reading
        break;
      }
      if (ok) {
        ++res.tolerated;
        res.maxAbs = std::max(res.maxAbs, abs);
        res.maxRel = std::max(res.maxRel, rel);
      } else {
        if (!res.mismatched)
          res.firstBad = w * 4;
        ++res.mismatched;
        if (S.kinds[w] != WordKind::Exact) {
          double g = asF32(a[i]), want = asF32(r[i]);
          if (std::isfinite(g) && std::isfinite(want))
            res.maxAbs = std::max(res.maxAbs, std::fabs(g - want));
        }
      }
    }
    std::memcpy(S.arena + off, S.ref.data() + off, n);
  }
}

} // namespace

extern "C" {

/// Called by both step libraries around every kernel nest.
void gptc_kernel_mark(int64_t id, int64_t phase) {
  if (!S.cudaMode) {
    S.events.push_back({id, phase, {}});
    recordDelta(S.events.back().delta);
    return;
  }
  if (S.orderBroken)
    return;
  if (S.next >= S.events.size() || S.events[S.next].id != id ||
      S.events[S.next].phase != phase) {
    std::printf("kernel order differs between CPU and CUDA at mark %zu\n",
                S.next);
    S.orderBroken = true;
    return;
  }
  const Event &e = S.events[S.next++];
  // Before: the CPU's arena before this kernel (host GEMMs included).
  // After: the CPU's arena after it.
  apply(e.delta, S.ref.data());
  if (phase != 1) {
    apply(e.delta, S.arena);
    S.results.push_back({});
    S.current = &S.results.back();
    S.current->bf16Inside = phase == 2;
  } else {
    if (S.current->bf16Inside)
      for (auto &[w, v] : e.delta.words)
        if (normalF32(v))
          S.current->scale =
              std::max(S.current->scale, double(std::fabs(asF32(v))));
    compareAfterKernel(*S.current);
    S.current = nullptr;
  }
}

/// The CUDA step's temporaries outside the arena: page-locked host memory
/// (addressable by kernels), and its GEMMs on the host (between kernels,
/// on the arena in page-locked host memory, as on the CPU).
void gptc_cuda_gemm_f32(GPTC_GEMM_ARGS(float)) {
  gptc_gemm_f32(trans_a, trans_b, m, n, k, a, a_rs, a_cs, a_bs, b, b_rs, b_cs,
                b_bs, alpha, beta, c, c_rs, c_cs, c_bs, d, d_rs, d_cs, d_bs,
                batch);
}
void gptc_cuda_gemm_bf16(GPTC_GEMM_ARGS(float)) {
  gptc_gemm_bf16(trans_a, trans_b, m, n, k, a, a_rs, a_cs, a_bs, b, b_rs, b_cs,
                 b_bs, alpha, beta, c, c_rs, c_cs, c_bs, d, d_rs, d_cs, d_bs,
                 batch);
}
/// The arena's buffers where the step placed them (one allocation).
int64_t gptc_cuda_buffer_shift(int64_t offset) { return offset; }
void *gptc_cuda_alloc(size_t bytes) {
  void *p = nullptr;
  if (cuMemAllocHost(&p, bytes ? bytes : 1) != CUDA_SUCCESS)
    return nullptr;
  return p;
}
void gptc_cuda_free(void *p) {
  if (p)
    cuMemFreeHost(p);
}

// MLIR's GPU runtime calls (as in its CudaRuntimeWrappers), on the
// emulated driver.
void *mgpuModuleLoad(void *data, size_t) {
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadData(&m, data);
  if (r != CUDA_SUCCESS)
    std::printf("cuModuleLoadData: %s\n", errorName(r));
  return m;
}
void *mgpuModuleLoadJIT(void *data, int, size_t size) {
  return mgpuModuleLoad(data, size);
}
void mgpuModuleUnload(void *m) { cuModuleUnload((CUmodule)m); }
void *mgpuModuleGetFunction(void *m, const char *name) {
  CUfunction f = nullptr;
  CUresult r = cuModuleGetFunction(&f, (CUmodule)m, name);
  if (r != CUDA_SUCCESS)
    std::printf("cuModuleGetFunction %s: %s\n", name, errorName(r));
  S.names[f] = name;
  return f;
}
void *mgpuStreamCreate() {
  static int stream;
  return &stream;
}
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) {}
void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz,
                      intptr_t bx, intptr_t by, intptr_t bz, int32_t smem,
                      void *, void **params, void **extra, size_t) {
  CUresult r = cuLaunchKernel((CUfunction)f, gx, gy, gz, bx, by, bz, smem,
                              nullptr, params, extra);
  if (r != CUDA_SUCCESS)
    cuCtxSynchronize(); // clears the launch's error
  if (!S.current)
    return;
  // GPTC_EMU_CHECK_CORRUPT=N: the check's own test; after the N-th launch
  // (counting from 1 over the whole run) one word of the arena it wrote
  // changes, as a wrong kernel would change it.
  static long corrupt = [] {
    const char *v = std::getenv("GPTC_EMU_CHECK_CORRUPT");
    return v ? std::atol(v) : 0L;
  }();
  static long launches = 0;
  if (++launches == corrupt) {
    for (uint64_t w = 0; w < S.bytes / 4; ++w) {
      uint32_t *a = (uint32_t *)S.arena + w, *p = (uint32_t *)S.ref.data() + w;
      if (*a != *p) { // a word this kernel wrote (the reference: before it)
        *a ^= 0x00400000;
        break;
      }
    }
  }
  S.current->kernels.push_back(S.names[(CUfunction)f]);
  if (r != CUDA_SUCCESS && S.current->launchError.empty()) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s (grid %ldx%ldx%ld, block %ldx%ldx%ld)",
                  errorName(r), (long)gx, (long)gy, (long)gz, (long)bx,
                  (long)by, (long)bz);
    S.current->launchError = buf;
  }
}

} // extern "C"

namespace {

/// A stream of its own for each slot, seeded by (seed, slot name): a slot
/// added to a bundle does not change the data of the others.
std::mt19937_64 streamFor(uint64_t seed, const std::string &name) {
  std::vector<uint32_t> key = {uint32_t(seed), uint32_t(seed >> 32)};
  for (char c : name)
    key.push_back(uint32_t(static_cast<unsigned char>(c)));
  std::seed_seq seq(key.begin(), key.end());
  return std::mt19937_64(seq);
}

void fillArena(const Manifest &m, uint8_t *arena, uint64_t seed) {
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 0.01f);
  // The workspace: random f32 words (kernels write it before reading).
  std::mt19937_64 rng = streamFor(seed, "");
  for (uint64_t i = 0; i + 4 <= (uint64_t)m.arenaBytes; i += 4) {
    float v = normal(rng);
    std::memcpy(arena + i, &v, 4);
  }
  std::map<std::string, const ParamEntry *> params;
  for (const ParamEntry &p : m.params)
    params["param." + p.name] = &p;
  for (const Slot &s : m.slots) {
    rng = streamFor(seed, s.name);
    normal.reset();
    uint8_t *at = arena + s.offset;
    int64_t n = s.numElements();
    for (int64_t i = 0; i < n; ++i) {
      double v;
      auto p = params.find(s.name);
      if (s.dtype == SlotType::I32 || s.dtype == SlotType::I64) {
        int64_t x =
            s.name == "step" ? 3 : (int64_t)(rng() % (uint64_t)m.vocabSize);
        if (s.dtype == SlotType::I32) {
          int32_t y = (int32_t)x;
          std::memcpy(at + 4 * i, &y, 4);
        } else {
          std::memcpy(at + 8 * i, &x, 8);
        }
        continue;
      }
      if (p != params.end()) {
        const ParamEntry &e = *p->second;
        double scale =
            e.init == ParamInit::Normal && e.stddev > 0 ? e.stddev : 0.1;
        v = (e.init == ParamInit::Ones ? 1.0 : 0.0) + scale * normal(rng);
      } else {
        v = uniform(rng);
      }
      switch (s.dtype) {
      case SlotType::F32: {
        float f = (float)v;
        std::memcpy(at + 4 * i, &f, 4);
        break;
      }
      case SlotType::F64:
        std::memcpy(at + 8 * i, &v, 8);
        break;
      case SlotType::BF16: {
        float f = (float)v;
        uint32_t w;
        std::memcpy(&w, &f, 4);
        uint16_t h = (uint16_t)((w + 0x7fff + ((w >> 16) & 1)) >> 16);
        std::memcpy(at + 2 * i, &h, 2);
        break;
      }
      default:
        break;
      }
    }
  }
}

std::vector<WordKind> wordKinds(const Manifest &m) {
  std::vector<WordKind> k((m.arenaBytes + 3) / 4, WordKind::Unknown);
  for (const Slot &s : m.slots) {
    WordKind w = s.dtype == SlotType::F32    ? WordKind::F32
                 : s.dtype == SlotType::BF16 ? WordKind::BF16
                                             : WordKind::Exact;
    for (int64_t b = s.offset / 4; b < (s.offset + s.numBytes() + 3) / 4; ++b)
      k[b] = w;
  }
  return k;
}

} // namespace

int main(int argc, char **argv) {
  std::string name, dirs[2];
  int ndirs = 0;
  uint64_t seed = 1;
  std::string only = "grad,update,eval";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--name" && i + 1 < argc)
      name = argv[++i];
    else if (a == "--entries" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a[0] != '-' && ndirs < 2)
      dirs[ndirs++] = a;
    else {
      std::fprintf(stderr, "usage: gptc-emu-check CPU_BUNDLE CUDA_BUNDLE "
                           "[--name NAME] [--seed S] [--entries "
                           "grad,update,eval]\n");
      return 2;
    }
  }
  if (ndirs != 2) {
    std::fprintf(stderr, "gptc-emu-check: give a CPU and a CUDA bundle\n");
    return 2;
  }
  Manifest m;
  std::string error;
  if (!readManifest(dirs[0] + "/manifest.json", m, error)) {
    std::fprintf(stderr, "gptc-emu-check: %s\n", error.c_str());
    return 1;
  }
  if (name.empty())
    name = m.specName;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // The CUDA step loads its kernels when it is loaded: the context first.
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
      cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
    std::fprintf(stderr, "gptc-emu-check: no CUDA device\n");
    return 1;
  }
  setenv("GPTC_EMU_WATCHDOG", "4000000000", 0);
  StepLibrary cpu, cuda;
  if (!cpu.load(dirs[0] + "/step.so", error) ||
      !cuda.load(dirs[1] + "/step.so", error)) {
    std::fprintf(stderr, "gptc-emu-check: %s\n", error.c_str());
    return 1;
  }
  S.bytes = (uint64_t)m.arenaBytes;
  uint8_t *hostArena =
      (uint8_t *)std::aligned_alloc(4096, (S.bytes + 4095) & ~4095ull);
  void *pinned = nullptr;
  if (cuMemAllocHost(&pinned, S.bytes) != CUDA_SUCCESS) {
    std::fprintf(stderr, "gptc-emu-check: cuMemAllocHost failed\n");
    return 1;
  }
  fillArena(m, hostArena, seed);
  S.kinds = wordKinds(m);

  struct EntryPoint {
    const char *name;
    void (StepLibrary::*fn)(gptc_arena_ref *) const;
  } entries[] = {{"grad", &StepLibrary::gradStep},
                 {"update", &StepLibrary::updateStep},
                 {"eval", &StepLibrary::evalStep}};
  unsigned compared[3] = {0, 0, 0}, runs = 0, bf16Runs = 0;
  uint64_t tolerated = 0;
  double maxAbs = 0, maxRel = 0;
  unsigned failures = 0, hostNests = 0;
  std::string firstMismatch;
  for (int e = 0; e < 3; ++e) {
    if (("," + only + ",").find(std::string(",") + entries[e].name + ",") ==
        std::string::npos)
      continue;
    // CPU, recording every kernel's writes.
    std::vector<uint8_t> start(hostArena, hostArena + S.bytes);
    S.cudaMode = false;
    S.events.clear();
    S.arena = hostArena;
    S.prev = start;
    gptc_arena_ref ref{hostArena, hostArena, 0, (int64_t)S.bytes, 1};
    (cpu.*entries[e].fn)(&ref);
    // CUDA on the emulator, kernel by kernel against those writes.
    S.cudaMode = true;
    S.next = 0;
    S.orderBroken = false;
    S.results.clear();
    S.results.reserve(S.events.size());
    S.ref = start;
    S.arena = (uint8_t *)pinned;
    std::memcpy(pinned, start.data(), S.bytes);
    gptc_arena_ref dref{(uint8_t *)pinned, (uint8_t *)pinned, 0,
                        (int64_t)S.bytes, 1};
    (cuda.*entries[e].fn)(&dref);
    for (const KernelResult &r : S.results)
      bf16Runs += r.bf16Inside;
    if (S.orderBroken || S.next != S.events.size()) {
      std::printf("%s: %s step: the CUDA step ran %zu of the CPU's %zu "
                  "kernel marks\n",
                  name.c_str(), entries[e].name, S.next, S.events.size());
      ++failures;
    }
    // One line per nest that could not run or mismatched (a nest inside a
    // host loop runs once per iteration: its line counts the runs).
    std::map<int64_t, unsigned> ordinal; // per mark id: kernel # in entry
    struct Report {
      std::string text;
      unsigned times = 0;
    };
    std::map<int64_t, Report> reports;
    std::set<int64_t> seen;
    std::map<int64_t, unsigned> runsOf;
    std::map<int64_t, std::string> whatOf;
    std::vector<int64_t> order;
    unsigned k = 0;
    for (size_t i = 0; i < S.results.size(); ++i) {
      const KernelResult &r = S.results[i];
      int64_t id = S.events[2 * i].id;
      if (!ordinal.count(id))
        ordinal[id] = k++;
      std::string what = std::string("gptc_") + entries[e].name +
                         "_step kernel #" + std::to_string(ordinal[id]) +
                         " (nest " + std::to_string(id) + ")";
      ++runsOf[id];
      whatOf[id] = what;
      std::string text;
      if (r.kernels.empty()) {
        ++hostNests;
        text = what + ": cannot run as emitted: a host loop (not a "
                      "gpu.launch)";
      } else if (!r.launchError.empty()) {
        ++failures;
        text = what + ": cannot run as emitted: " + r.launchError;
      } else {
        ++runs;
        tolerated += r.tolerated;
        maxAbs = std::max(maxAbs, r.maxAbs);
        maxRel = std::max(maxRel, r.maxRel);
        if (r.mismatched) {
          ++failures;
          char buf[256];
          std::snprintf(buf, sizeof buf,
                        ": MISMATCH in %llu words (first at arena byte "
                        "%llu), max abs error %.3g",
                        (unsigned long long)r.mismatched,
                        (unsigned long long)r.firstBad, r.maxAbs);
          text = what + buf;
        }
      }
      if (r.kernels.size() && r.launchError.empty() && !seen.count(id)) {
        seen.insert(id);
        ++compared[e];
      }
      if (text.empty())
        continue;
      Report &rep = reports[id];
      if (!rep.times++) {
        rep.text = text;
        order.push_back(id);
      }
    }
    // Kernels launched from a host loop, one launch per iteration.
    for (auto &[id, n] : runsOf)
      if (n > 1 && !reports.count(id))
        std::printf("%s: %s: in a host loop (%u launches, one per "
                    "iteration), each compared\n",
                    name.c_str(), whatOf[id].c_str(), n);
    for (int64_t id : order) {
      const Report &rep = reports[id];
      if (rep.times > 1)
        std::printf("%s: %s (%u runs in a host loop)\n", name.c_str(),
                    rep.text.c_str(), rep.times);
      else
        std::printf("%s: %s\n", name.c_str(), rep.text.c_str());
    }
    // The next entry starts from the CPU's arena after this one.
  }
  unsigned total = compared[0] + compared[1] + compared[2];
  std::printf("%s: compared %u kernels (grad %u, update %u, eval %u; %u "
              "runs with the iterations of host loops): %s\n",
              name.c_str(), total, compared[0], compared[1], compared[2], runs,
              failures ? "MISMATCHES" : "all match");
  std::printf("%s: %llu words within tolerance but not bit-equal (max abs "
              "%.3g, max rel %.3g where |cpu| >= 1e-3)\n",
              name.c_str(), (unsigned long long)tolerated, maxAbs, maxRel);
  std::printf("%s: %u kernel runs round to bf16 inside, compared at bf16 "
              "precision\n",
              name.c_str(), bf16Runs);
  std::fflush(stdout);
  // The step libraries stay loaded (StepLibrary); their static destructors
  // would unload modules from a driver already torn down.
  std::_Exit(failures ? 1 : 0);
}
