/* The machine's f32 FMA peak, measured: every thread runs independent
 * chains of vector FMAs (enough of them to cover the FMA latency) for a
 * fixed count, and the total FLOPs over the wall time is printed in GFLOP/s.
 * The chains are written out (CHAIN_STEP), not left to the compiler to
 * unroll: GCC 12 at -O2 kept a looped acc[] on the stack, and the
 * store-to-load latency made the "peak" a quarter of the real one.
 * On a CPU with AVX512_BF16 it also measures VDPBF16PS (two bf16 products
 * per f32 lane, 64 FLOPs per instruction), the peak of bf16 GEMMs there.
 * bench/step-vs-pytorch.sh builds it with cc -O2 -march=native -fopenmp.
 *   fma-peak THREADS  ->  "fma peak: N GFLOP/s f32 (T threads, W-wide)"
 *                         ["bf16 dot peak: N GFLOP/s (T threads)"]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#define WIDTH 16
typedef __m512 vec;
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define STORE _mm512_storeu_ps
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define WIDTH 8
typedef __m256 vec;
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define STORE _mm256_storeu_ps
#else
#error "fma-peak needs AVX2+FMA or AVX-512"
#endif

#define CHAINS 12
/* One step of each of the CHAINS chains, written out (CHAIN_STEP(c) is
 * defined at each use). */
#define EVERY_CHAIN_STEP                                                       \
  CHAIN_STEP(0);                                                               \
  CHAIN_STEP(1);                                                               \
  CHAIN_STEP(2);                                                               \
  CHAIN_STEP(3);                                                               \
  CHAIN_STEP(4);                                                               \
  CHAIN_STEP(5);                                                               \
  CHAIN_STEP(6);                                                               \
  CHAIN_STEP(7);                                                               \
  CHAIN_STEP(8);                                                               \
  CHAIN_STEP(9);                                                               \
  CHAIN_STEP(10);                                                              \
  CHAIN_STEP(11)

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  const long iterations = 4000000000L / CHAINS;
  omp_set_num_threads(threads);
  float sink = 0;
  double start = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
  {
    vec acc[CHAINS];
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = SET1(1.0f + c * 1e-3f);
    const vec a = SET1(0.999999f), b = SET1(1e-7f);
    for (long i = 0; i < iterations; ++i) {
#define CHAIN_STEP(c) acc[c] = FMA(acc[c], a, b)
      EVERY_CHAIN_STEP;
#undef CHAIN_STEP
    }
    float out[WIDTH];
    for (int c = 1; c < CHAINS; ++c)
      acc[0] = FMA(acc[0], a, acc[c]);
    STORE(out, acc[0]);
    sink += out[0];
  }
  double seconds = omp_get_wtime() - start;
  double flops = 2.0 * WIDTH * CHAINS * (double)iterations * threads;
  printf("fma peak: %.1f GFLOP/s f32 (%d threads, %d-wide)%s\n",
         flops / seconds / 1e9, threads, WIDTH, sink == 12345 ? " " : "");
#if defined(__AVX512BF16__)
  start = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
  {
    __m512 acc[CHAINS];
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = _mm512_set1_ps(1.0f + c * 1e-3f);
    /* bf16 pairs of 0.5 and 2^-20: the sums grow slowly, never overflow. */
    const __m512bh a = (__m512bh)_mm512_set1_epi32(0x3f003f00);
    const __m512bh b = (__m512bh)_mm512_set1_epi32(0x35803580);
    for (long i = 0; i < iterations; ++i) {
#define CHAIN_STEP(c) acc[c] = _mm512_dpbf16_ps(acc[c], a, b)
      EVERY_CHAIN_STEP;
#undef CHAIN_STEP
    }
    float out[16];
    for (int c = 1; c < CHAINS; ++c)
      acc[0] = _mm512_add_ps(acc[0], acc[c]);
    _mm512_storeu_ps(out, acc[0]);
    sink += out[0];
  }
  seconds = omp_get_wtime() - start;
  flops = 64.0 * CHAINS * (double)iterations * threads;
  printf("bf16 dot peak: %.1f GFLOP/s (%d threads)%s\n", flops / seconds / 1e9,
         threads, sink == 12345 ? " " : "");
#endif
  return 0;
}
