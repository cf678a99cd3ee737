//===- GemmAVX512Bf16.cpp - bf16 GEMM on AVX512_BF16 ---------------------===//
//
// D = alpha A B + beta C for bf16 matrices, in the loop nest of the f32
// kernel (runtime/cpu/GemmAVX512.cpp) but over pairs of k:
//   for each column block of kNc:          (jc)
//     for each K block of kKc:             (pc) B's block packed into
//                                               32-column panels of pairs
//       for each row block of kMc:         (ic) A's block packed into
//                                               12-row panels of pairs
//         for each 32-column panel:        (jr) micro-kernel per 12 rows
// A pair is two bf16 in one 32-bit lane, k even in the low half:
//   A panel, pair q: 12 lanes (A[i][2q], A[i][2q+1]);
//   B panel, pair q: 32 lanes (B[2q][j], B[2q+1][j]), two ZMM.
// VDPBF16PS adds A[i][2q+1] B[2q+1][j] and A[i][2q] B[2q][j] to the f32
// sum of lane j: 32 multiply-adds per instruction against the f32 FMA's 16,
// with no widening pass. The micro-kernel holds a 12 x 32 f32 tile in 24
// ZMM for one chain of 512 k (kChainPairs); a longer k adds the chains in
// order, through an L1 tile within a K block and an m x n f32 buffer
// across K blocks. The tile's last chain applies alpha and beta in f32 and
// rounds each sum to bf16 once, to nearest even, straight into D, as
// gptc_gemm_bf16 promises (a D or C with non-unit column stride goes
// through the buffer and one rounding pass instead). A row-major A (and a
// transposed B) is packed by 16 x 16 transposes of its pairs in registers.
// An odd k is padded with a zero; panels are padded with zeros to whole
// tiles.
//
// Only the functions marked GPTC_AVX512_BF16 use instructions beyond
// x86-64; they run only after avx512Bf16Available().
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/GemmAVX512.h"
#include "runtime/cpu/PanelBuffer.h"
#include "runtime/cpu/TransposeWords.h"

// GCC 12's AVX-512 intrinsics pass an "undefined" vector as the merge
// source of unmasked shifts and conversions, which -Wmaybe-uninitialized
// (-Wuninitialized, for the unpacks and lane shuffles) reports at every use.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>

namespace gptc::runtime {
namespace {

#define GPTC_AVX512_BF16                                                       \
  __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512bf16")))

constexpr int64_t kMr = 12;   ///< rows of the register tile
constexpr int64_t kNr = 32;   ///< columns of the register tile (2 ZMM)
constexpr int64_t kKc = 1024; ///< K block (512 pairs: a B panel is 64 KiB)
/// Pairs of one chain of VDPBF16PS per element: a sum is its chains over
/// 512 k each, added in k order (the bits do not depend on kKc, a multiple
/// of 2 kChainPairs, nor on the split). The tile of a finished chain is
/// added to the sums while still in L1.
constexpr int64_t kChainPairs = 256;
static_assert(kKc % (2 * kChainPairs) == 0);
constexpr int64_t kMc = 144;  ///< row block: A's block is 288 KiB (L2)
constexpr int64_t kNc = 3072; ///< column block

/// X[i][p] and X[i][p + 1] of a bf16 matrix as one pair (zero past
/// column `end`).
uint32_t rowPair(const Bf16Matrix &x, int64_t i, int64_t p, int64_t end) {
  const uint16_t *at = x.ptr + i * x.rs + p * x.cs;
  const uint32_t hi = p + 1 < end ? at[x.cs] : 0;
  return uint32_t(at[0]) | (hi << 16);
}

/// X[p][j] and X[p + 1][j] as one pair (zero past row `end`).
uint32_t columnPair(const Bf16Matrix &x, int64_t p, int64_t j, int64_t end) {
  const uint16_t *at = x.ptr + p * x.rs + j * x.cs;
  const uint32_t hi = p + 1 < end ? at[x.rs] : 0;
  return uint32_t(at[0]) | (hi << 16);
}

/// Pairs (x[j], y[j]) of two rows of 32 bf16: j < 16 in the first vector,
/// the rest in the second.
struct Interleaved {
  __m512i first, second;
};
GPTC_AVX512_BF16 Interleaved interleave(__m512i x, __m512i y) {
  alignas(64) static constexpr uint16_t kFirst[32] = {
      0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
      8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  alignas(64) static constexpr uint16_t kSecond[32] = {
      16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
      24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
  return {_mm512_permutex2var_epi16(x, _mm512_load_si512(kFirst), y),
          _mm512_permutex2var_epi16(x, _mm512_load_si512(kSecond), y)};
}

/// The first `count` (<= 32) elements of a bf16 row, zero beyond; a null
/// row is all zeros.
GPTC_AVX512_BF16 __m512i loadRow(const uint16_t *row, int64_t count) {
  if (!row)
    return _mm512_setzero_si512();
  const __mmask32 mask =
      count >= 32 ? ~__mmask32(0) : __mmask32((1u << count) - 1);
  return _mm512_maskz_loadu_epi16(mask, row);
}

/// A panel of `width` (at most 32) lanes per pair from rows of bf16 along
/// k, `step` apart from `base`: pair q holds (row 2q [l], row 2q + 1 [l])
/// for the first `used` lanes l, zero beyond (and in place of row 2q + 1
/// past kc).
GPTC_AVX512_BF16 void packRowPairs(const uint16_t *base, int64_t step,
                                   int64_t used, int64_t kc, int64_t kcp,
                                   int64_t width, uint32_t *out) {
  const HalfMasks store = halfMasks(width);
  for (int64_t q = 0; q < kcp; ++q, out += width) {
    const uint16_t *x = base + 2 * q * step;
    const uint16_t *y = 2 * q + 1 < kc ? x + step : nullptr;
    const Interleaved pairs = interleave(loadRow(x, used), loadRow(y, used));
    _mm512_mask_storeu_epi32(out, store.first, pairs.first);
    _mm512_mask_storeu_epi32(out + 16, store.second, pairs.second);
  }
}

/// A panel of `width` (12 or 32) lanes per pair from `rows` (<= width)
/// rows of bf16 along k with unit stride, `step` apart from `base`: pair q
/// of row r, the 32-bit word at bf16 2q of it, goes to lane r of pair q;
/// rows past `rows` are zero, and so is the missing half of the last pair
/// of an odd kc (packWordsOfRows: 16 x 16 blocks transposed in registers).
GPTC_AVX512_BF16 void packPairsOfRows(const uint16_t *base, int64_t step,
                                      int64_t rows, int64_t kc, int64_t kcp,
                                      int64_t width, uint32_t *out) {
  const int64_t whole = kc / 2; // pairs with both halves inside kc
  packWordsOfRows(base, 2 * step, rows, whole, width, out);
  if (whole < kcp) // the last pair of an odd kc: its k alone
    for (int64_t r = 0; r < width; ++r)
      out[whole * width + r] = r < rows ? base[r * step + 2 * whole] : 0;
}

/// Rows [i0, i0 + mc) and k [p0, p0 + kc) of A as panels of kMr rows of
/// kcp pairs (zero past row mc). A with unit row stride (stored
/// transposed) interleaves two k-rows of 12 at a time; with unit column
/// stride a pair is one 32-bit word of a row, transposed from 12 rows.
GPTC_AVX512_BF16 void packA(const Bf16Matrix &a, int64_t i0, int64_t mc,
                            int64_t p0, int64_t kc, int64_t kcp,
                            uint32_t *out) {
  for (int64_t ir = 0; ir < mc; ir += kMr, out += kMr * kcp) {
    const int64_t rows = std::min(kMr, mc - ir);
    if (a.rs == 1) {
      packRowPairs(a.ptr + (i0 + ir) + p0 * a.cs, a.cs, rows, kc, kcp, kMr,
                   out);
      continue;
    }
    if (a.cs == 1) {
      packPairsOfRows(a.ptr + (i0 + ir) * a.rs + p0, a.rs, rows, kc, kcp, kMr,
                      out);
      continue;
    }
    for (int64_t q = 0; q < kcp; ++q)
      for (int64_t i = 0; i < kMr; ++i)
        out[q * kMr + i] =
            i < rows ? rowPair(a, i0 + ir + i, p0 + 2 * q, p0 + kc) : 0;
  }
}

/// k [p0, p0 + kc) and columns [j0, j0 + nc) of B as panels of kNr
/// columns of kcp pairs (zero past column nc). B with unit column stride
/// interleaves two of its rows 32 columns at a time; with unit row stride
/// (stored transposed, as X^T in X X^T) a pair is one 32-bit word of a
/// column, transposed from 32 columns.
GPTC_AVX512_BF16 void packB(const Bf16Matrix &b, int64_t p0, int64_t kc,
                            int64_t kcp, int64_t j0, int64_t nc,
                            uint32_t *out) {
  for (int64_t jr = 0; jr < nc; jr += kNr, out += kNr * kcp) {
    const int64_t cols = std::min(kNr, nc - jr);
    if (b.cs == 1) {
      packRowPairs(b.ptr + p0 * b.rs + j0 + jr, b.rs, cols, kc, kcp, kNr, out);
      continue;
    }
    if (b.rs == 1) {
      packPairsOfRows(b.ptr + p0 + (j0 + jr) * b.cs, b.cs, cols, kc, kcp, kNr,
                      out);
      continue;
    }
    for (int64_t q = 0; q < kcp; ++q)
      for (int64_t j = 0; j < kNr; ++j)
        out[q * kNr + j] =
            j < cols ? columnPair(b, p0 + 2 * q, j0 + jr + j, p0 + kc) : 0;
  }
}

/// 16 f32 rounded to bf16 as f32ToBf16 does (nearest even; NaNs quiet).
GPTC_AVX512_BF16 __m256i roundToBf16(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i magnitude =
      _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
  const __mmask16 nan =
      _mm512_cmpgt_epi32_mask(magnitude, _mm512_set1_epi32(0x7f800000));
  const __m512i odd =
      _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))),
      16);
  rounded = _mm512_mask_or_epi32(rounded, nan, _mm512_srli_epi32(bits, 16),
                                 _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(rounded);
}

/// The `lanes` of 16 bf16 from `from` widened to f32 (zero elsewhere).
GPTC_AVX512_BF16 __m512 loadBf16(__mmask16 lanes, const uint16_t *from) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(
      _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanes, from)), 16));
}

/// The last K block's tiles rounded straight into D, as roundInto would
/// round them from the sums: for a D (and a C read) with unit column
/// stride. Only elements (i, j) with j <= i + diagonal when diagonal >= 0.
struct DirectRounding {
  const Bf16Matrix &d;
  const Bf16Epilogue &e;
  int64_t diagonal;

  /// Whether D and C allow it.
  static bool fits(const Bf16Matrix &d, const Bf16Epilogue &e) {
    return d.cs == 1 && (e.beta == 0.0f || e.cs == 1);
  }
};

/// Where one chain of a tile starts and ends: the tile's sums so far
/// (none for its first chain) and where its new sums go, row-major with
/// the given row strides.
struct ChainSums {
  const float *from;
  int64_t fromStride;
  float *to;
  int64_t toStride;
};

/// The f32 sums (mr x nr of a 12 x 32 tile at row `row` and column `col`
/// of D) of an A panel times a B panel over kcp pairs, added to t.from's,
/// stored to t.to; or, given `direct` (the tile's last chain), rounded
/// into D with the epilogue instead.
GPTC_AVX512_BF16 void microKernel(int64_t kcp, const uint32_t *__restrict a,
                                  const uint32_t *__restrict b,
                                  const ChainSums &t, int64_t mr, int64_t nr,
                                  const DirectRounding *direct, int64_t row,
                                  int64_t col) {
  __m512 lo[kMr], hi[kMr];
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    lo[i] = _mm512_setzero_ps();
    hi[i] = _mm512_setzero_ps();
  }
  if (t.from)
    for (int64_t i = 0; i < mr; ++i) {
      const float *from = t.from + i * t.fromStride;
      _mm_prefetch(reinterpret_cast<const char *>(from), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(from + 16), _MM_HINT_T0);
    }
  for (int64_t q = 0; q < kcp; ++q, a += kMr, b += kNr) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(b);
    const __m512bh b1 = (__m512bh)_mm512_load_si512(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(int(a[i]));
      lo[i] = _mm512_dpbf16_ps(lo[i], ai, b0);
      hi[i] = _mm512_dpbf16_ps(hi[i], ai, b1);
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    if (i >= mr)
      break;
    int64_t width = nr;
    if (direct && direct->diagonal >= 0)
      width = std::clamp<int64_t>(row + i + direct->diagonal - col + 1, 0, nr);
    const HalfMasks mask = halfMasks(width);
    __m512 v0 = lo[i], v1 = hi[i];
    if (t.from) {
      const float *from = t.from + i * t.fromStride;
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(mask.first, from));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(mask.second, from + 16));
    }
    if (!direct) {
      float *at = t.to + i * t.toStride;
      _mm512_mask_storeu_ps(at, mask.first, v0);
      _mm512_mask_storeu_ps(at + 16, mask.second, v1);
      continue;
    }
    const Bf16Epilogue &e = direct->e;
    const __m512 alpha = _mm512_set1_ps(e.alpha);
    v0 = _mm512_mul_ps(alpha, v0);
    v1 = _mm512_mul_ps(alpha, v1);
    if (e.beta != 0.0f) {
      const uint16_t *c = e.c + (row + i) * e.rs + col;
      const __m512 beta = _mm512_set1_ps(e.beta);
      v0 = _mm512_fmadd_ps(beta, loadBf16(mask.first, c), v0);
      v1 = _mm512_fmadd_ps(beta, loadBf16(mask.second, c + 16), v1);
    }
    uint16_t *out = direct->d.ptr + (row + i) * direct->d.rs + col;
    _mm256_mask_storeu_epi16(out, mask.first, roundToBf16(v0));
    _mm256_mask_storeu_epi16(out + 16, mask.second, roundToBf16(v1));
  }
}

/// D = bf16(alpha sums + beta C), sums m x n row-major. Rows of D and C
/// with unit column stride go 16 at a time.
GPTC_AVX512_BF16 void roundInto(const float *sums, const Bf16Matrix &d,
                                const Bf16Epilogue &e, int64_t diagonal) {
  const int64_t m = d.rows;
  const bool readC = e.beta != 0.0f;
  const __m512 alpha = _mm512_set1_ps(e.alpha), beta = _mm512_set1_ps(e.beta);
  for (int64_t i = 0; i < m; ++i) {
    const int64_t n =
        diagonal < 0 ? d.cols : std::min(d.cols, i + diagonal + 1);
    const float *s = sums + i * d.cols;
    uint16_t *out = d.ptr + i * d.rs;
    const uint16_t *c = readC ? e.c + i * e.rs : nullptr;
    int64_t j = 0;
    if (d.cs == 1 && (!readC || e.cs == 1))
      for (; j < n; j += 16) {
        const __mmask16 mask =
            n - j >= 16 ? 0xFFFF : __mmask16((1u << (n - j)) - 1);
        __m512 v = _mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(mask, s + j));
        if (readC)
          v = _mm512_fmadd_ps(beta, loadBf16(mask, c + j), v);
        _mm256_mask_storeu_epi16(out + j, mask, roundToBf16(v));
      }
    for (; j < n; ++j) {
      float v = e.alpha * s[j];
      if (readC)
        v = e.beta * bf16ToF32(c[j * e.cs]) + v;
      out[j * d.cs] = f32ToBf16(v);
    }
  }
}

/// avx512GemmBf16; with `diagonal` >= 0 only the elements (i, j) with
/// j <= i + diagonal: the register tiles that hold none are skipped, and
/// only those elements are rounded and written.
void gemmBf16(const Bf16Matrix &a, const Bf16Matrix &b, const Bf16Matrix &d,
              const Bf16Epilogue &epilogue, int64_t diagonal) {
  const bool lowerOnly = diagonal >= 0;
  const int64_t m = d.rows, n = d.cols, k = a.cols;
  if (m <= 0 || n <= 0)
    return;
  thread_local PanelBuffer<uint32_t> bufferA, bufferB;
  thread_local PanelBuffer<float> bufferSums;
  float *sums = bufferSums.get(m * n);
  if (k <= 0)
    std::fill(sums, sums + m * n, 0.0f);
  // The last K block rounds its tiles into D where D and C allow it;
  // roundInto then has nothing left to do.
  const DirectRounding rounding{d, epilogue, diagonal};
  const bool direct = k > 0 && DirectRounding::fits(d, epilogue);
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc), kcp = (kc + 1) / 2;
      const DirectRounding *last = direct && pc + kc == k ? &rounding : nullptr;
      uint32_t *panelsB = bufferB.get(roundUp(nc, kNr) * kcp);
      packB(b, pc, kc, kcp, jc, nc, panelsB);
      for (int64_t ic = 0; ic < m; ic += kMc) {
        const int64_t mc = std::min(kMc, m - ic);
        // A tile's columns start past its last row: all above the diagonal.
        if (lowerOnly && jc > ic + mc - 1 + diagonal)
          continue;
        uint32_t *panelsA = bufferA.get(roundUp(mc, kMr) * kcp);
        packA(a, ic, mc, pc, kc, kcp, panelsA);
        for (int64_t jr = 0; jr < nc; jr += kNr)
          for (int64_t ir = 0; ir < mc; ir += kMr) {
            const int64_t mr = std::min(kMr, mc - ir);
            if (lowerOnly && jc + jr > ic + ir + mr - 1 + diagonal)
              continue;
            // Chains within the block pass their sums in an L1 tile; the
            // block's first starts from, and its last ends in, the m x n
            // sums (unless it rounds into D).
            float *tileSums = sums + (ic + ir) * n + jc + jr;
            alignas(64) float scratch[kMr * kNr];
            for (int64_t q = 0; q < kcp; q += kChainPairs) {
              const int64_t pairs = std::min(kChainPairs, kcp - q);
              const bool first = q == 0, end = q + pairs == kcp;
              const ChainSums t{
                  first ? (pc != 0 ? tileSums : nullptr) : scratch,
                  first ? n : kNr, end ? tileSums : scratch, end ? n : kNr};
              microKernel(pairs, panelsA + ir * kcp + q * kMr,
                          panelsB + jr * kcp + q * kNr, t, mr,
                          std::min(kNr, nc - jr), end ? last : nullptr, ic + ir,
                          jc + jr);
            }
          }
      }
    }
  }
  if (!direct)
    roundInto(sums, d, epilogue, diagonal);
}

} // namespace

void avx512GemmBf16(const Bf16Matrix &a, const Bf16Matrix &b,
                    const Bf16Matrix &d, const Bf16Epilogue &epilogue) {
  gemmBf16(a, b, d, epilogue, -1);
}

void avx512GramLowerBf16(const Bf16Matrix &x, int64_t i0, int64_t i1,
                         const Bf16Matrix &d, const Bf16Epilogue &epilogue) {
  const int64_t k = x.cols;
  const Bf16Epilogue rows{epilogue.alpha, epilogue.beta,
                          epilogue.c ? epilogue.c + i0 * epilogue.rs : nullptr,
                          epilogue.rs, epilogue.cs};
  gemmBf16({x.ptr + i0 * x.rs, i1 - i0, k, x.rs, x.cs},
           {x.ptr, k, i1, x.cs, x.rs},
           {d.ptr + i0 * d.rs, i1 - i0, i1, d.rs, d.cs}, rows, i0);
}

} // namespace gptc::runtime
