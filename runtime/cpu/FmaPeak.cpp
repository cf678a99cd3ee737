//===- FmaPeak.cpp - The f32 FMA throughput of this machine, measured -----===//

#include "runtime/cpu/FmaPeak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace gptc::runtime {
namespace {

// 12 independent chains hide the FMA latency (4-5 cycles) on two ports.
constexpr int kChains = 12;
constexpr long kBlock = 4096; // iterations between clock reads

using Clock = std::chrono::steady_clock;

Clock::time_point deadline(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(seconds));
}

/// FLOPs of `iterations` rounds of the chains, `lanes` wide.
double chainFlops(long iterations, int lanes) {
  return 2.0 * double(iterations) * kChains * lanes;
}

// Each ISA's chains for `seconds` (the loops inside the target-attributed
// function: its intrinsics inline only there). Returns the FLOPs done.
__attribute__((target("avx512f"))) double avx512(double seconds) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps(float(i));
  const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  long iterations = 0;
  for (Clock::time_point end = deadline(seconds); Clock::now() < end;
       iterations += kBlock)
    for (long k = 0; k < kBlock; ++k)
      for (int i = 0; i < kChains; ++i)
        acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  volatile float sink = 0;
  for (int i = 0; i < kChains; ++i)
    sink = sink + _mm512_reduce_add_ps(acc[i]);
  return chainFlops(iterations, 16);
}

__attribute__((target("avx2,fma"))) double avx2(double seconds) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm256_set1_ps(float(i));
  const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  long iterations = 0;
  for (Clock::time_point end = deadline(seconds); Clock::now() < end;
       iterations += kBlock)
    for (long k = 0; k < kBlock; ++k)
      for (int i = 0; i < kChains; ++i)
        acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  alignas(32) float lanes[8];
  volatile float sink = 0;
  for (int i = 0; i < kChains; ++i) {
    _mm256_store_ps(lanes, acc[i]);
    sink = sink + lanes[0];
  }
  return chainFlops(iterations, 8);
}

double sse(double seconds) {
  __m128 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm_set1_ps(float(i));
  const __m128 m = _mm_set1_ps(0.9999999f), c = _mm_set1_ps(1e-7f);
  long iterations = 0;
  for (Clock::time_point end = deadline(seconds); Clock::now() < end;
       iterations += kBlock)
    for (long k = 0; k < kBlock; ++k)
      for (int i = 0; i < kChains; ++i)
        acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], m), c);
  volatile float sink = 0;
  for (int i = 0; i < kChains; ++i)
    sink = sink + _mm_cvtss_f32(acc[i]);
  return chainFlops(iterations, 4);
}

} // namespace

FmaPeak measureFmaPeak(int threads, double seconds) {
  FmaPeak peak;
  peak.threads = std::max(1, threads);
  double (*chains)(double) = sse;
  peak.unit = "f32 SSE";
  if (__builtin_cpu_supports("avx512f")) {
    chains = avx512;
    peak.unit = "f32 FMA AVX-512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    chains = avx2;
    peak.unit = "f32 FMA AVX2";
  }
  std::vector<double> flops(size_t(peak.threads), 0.0);
  std::vector<std::thread> pool;
  Clock::time_point start = Clock::now();
  for (int t = 0; t < peak.threads; ++t)
    pool.emplace_back([&, t] { flops[size_t(t)] = chains(seconds); });
  for (std::thread &t : pool)
    t.join();
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  double total = 0;
  for (double f : flops)
    total += f;
  peak.flops = wall > 0 ? total / wall : 0;
  return peak;
}

} // namespace gptc::runtime
