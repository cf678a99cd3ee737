//===- PeakFlops.h - The peak gptc train's MFU is against -------*- C++ -*-===//
//
// MFU = a step's model FLOPs (the manifest's step_flops) / its time / a
// peak. The peak is stated, with where it comes from: --peak-tflops; on a
// GPU the datasheet's dense peak of the unit the step's products run on
// (bf16 tensor cores for bf16 bundles, FP32 cores for f32 ones: the CUDA
// step asks cuBLASLt for no TF32); on the CPU the f32 FMA rate measured at
// start (runtime/cpu/FmaPeak.h). Unknown (an emulated or unlisted GPU):
// no MFU.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_PEAKFLOPS_H
#define GPTC_COMMANDS_PEAKFLOPS_H

#include <optional>
#include <string>

namespace gptc {
namespace runtime {
struct Manifest;
} // namespace runtime
namespace commands {

struct StatedPeak {
  double flops = 0;   ///< FLOP/s a rank; 0: unknown (no MFU)
  std::string source; ///< what it is, for the header
};

/// The peak of a rank running `m` on the device named `deviceName` ("cpu"
/// for the CPU), or `tflops` when given; a CPU rank measures `threads`
/// threads.
StatedPeak statedPeak(const runtime::Manifest &m, const std::string &deviceName,
                      std::optional<double> tflops, int threads);

/// The threads a CPU rank's step runs on: OMP_NUM_THREADS, else this
/// machine's cores shared by its `localRanks` ranks.
int cpuThreadsPerRank(int64_t localRanks);

/// The header's MFU line after "mfu: ": the step's FLOPs (a rank's when
/// `worldSize` > 1), what they count, and the peak.
std::string describeStepFlops(const runtime::Manifest &m, int worldSize,
                              const std::string &peakSource);

} // namespace commands
} // namespace gptc

#endif // GPTC_COMMANDS_PEAKFLOPS_H
