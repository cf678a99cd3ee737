//===- PeakFlops.cpp - The peak gptc train's MFU is against ---------------===//

#include "commands/PeakFlops.h"

#include "commands/CommandOptions.h"
#include "runtime/Manifest.h"
#include "runtime/cpu/FmaPeak.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace gptc::commands {
namespace {

/// Dense peaks in TFLOP/s, bf16 tensor cores with f32 accumulation and
/// FP32 cores, of the GPUs gptc knows by name (the first match wins).
struct GpuPeak {
  const char *name; ///< a part of the device's name
  double bf16, f32;
  const char *source;
};
constexpr GpuPeak kGpuPeaks[] = {
    {"H100 PCIe", 756.5, 51.2, "H100 whitepaper v1.04, table 3 (PCIe)"},
    {"H100", 989.4, 66.9, "H100 whitepaper v1.04, table 3 (SXM5)"},
    {"H200", 989.4, 66.9, "H200 datasheet (SXM: as the H100 SXM5)"},
};

std::string tflopsText(double flops) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", flops / 1e12);
  return text;
}

/// 1.23 G, 456 M, ...: a FLOP count in three digits.
std::string shortFlops(double flops) {
  const char *units[] = {"", "k", "M", "G", "T", "P"};
  int u = 0;
  while (flops >= 1000 && u < 5) {
    flops /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g %s", flops, units[u]);
  return text;
}

} // namespace

int cpuThreadsPerRank(int64_t localRanks) {
  if (const char *env = std::getenv("OMP_NUM_THREADS"))
    if (std::optional<int64_t> n = cli::parseCount(env, false); n && *n > 0)
      return int(std::min<int64_t>(*n, 4096));
  int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / int(std::max<int64_t>(1, localRanks)));
}

std::string describeStepFlops(const runtime::Manifest &m, int worldSize,
                              const std::string &peakSource) {
  return shortFlops(double(m.stepFlops)) + "FLOP a step" +
         (worldSize > 1 ? " per rank" : "") +
         " (matrix products; attention at the pairs its mask allows at "
         "most) against " +
         peakSource;
}

StatedPeak statedPeak(const runtime::Manifest &m, const std::string &deviceName,
                      std::optional<double> tflops, int threads) {
  StatedPeak peak;
  if (tflops) {
    peak.flops = *tflops * 1e12;
    peak.source = tflopsText(peak.flops) + " TFLOP/s (--peak-tflops)";
    return peak;
  }
  if (m.target == "cpu") {
    runtime::FmaPeak measured = runtime::measureFmaPeak(threads);
    const bool f64 = m.dtype == "f64";
    peak.flops = f64 ? measured.flops / 2 : measured.flops;
    char text[160];
    std::snprintf(text, sizeof(text),
                  "%.4g GFLOP/s (%s%s, %d thread%s, measured at start)",
                  peak.flops / 1e9, measured.unit.c_str(),
                  f64 ? " rate / 2 for f64" : "", measured.threads,
                  measured.threads == 1 ? "" : "s");
    peak.source = text;
    return peak;
  }
  for (const GpuPeak &gpu : kGpuPeaks)
    if (llvm::StringRef(deviceName).contains(gpu.name)) {
      if (m.dtype == "f64")
        break;
      const bool bf16 = m.dtype == "bf16";
      peak.flops = (bf16 ? gpu.bf16 : gpu.f32) * 1e12;
      peak.source = tflopsText(peak.flops) + " TFLOP/s (" +
                    (bf16 ? "bf16 tensor cores, dense" : "FP32 cores") + ": " +
                    gpu.source + ")";
      return peak;
    }
  peak.source = "no MFU: the peak of '" + deviceName +
                "' is not known (give --peak-tflops)";
  return peak;
}

} // namespace gptc::commands
