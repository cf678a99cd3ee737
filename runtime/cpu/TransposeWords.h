//===- TransposeWords.h - 16 x 16 transposes of 32-bit words ----*- C++ -*-===//
//
// The packs of gptc's AVX-512 GEMMs read rows along k and write panels
// across them: a 16 x 16 block of 32-bit words (f32 elements, or pairs of
// bf16) is loaded a row at a time and transposed in registers, instead of
// one strided store per element.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CPU_TRANSPOSEWORDS_H
#define GPTC_RUNTIME_CPU_TRANSPOSEWORDS_H

#include "runtime/cpu/PanelBuffer.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

// GCC 12's AVX-512 unpacks and lane shuffles pass an "undefined" vector as
// their merge source, which -Wuninitialized and -Wmaybe-uninitialized
// report wherever the transposes below are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace gptc::runtime {

#define GPTC_TRANSPOSE_TARGET __attribute__((target("avx512f"), always_inline))

/// The 16 x 16 32-bit words `r` transposed in registers: t[c] lane i =
/// r[i] lane c. Four rounds of 16 shuffles: words, then pairs of words
/// interleaved within 128-bit lanes, then the lanes themselves.
GPTC_TRANSPOSE_TARGET inline void transpose16x16(const __m512i r[16],
                                                 __m512i t[16]) {
  __m512i a[16], b[16];
#pragma GCC unroll 8
  for (int i = 0; i < 16; i += 2) {
    a[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    a[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  // b[4 j + c], 128-bit lane l: column 4 l + c of rows 4 j .. 4 j + 3.
#pragma GCC unroll 4
  for (int j = 0; j < 16; j += 4) {
    b[j] = _mm512_unpacklo_epi64(a[j], a[j + 2]);
    b[j + 1] = _mm512_unpackhi_epi64(a[j], a[j + 2]);
    b[j + 2] = _mm512_unpacklo_epi64(a[j + 1], a[j + 3]);
    b[j + 3] = _mm512_unpackhi_epi64(a[j + 1], a[j + 3]);
  }
  // Column 4 l + c gathers lane l of b[c], b[4 + c], b[8 + c], b[12 + c].
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m512i low01 = _mm512_shuffle_i32x4(b[c], b[4 + c], 0x44),
                  low23 = _mm512_shuffle_i32x4(b[c], b[4 + c], 0xEE),
                  high01 = _mm512_shuffle_i32x4(b[8 + c], b[12 + c], 0x44),
                  high23 = _mm512_shuffle_i32x4(b[8 + c], b[12 + c], 0xEE);
    t[c] = _mm512_shuffle_i32x4(low01, high01, 0x88);
    t[4 + c] = _mm512_shuffle_i32x4(low01, high01, 0xDD);
    t[8 + c] = _mm512_shuffle_i32x4(low23, high23, 0x88);
    t[12 + c] = _mm512_shuffle_i32x4(low23, high23, 0xDD);
  }
}

/// A panel of `width` lanes per word from `rows` (<= width) rows of 32-bit
/// words, row r at `base` + r `stepBytes`: word q of row r goes to
/// out[q width + r] for q < count, and lanes r >= rows are zero. Blocks of
/// 16 rows x 16 words are loaded a row at a time and transposed.
GPTC_TRANSPOSE_TARGET inline void
packWordsOfRows(const void *base, int64_t stepBytes, int64_t rows,
                int64_t count, int64_t width, uint32_t *out) {
  const char *bytes = static_cast<const char *>(base);
  for (int64_t r0 = 0; r0 < width; r0 += 16) {
    const __mmask16 lanes = halfMasks(width - r0).first;
    for (int64_t q0 = 0; q0 < count; q0 += 16) {
      const int64_t words = std::min<int64_t>(16, count - q0);
      const __mmask16 load = __mmask16((1u << words) - 1);
      __m512i r[16], t[16];
#pragma GCC unroll 16
      for (int64_t i = 0; i < 16; ++i)
        r[i] = r0 + i < rows ? _mm512_maskz_loadu_epi32(
                                   load, bytes + (r0 + i) * stepBytes + 4 * q0)
                             : _mm512_setzero_si512();
      transpose16x16(r, t);
#pragma GCC unroll 16
      for (int64_t q = 0; q < words; ++q)
        _mm512_mask_storeu_epi32(out + (q0 + q) * width + r0, lanes, t[q]);
    }
  }
}

#undef GPTC_TRANSPOSE_TARGET

} // namespace gptc::runtime

#pragma GCC diagnostic pop

#endif // GPTC_RUNTIME_CPU_TRANSPOSEWORDS_H
