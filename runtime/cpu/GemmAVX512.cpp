//===- GemmAVX512.cpp - f32 GEMM on AVX-512 ------------------------------===//
//
// C = alpha op(A) op(B) + beta C in the BLIS loop nest:
//   for each column block of kNc:          (jc)
//     for each K block of kKc:             (pc) op(B)'s block packed into
//                                               32-column panels (L3/L2)
//       for each row block of kMc:         (ic) op(A)'s block packed into
//                                               12-row panels (L2)
//         for each 32-column panel:        (jr) kc x 32, stays in L1
//           for each 12-row panel:         (ir) micro-kernel
// The micro-kernel holds a 12 x 32 tile of C in 24 ZMM registers and, per
// k, loads two vectors of the B panel and broadcasts 12 values of the A
// panel: 24 FMAs per 14 loads. Panels are padded with zeros to whole
// tiles, so the kernel always runs full tiles and masks only its stores.
// The first K block applies beta to C (never reading C when beta is 0),
// the later ones add to it; every element sums its k products in k order.
//
// Only the functions marked GPTC_AVX512 use instructions beyond x86-64, and
// they run only after avx512SgemmAvailable(): loading this code on any
// x86-64 CPU is safe.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/GemmAVX512.h"
#include "runtime/cpu/PanelBuffer.h"
#include "runtime/cpu/TransposeWords.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace gptc::runtime {
namespace {

#define GPTC_AVX512 __attribute__((target("avx2,fma,avx512f")))

constexpr int64_t kMr = 12;   ///< rows of the register tile
constexpr int64_t kNr = 32;   ///< columns of the register tile (2 ZMM)
constexpr int64_t kKc = 256;  ///< K block: a B panel is 32 KiB
constexpr int64_t kMc = 144;  ///< row block: A's block is 144 KiB (L2)
constexpr int64_t kNc = 3072; ///< column block: B's block is 3 MiB

bool avx512Enabled(bool bf16) {
  if (const char *env = std::getenv("GPTC_GEMM_AVX512"))
    if (std::strcmp(env, "0") == 0)
      return false;
  // libgcc's check covers the OS side too: XCR0 must save the opmask and
  // ZMM state.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         (!bf16 || (__builtin_cpu_supports("avx512bf16") &&
                    __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512vl")));
}

/// A row-major operand read transposed or not: op(X)[i][j].
struct Operand {
  const float *ptr;
  int64_t ld;
  bool trans;
  const float *at(int64_t i, int64_t j) const {
    return trans ? ptr + j * ld + i : ptr + i * ld + j;
  }
};

/// A panel of `width` lanes per p from `used` rows contiguous in p, `ld`
/// apart from `first`: out[p width + l] = row l [p] for l < used, zero
/// beyond (16 x 16 blocks transposed in registers).
GPTC_AVX512 void packRows(const float *first, int64_t ld, int64_t used,
                          int64_t kc, int64_t width, float *out) {
  packWordsOfRows(first, ld * int64_t(sizeof(float)), used, kc, width,
                  reinterpret_cast<uint32_t *>(out));
}

/// Rows [i0, i0 + mc) and k [p0, p0 + kc) of op(A) as panels of kMr rows:
/// panel r holds, for each p, the kMr values op(A)[i0 + r kMr + i][p0 + p]
/// (zero past row mc).
GPTC_AVX512 void packA(const Operand &a, int64_t i0, int64_t mc, int64_t p0,
                       int64_t kc, float *out) {
  for (int64_t ir = 0; ir < mc; ir += kMr, out += kMr * kc) {
    const int64_t rows = std::min(kMr, mc - ir);
    if (a.trans) {
      // op(A)'s rows are A's columns: kMr consecutive floats per p.
      const __mmask16 load = __mmask16((1u << rows) - 1);
      const __mmask16 store = __mmask16((1u << kMr) - 1);
      for (int64_t p = 0; p < kc; ++p)
        _mm512_mask_storeu_ps(
            out + p * kMr, store,
            _mm512_maskz_loadu_ps(load, a.at(i0 + ir, p0 + p)));
      continue;
    }
    packRows(a.at(i0 + ir, p0), a.ld, rows, kc, kMr, out);
  }
}

/// k [p0, p0 + kc) and columns [j0, j0 + nc) of op(B) as panels of kNr
/// columns: panel r holds, for each p, op(B)[p0 + p][j0 + r kNr + j] for
/// j < kNr (zero past column nc).
GPTC_AVX512 void packB(const Operand &b, int64_t p0, int64_t kc, int64_t j0,
                       int64_t nc, float *out) {
  for (int64_t jr = 0; jr < nc; jr += kNr, out += kNr * kc) {
    const int64_t cols = std::min(kNr, nc - jr);
    if (!b.trans) {
      const HalfMasks mask = halfMasks(cols);
      for (int64_t p = 0; p < kc; ++p) {
        const float *row = b.at(p0 + p, j0 + jr);
        _mm512_store_ps(out + p * kNr, _mm512_maskz_loadu_ps(mask.first, row));
        _mm512_store_ps(out + p * kNr + 16,
                        _mm512_maskz_loadu_ps(mask.second, row + 16));
      }
      continue;
    }
    // op(B)'s columns are B's rows: each is contiguous in p.
    packRows(b.at(p0, j0 + jr), b.ld, cols, kc, kNr, out);
  }
}

/// How the tile joins C: C = alpha tile + beta C, C not read when !readC.
struct Epilogue {
  float alpha, beta;
  bool readC;
};

/// C (mr x nr of a 12 x 32 tile, row stride ldc) joined with the product of
/// an A panel and a B panel over kc.
GPTC_AVX512 void microKernel(int64_t kc, const float *__restrict a,
                             const float *__restrict b, float *c, int64_t ldc,
                             int64_t mr, int64_t nr, const Epilogue &e) {
  __m512 lo[kMr], hi[kMr];
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    lo[i] = _mm512_setzero_ps();
    hi[i] = _mm512_setzero_ps();
  }
  // C's tile arrives in L1 while the sums run.
  if (e.readC)
    for (int64_t i = 0; i < mr; ++i) {
      _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc + 16),
                   _MM_HINT_T0);
    }
  for (int64_t p = 0; p < kc; ++p, a += kMr, b += kNr) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      lo[i] = _mm512_fmadd_ps(ai, b0, lo[i]);
      hi[i] = _mm512_fmadd_ps(ai, b1, hi[i]);
    }
  }
  const HalfMasks mask = halfMasks(nr);
  const __mmask16 m0 = mask.first, m1 = mask.second;
  const __m512 alpha = _mm512_set1_ps(e.alpha);
  const __m512 beta = _mm512_set1_ps(e.beta);
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    if (i >= mr)
      break;
    float *row = c + i * ldc;
    __m512 v0 = _mm512_mul_ps(alpha, lo[i]);
    __m512 v1 = _mm512_mul_ps(alpha, hi[i]);
    if (e.readC) {
      v0 = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(m0, row), v0);
      v1 = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(m1, row + 16), v1);
    }
    _mm512_mask_storeu_ps(row, m0, v0);
    _mm512_mask_storeu_ps(row + 16, m1, v1);
  }
}

} // namespace

bool avx512SgemmAvailable() {
  static const bool available = avx512Enabled(false);
  return available;
}

bool avx512Bf16Available() {
  static const bool available = avx512Enabled(true);
  return available;
}

void avx512Sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                 float alpha, const float *a, int64_t lda, const float *b,
                 int64_t ldb, float beta, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  thread_local PanelBuffer<float> bufferA, bufferB;
  const Operand opA{a, lda, transA}, opB{b, ldb, transB};
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      float *panelsB = bufferB.get(roundUp(nc, kNr) * kc);
      packB(opB, pc, kc, jc, nc, panelsB);
      const Epilogue e{alpha, pc == 0 ? beta : 1.0f, pc != 0 || beta != 0.0f};
      for (int64_t ic = 0; ic < m; ic += kMc) {
        const int64_t mc = std::min(kMc, m - ic);
        float *panelsA = bufferA.get(roundUp(mc, kMr) * kc);
        packA(opA, ic, mc, pc, kc, panelsA);
        for (int64_t jr = 0; jr < nc; jr += kNr)
          for (int64_t ir = 0; ir < mc; ir += kMr)
            microKernel(kc, panelsA + ir * kc, panelsB + jr * kc,
                        c + (ic + ir) * ldc + jc + jr, ldc,
                        std::min(kMr, mc - ir), std::min(kNr, nc - jr), e);
      }
    }
  }
}

} // namespace gptc::runtime
