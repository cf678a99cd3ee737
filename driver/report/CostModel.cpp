//===- CostModel.cpp - H100 occupancy and roofline of `--stats` -----------===//
//
// See CostModel.h for the formulas; docs/design/cuda.md ("The cost model of
// --stats") for their sources.
//
//===----------------------------------------------------------------------===//

#include "driver/report/CostModel.h"

#include <algorithm>

namespace gptc::cost {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// What a launch's shape allows both models: the share of its warps'
/// lanes its blocks fill, the warps it launches and the share of the 528
/// schedulers they fill.
struct LaunchShape {
  int64_t warpsPerBlock;
  double lanes, warps, fill;
  LaunchShape(int64_t threadsPerBlock, int64_t threads)
      : warpsPerBlock(ceilDiv(threadsPerBlock, 32)),
        lanes(laneFraction(threadsPerBlock)),
        warps(static_cast<double>(threads / threadsPerBlock) *
              static_cast<double>(warpsPerBlock)),
        fill(std::min(1.0, warps / static_cast<double>(
                                       H100::kSMs * H100::kSchedulersPerSM))) {}
};

} // namespace

Occupancy occupancyH100(int64_t threads, int64_t registers,
                        int64_t sharedBytes) {
  using H = H100;
  Occupancy occ;
  constexpr int64_t kMaxSharedPerBlock =
      H::kSharedPerSM - H::kSharedReservedPerBlock;
  if (threads <= 0 || threads > H::kMaxThreadsPerBlock ||
      registers > H::kMaxRegistersPerThread || sharedBytes < 0 ||
      sharedBytes > kMaxSharedPerBlock) {
    occ.limiter = "none";
    return occ;
  }
  int64_t warps = ceilDiv(threads, 32);
  occ.blocksPerSM = H::kWarpsPerSM / warps;
  occ.limiter = "warps";
  auto limit = [&](int64_t blocks, const char *what) {
    if (blocks < occ.blocksPerSM) {
      occ.blocksPerSM = blocks;
      occ.limiter = what;
    }
  };
  limit(H::kBlocksPerSM, "blocks");
  if (registers > 0) {
    int64_t perWarp = ceilDiv(registers * 32, H::kRegisterGranularity) *
                      H::kRegisterGranularity;
    limit((H::kRegistersPerSM / perWarp) / warps, "registers");
  }
  int64_t shared =
      ceilDiv(sharedBytes, H::kSharedGranularity) * H::kSharedGranularity +
      H::kSharedReservedPerBlock;
  limit(H::kSharedPerSM / shared, "shared");
  occ.fraction = static_cast<double>(occ.blocksPerSM * warps) /
                 static_cast<double>(H::kWarpsPerSM);
  return occ;
}

double laneFraction(int64_t threadsPerBlock) {
  return static_cast<double>(threadsPerBlock) /
         static_cast<double>(32 * ceilDiv(threadsPerBlock, 32));
}

double launchEfficiency(int64_t threadsPerBlock, int64_t totalThreads) {
  if (threadsPerBlock <= 0 || totalThreads <= 0)
    return 1.0;
  LaunchShape shape(threadsPerBlock, totalThreads);
  return shape.lanes * shape.fill;
}

double kernelSeconds(double flops, double bytes, double efficiency,
                     double tensorFlops) {
  double roofline =
      std::max(flops / H100::kF32Flops + tensorFlops / H100::kBF16TensorFlops,
               bytes / H100::kBandwidth);
  return roofline / std::max(efficiency, 1e-9) + H100::kLaunchSeconds;
}

double gemmPeakFlops(int64_t elementBytes) {
  return elementBytes == 2 ? H100::kBF16TensorFlops : H100::kF32Flops;
}

double gemmBytes(int64_t m, int64_t n, int64_t k, int64_t batch,
                 GemmElementBytes elementBytes, bool readsC) {
  double operands = static_cast<double>(m) * static_cast<double>(k) +
                    static_cast<double>(k) * static_cast<double>(n);
  double results =
      static_cast<double>(m) * static_cast<double>(n) * (readsC ? 2.0 : 1.0);
  return (operands * static_cast<double>(elementBytes.operand) +
          results * static_cast<double>(elementBytes.result)) *
         static_cast<double>(batch);
}

double dramReadBytes(double readBytes, double footprint, double launchBytes) {
  constexpr double half = H100Measured::kL2Bytes / 2;
  if (readBytes <= footprint || footprint > half)
    return readBytes;
  const double reuseDistance = launchBytes * footprint / readBytes;
  return reuseDistance <= half ? footprint : readBytes;
}

double gemmSeconds(int64_t m, int64_t n, int64_t k, int64_t batch,
                   GemmElementBytes elementBytes, bool readsC) {
  double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                 static_cast<double>(k) * static_cast<double>(batch);
  return std::max(flops / gemmPeakFlops(elementBytes.operand),
                  gemmBytes(m, n, k, batch, elementBytes, readsC) /
                      H100::kBandwidth) +
         H100::kLaunchSeconds;
}

double mfu(double modelFlops, double seconds) {
  return seconds > 0 ? modelFlops / (seconds * H100::kBF16TensorFlops) : 0.0;
}

const char *boundName(Bound b) {
  switch (b) {
  case Bound::Arithmetic:
    return "fp32";
  case Bound::Tensor:
    return "tensor";
  case Bound::Issue:
    return "issue";
  case Bound::DRAM:
    return "dram";
  case Bound::L2:
    return "l2";
  case Bound::Shared:
    return "shared";
  case Bound::Local:
    return "local";
  case Bound::Launch:
    return "launch";
  }
  return "?";
}

double localBytesPerSecond(const KernelWork &w, int64_t residentWarpsPerSM) {
  using M = H100Measured;
  const double frame = static_cast<double>(std::max<int64_t>(w.stackBytes, 0));
  const double perSM = frame * 32.0 * static_cast<double>(residentWarpsPerSM);
  const int64_t warpsPerBlock =
      ceilDiv(std::max<int64_t>(w.threadsPerBlock, 1), 32);
  const double blocks = static_cast<double>(residentWarpsPerSM) /
                        static_cast<double>(warpsPerBlock);
  const double sharedPerSM = blocks * static_cast<double>(w.sharedPerBlock);
  if (perSM + sharedPerSM <= static_cast<double>(M::kL1BytesPerSM))
    return M::kL1BytesPerSecond;
  if (perSM * static_cast<double>(H100::kSMs) <= M::kL2Bytes)
    return M::kL2BytesPerSecond;
  return H100::kBandwidth;
}

KernelTime calibratedKernelTime(const KernelWork &w) {
  using M = H100Measured;
  KernelTime t;
  const LaunchShape shape(std::max<int64_t>(w.threadsPerBlock, 1),
                          std::max<int64_t>(w.threads, 1));
  const int64_t warpsPerBlock = shape.warpsPerBlock;
  const double lanes = shape.lanes, warps = shape.warps, fill = shape.fill;
  const double resident =
      w.blocksPerSM > 0 ? static_cast<double>(w.blocksPerSM * warpsPerBlock)
                        : static_cast<double>(H100::kWarpsPerSM);
  const double active =
      std::min(resident, warps / static_cast<double>(H100::kSMs));
  const double hiding = std::min(1.0, active / M::kLatencyHidingWarps);
  const double warpInstructions = w.warpInstructions > 0
                                      ? w.warpInstructions
                                      : w.threadInstructions / (32.0 * lanes);
  t.issue =
      warpInstructions / M::kWarpInstructionsPerSecond / std::max(hiding, 1e-9);
  t.arithmetic = w.flops / H100::kF32Flops / lanes / std::max(hiding, 1e-9);
  t.tensor = w.tensorFlops / M::kMmaSyncFlops / std::max(fill, 1e-9);
  t.dram = w.dramBytes / H100::kBandwidth / std::max(fill, 1e-9);
  t.l2 = w.l2Bytes / M::kL2BytesPerSecond / std::max(fill, 1e-9);
  t.shared = w.sharedBytes / M::kL1BytesPerSecond / std::max(fill, 1e-9);
  if (w.stackBytes != 0)
    t.local = w.localBytes /
              localBytesPerSecond(w, static_cast<int64_t>(resident)) /
              std::max(fill, 1e-9);
  double worst = w.launchSeconds;
  t.bound = Bound::Launch;
  for (auto [seconds, bound] :
       {std::pair{t.arithmetic, Bound::Arithmetic},
        std::pair{t.tensor, Bound::Tensor}, std::pair{t.issue, Bound::Issue},
        std::pair{t.dram, Bound::DRAM}, std::pair{t.l2, Bound::L2},
        std::pair{t.shared, Bound::Shared}, std::pair{t.local, Bound::Local}})
    if (seconds > worst) {
      worst = seconds;
      t.bound = bound;
    }
  t.seconds = std::max({t.arithmetic, t.tensor, t.issue, t.dram, t.l2, t.shared,
                        t.local}) +
              w.launchSeconds;
  return t;
}

double calibratedGemmSeconds(int64_t m, int64_t n, int64_t k, int64_t batch,
                             GemmElementBytes elementBytes, bool readsC,
                             double launchSeconds) {
  using M = H100Measured;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                       static_cast<double>(k) * static_cast<double>(batch);
  const int64_t tiles =
      ceilDiv(m, M::kGemmTileM) * ceilDiv(n, M::kGemmTileN) * batch;
  const double waves =
      static_cast<double>(tiles) /
      static_cast<double>(H100::kSMs *
                          ceilDiv(std::max<int64_t>(tiles, 1), H100::kSMs));
  const double peak =
      gemmPeakFlops(elementBytes.operand) * M::kGemmEfficiency * waves;
  return std::max(flops / peak,
                  gemmBytes(m, n, k, batch, elementBytes, readsC) /
                      H100::kBandwidth) +
         launchSeconds;
}

double
exposedReduceSeconds(const std::vector<ReduceStart> &starts, double total,
                     double bucketBytes,
                     const std::function<double(double)> &reduceSeconds) {
  double finish = 0, held = 0;
  auto issue = [&](double at, double bytes) {
    finish = std::max(finish, at) + reduceSeconds(bytes);
  };
  for (const ReduceStart &s : starts) {
    held += s.bytes;
    if (held >= bucketBytes) {
      issue(std::max(0.0, total - s.workAfter), held);
      held = 0;
    }
  }
  if (held > 0)
    issue(total, held);
  return std::max(0.0, finish - total);
}

} // namespace gptc::cost
