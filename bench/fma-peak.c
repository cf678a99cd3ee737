/* The machine's f32 FMA peak, measured: every thread runs independent
 * chains of vector FMAs (enough of them to cover the FMA latency) for a
 * fixed count, and the total FLOPs over the wall time is printed in GFLOP/s.
 * The chains are written out (CHAIN_STEP), not left to the compiler to
 * unroll: GCC 12 at -O2 kept a looped acc[] on the stack, and the
 * store-to-load latency made the "peak" a quarter of the real one.
 * bench/step-vs-pytorch.sh builds it with cc -O2 -march=native -fopenmp.
 *   fma-peak THREADS  ->  "fma peak: N GFLOP/s f32 (T threads, W-wide)"
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
      CHAIN_STEP(0);
      CHAIN_STEP(1);
      CHAIN_STEP(2);
      CHAIN_STEP(3);
      CHAIN_STEP(4);
      CHAIN_STEP(5);
      CHAIN_STEP(6);
      CHAIN_STEP(7);
      CHAIN_STEP(8);
      CHAIN_STEP(9);
      CHAIN_STEP(10);
      CHAIN_STEP(11);
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
  return 0;
}
