//===- FmaPeak.h - The f32 FMA throughput of this machine, measured -*- C++
//-*-===//
//
// gptc train's MFU on the CPU is against a peak measured at start: threads
// each running independent chains of f32 fused multiply-adds on the widest
// vector unit the CPU has (AVX-512, AVX2 + FMA, else SSE multiply and add),
// as bench/fma-peak.c measures it. What a CPU step's products run on.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CPU_FMAPEAK_H
#define GPTC_RUNTIME_CPU_FMAPEAK_H

#include <string>

namespace gptc {
namespace runtime {

struct FmaPeak {
  double flops = 0; ///< FLOP/s over all threads (an FMA is 2 FLOPs)
  std::string unit; ///< "f32 FMA AVX-512", "f32 FMA AVX2", "f32 SSE"
  int threads = 0;
};

/// Runs `threads` threads of FMA chains for about `seconds` and returns
/// their summed rate.
FmaPeak measureFmaPeak(int threads, double seconds = 0.05);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CPU_FMAPEAK_H
