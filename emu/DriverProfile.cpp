//===- DriverProfile.cpp - Counters per kernel, as a profiler reports
//------===//
//
// With GPTC_EMU_STATS=1, GPTC_EMU_STATS_JSON=FILE or GPTC_EMU_PROFILE=1
// every launch is profiled (LaunchConfig::profile: global requests and
// sectors, each instruction's own counters, the sectors touched), and its
// counters are summed per kernel name. At exit GPTC_EMU_STATS=1 prints one
// table row per kernel on stderr (like `ncu --print-summary per-kernel`)
// and GPTC_EMU_STATS_JSON writes the kernels, their counters and their
// memory and division instructions as JSON ("{pid}" in FILE becomes the
// process id, for ranks).
//
//===----------------------------------------------------------------------===//

#include "emu/DriverState.h"
#include "emu/ExecOps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unistd.h>

namespace gptc::emu {

namespace {

/// What the report says of one instruction of a kernel.
struct PcInfo {
  uint32_t line = 0;
  std::string text;
  uint8_t iclass = 0;
  bool inLoop = false;
  unsigned bytes = 0; ///< per lane, memory instructions
  PcCounters counters;
};

struct KernelProfile {
  uint64_t launches = 0;
  double seconds = 0;
  unsigned block = 0; ///< threads per block of the last launch
  LaunchCounters counters;
  std::vector<PcInfo> pcs;
};

bool isMemoryOrDivision(uint8_t c) {
  return c == GPTC_EMU_GLOBAL || c == GPTC_EMU_SHARED || c == GPTC_EMU_DIV32 ||
         c == GPTC_EMU_DIV64;
}

double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

class Profiles {
public:
  ~Profiles() {
    if (std::getenv("GPTC_EMU_STATS") && !kernels.empty())
      printTable();
    if (const char *f = std::getenv("GPTC_EMU_STATS_JSON"); f && *f)
      writeJson(f);
  }

  void record(const Module &m, const Function &fn, unsigned block,
              const LaunchCounters &c, const LaunchProfile &p, double seconds) {
    std::lock_guard<std::mutex> lock(mutex);
    KernelProfile &k = kernels[fn.name];
    if (k.pcs.empty())
      for (uint32_t pc = fn.firstPc; pc < m.code.size(); ++pc) {
        const Instr &in = m.code[pc];
        PcInfo info;
        info.line = in.line;
        info.text = pc < m.text.size() ? m.text[pc] : "";
        info.iclass = in.iclass;
        info.inLoop = in.loopStart >= 0;
        info.bytes = laneAccessBytes(in);
        k.pcs.push_back(info);
      }
    ++k.launches;
    k.seconds += seconds;
    k.block = block;
    k.counters.add(c);
    for (size_t i = 0; i < k.pcs.size() && fn.firstPc + i < p.pcs.size(); ++i)
      k.pcs[i].counters.add(p.pcs[fn.firstPc + i]);
  }

private:
  std::mutex mutex;
  std::map<std::string, KernelProfile> kernels;

  std::vector<const std::pair<const std::string, KernelProfile> *>
  byInstructions() const {
    std::vector<const std::pair<const std::string, KernelProfile> *> v;
    for (auto &k : kernels)
      v.push_back(&k);
    std::stable_sort(v.begin(), v.end(), [](auto *a, auto *b) {
      return a->second.counters.warpInstructions >
             b->second.counters.warpInstructions;
    });
    return v;
  }

  void printTable() const {
    std::fprintf(stderr,
                 "gptc-emu: counters per kernel (warp-level, summed over "
                 "launches; sectors of 32 bytes)\n"
                 "%-40s %6s %12s %6s %9s %6s %9s %6s %7s %9s %6s %7s %6s "
                 "%6s %s\n",
                 "kernel", "launch", "warp-inst", "lanes", "ld-req", "sec/rq",
                 "st-req", "sec/rq", "partial", "shm-req", "wf/rq", "reuse",
                 "div64", "acc-rt", "top classes");
    for (auto *kp : byInstructions()) {
      const LaunchCounters &c = kp->second.counters;
      std::string top;
      std::vector<std::pair<uint64_t, unsigned>> cls;
      for (unsigned i = 0; i < GPTC_EMU_INSTR_CLASSES; ++i)
        if (c.classInstructions[i])
          cls.push_back({c.classInstructions[i], i});
      std::sort(cls.rbegin(), cls.rend());
      for (size_t i = 0; i < cls.size() && i < 3; ++i) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s%s %.0f%%", i ? ", " : "",
                      instrClassName(cls[i].second),
                      100.0 * ratio(cls[i].first, c.warpInstructions));
        top += buf;
      }
      std::fprintf(
          stderr,
          "%-40s %6llu %12llu %6.1f %9llu %6.2f %9llu %6.2f %7llu %9llu %6.2f "
          "%7.2f %6llu %6llu %s\n",
          kp->first.c_str(), (unsigned long long)kp->second.launches,
          (unsigned long long)c.warpInstructions,
          ratio(c.threadInstructions, c.warpInstructions),
          (unsigned long long)c.globalLoadRequests,
          ratio(c.globalLoadSectors, c.globalLoadRequests),
          (unsigned long long)c.globalStoreRequests,
          ratio(c.globalStoreSectors, c.globalStoreRequests),
          (unsigned long long)c.partialStoreSectors,
          (unsigned long long)c.sharedRequests,
          ratio(c.sharedWavefronts, c.sharedRequests),
          ratio(c.globalLoadSectors + c.globalStoreSectors,
                c.uniqueGlobalSectors),
          (unsigned long long)c.classInstructions[GPTC_EMU_DIV64],
          (unsigned long long)c.accumulatorRoundTrips, top.c_str());
    }
  }

  static std::string escaped(const std::string &s) {
    std::string r;
    for (char ch : s)
      if (ch == '"' || ch == '\\')
        r += std::string("\\") + ch;
      else if ((unsigned char)ch >= 0x20)
        r += ch;
    return r;
  }

  void writeJson(std::string path) const {
    if (size_t at = path.find("{pid}"); at != std::string::npos)
      path.replace(at, 5, std::to_string(getpid()));
    std::string tmp = path + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "w");
    if (!f) {
      std::fprintf(stderr,
                   "gptc-emu: cannot write GPTC_EMU_STATS_JSON %s: %s\n",
                   path.c_str(), std::strerror(errno));
      return;
    }
    std::fprintf(f, "{\"kernels\": [");
    bool firstKernel = true;
    for (auto *kp : byInstructions()) {
      const KernelProfile &k = kp->second;
      const LaunchCounters &c = k.counters;
      std::fprintf(f,
                   "%s\n {\"name\": \"%s\", \"launches\": %llu, "
                   "\"block\": %u, \"seconds\": %.6f,\n  \"counters\": {",
                   firstKernel ? "" : ",", escaped(kp->first).c_str(),
                   (unsigned long long)k.launches, k.block, k.seconds);
      firstKernel = false;
      const std::pair<const char *, uint64_t> fields[] = {
          {"threadInstructions", c.threadInstructions},
          {"warpInstructions", c.warpInstructions},
          {"globalBytesLoaded", c.globalBytesLoaded},
          {"globalBytesStored", c.globalBytesStored},
          {"globalLoadRequests", c.globalLoadRequests},
          {"globalLoadSectors", c.globalLoadSectors},
          {"globalStoreRequests", c.globalStoreRequests},
          {"globalStoreSectors", c.globalStoreSectors},
          {"partialStoreSectors", c.partialStoreSectors},
          {"uniqueGlobalSectors", c.uniqueGlobalSectors},
          {"sharedBytes", c.sharedBytes},
          {"sharedRequests", c.sharedRequests},
          {"sharedWavefronts", c.sharedWavefronts},
          {"sharedBankConflicts", c.sharedBankConflicts},
          {"localBytes", c.localBytes},
          {"divergentBranches", c.divergentBranches},
          {"accumulatorRoundTrips", c.accumulatorRoundTrips}};
      for (size_t i = 0; i < std::size(fields); ++i)
        std::fprintf(f, "%s\"%s\": %llu", i ? ", " : "", fields[i].first,
                     (unsigned long long)fields[i].second);
      uint64_t inLoops = 0;
      for (const PcInfo &p : k.pcs)
        if (p.inLoop)
          inLoops += p.counters.executed;
      std::fprintf(f, ", \"loopWarpInstructions\": %llu",
                   (unsigned long long)inLoops);
      std::fprintf(f, "},\n  \"classes\": {");
      for (unsigned i = 0; i < GPTC_EMU_INSTR_CLASSES; ++i)
        std::fprintf(f, "%s\"%s\": %llu", i ? ", " : "", instrClassName(i),
                     (unsigned long long)c.classInstructions[i]);
      std::fprintf(f, "},\n  \"instructions\": [");
      bool firstPc = true;
      for (const PcInfo &p : k.pcs) {
        // Memory instructions that ran; divisions also where they did not
        // (NVPTX guards a 64-bit one with a 32-bit one that ran instead).
        bool division =
            p.iclass == GPTC_EMU_DIV32 || p.iclass == GPTC_EMU_DIV64;
        if (!isMemoryOrDivision(p.iclass) ||
            (!p.counters.executed && !division))
          continue;
        const PcCounters &pc = p.counters;
        std::fprintf(
            f,
            "%s\n   {\"line\": %u, \"op\": \"%s\", \"class\": \"%s\", "
            "\"loop\": %s, \"bytes\": %u, \"executed\": %llu, \"requests\": "
            "%llu, \"sectors\": %llu, \"partialSectors\": %llu, "
            "\"wavefronts\": %llu, \"roundTrips\": %llu}",
            firstPc ? "" : ",", p.line, escaped(p.text).c_str(),
            instrClassName(p.iclass), p.inLoop ? "true" : "false", p.bytes,
            (unsigned long long)pc.executed, (unsigned long long)pc.requests,
            (unsigned long long)pc.sectors,
            (unsigned long long)pc.partialSectors,
            (unsigned long long)pc.wavefronts,
            (unsigned long long)pc.roundTrips);
        firstPc = false;
      }
      std::fprintf(f, "]}");
    }
    std::fprintf(f, "\n]}\n");
    bool ok = std::fflush(f) == 0 && !std::ferror(f);
    ok &= std::fclose(f) == 0;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0)
      std::fprintf(stderr, "gptc-emu: cannot write GPTC_EMU_STATS_JSON %s\n",
                   path.c_str());
  }
};

Profiles &profiles() {
  static Profiles p;
  return p;
}

} // namespace

bool profilingLaunches() {
  for (const char *name :
       {"GPTC_EMU_STATS", "GPTC_EMU_STATS_JSON", "GPTC_EMU_PROFILE"})
    if (const char *v = std::getenv(name); v && *v && std::strcmp(v, "0"))
      return true;
  return false;
}

void recordLaunchProfile(const Module &m, const Function &fn, unsigned block,
                         const LaunchCounters &c, const LaunchProfile &p,
                         double seconds) {
  profiles().record(m, fn, block, c, p, seconds);
}

} // namespace gptc::emu
