//===- GemmAMX.cpp - bf16 GEMMs on Intel AMX tiles ------------------------===//
//
// C (m x n) = A (m x k) B (k x n) in three levels:
//   for each K block of kKc:            B's block packed in VNNI panels
//     for each M block of kMc rows:     A's block packed row-major (in L2)
//       for each 32-column panel of B:  (kKc x 32, 64 KiB: in L2)
//         for each 32-row slice of A's block:
//           four 16 x 16 f32 C tiles += two A tiles x two B tiles,
//           for every 32-wide slice of the K block (TDPBF16PS)
// With one K block (k <= kKc) each 32 x 32 block is rounded into C straight
// from the tiles; with several, the f32 sums of C wait in a thread-local
// m x n buffer between K blocks and are rounded to bf16 once at the end.
// Sizes are padded to the tile grid with zeros (which add nothing to the
// sums). The Gram product A A^T (amxSyrkBf16) packs A once for the whole
// OpenMP team, computes the blocks on and above the diagonal only and
// mirrors them.
//
// Tile layouts (all tiles are 16 rows of 64 bytes):
//   A tile: 16 rows of A, 32 consecutive k each;
//   B tile: 16 k-pairs, each 16 columns x (B[2q][j], B[2q+1][j]) (VNNI);
//   C tile: 16 rows x 16 columns of f32.
//
// Only the functions marked with a target attribute (AMX for the tiles,
// AVX-512 for packing and write-back) use instructions beyond x86-64, and
// they run only after amxBf16Available(), so loading this code on any
// x86-64 CPU is safe.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/GemmAMX.h"
#include "runtime/cpu/Bf16.h"

#include <immintrin.h>

#include <algorithm>
#include <cpuid.h>
#include <cstdlib>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace gptc::runtime {
namespace {

constexpr int64_t kTileRows = 16;
constexpr int64_t kBlock = 32; ///< C is computed in 32 x 32 blocks
constexpr int64_t kTileK = 32; ///< bf16 elements of k per tile row
constexpr int64_t kKc = 1024;  ///< K block
constexpr int64_t kMc = 256;   ///< M block

int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Packing and write-back run only where AMX does, so on CPUs that all have
// AVX-512: compiled for it, their loops vectorise at full width.
#define GPTC_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl")))

/// The tile configuration (palette 1): eight tiles of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t startRow = 0;
  uint8_t reserved[14] = {};
  uint16_t colsBytes[16] = {};
  uint8_t rows[16] = {};
};

bool detectAMX() {
  if (const char *env = std::getenv("GPTC_GEMM_AMX"))
    if (std::strcmp(env, "0") == 0)
      return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return false;
  constexpr unsigned kAMXBF16 = 1u << 22, kAMXTile = 1u << 24;
  if (!(edx & kAMXBF16) || !(edx & kAMXTile))
    return false;
  // Linux hands out the 8 KiB tile state only on request.
  constexpr long kReqXCompPerm = 0x1023, kXFeatureXTileData = 18;
  return syscall(SYS_arch_prctl, kReqXCompPerm, kXFeatureXTileData) == 0;
}

__attribute__((target("amx-tile"))) void configureTiles() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.rows[t] = kTileRows;
    config.colsBytes[t] = 64;
  }
  // GCC's intrinsic reads the config through an asm operand without a
  // memory input: without this barrier the stores above are dropped.
  __asm__ __volatile__("" : : "r"(&config) : "memory");
  _tile_loadconfig(&config);
}

__attribute__((target("amx-tile"))) void releaseTiles() { _tile_release(); }

/// One 32 x 32 block of C (f32, row stride ldc) += A (32 rows, row stride
/// lda, kcp columns) x the B panel (kcp / 2 k-pairs of 32 columns); starts
/// from zero instead of C when !load.
__attribute__((target("amx-tile,amx-bf16"))) void
block32(const uint16_t *a, int64_t lda, const uint16_t *panel, int64_t kcp,
        float *c, int64_t ldc, bool load) {
  const int64_t cStride = ldc * int64_t(sizeof(float));
  const int64_t aStride = lda * int64_t(sizeof(uint16_t));
  constexpr int64_t kPanelStride = kBlock * 2 * sizeof(uint16_t); // 128 B
  if (load) {
    _tile_loadd(0, c, cStride);
    _tile_loadd(1, c + 16, cStride);
    _tile_loadd(2, c + 16 * ldc, cStride);
    _tile_loadd(3, c + 16 * ldc + 16, cStride);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int64_t p = 0; p < kcp; p += kTileK) {
    const uint16_t *b = panel + (p / 2) * (kBlock * 2);
    _tile_loadd(4, a + p, aStride);
    _tile_loadd(5, a + 16 * lda + p, aStride);
    _tile_loadd(6, b, kPanelStride);
    _tile_loadd(7, b + 32, kPanelStride);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c, cStride);
  _tile_stored(1, c + 16, cStride);
  _tile_stored(2, c + 16 * ldc, cStride);
  _tile_stored(3, c + 16 * ldc + 16, cStride);
}

/// Rows [i0, i0 + mc) and columns [p0, p0 + kc) of A into `out`, mc x kcp
/// row-major, zero beyond A.
GPTC_AVX512 void packA(const Bf16Matrix &a, int64_t i0, int64_t mc, int64_t p0,
                       int64_t kc, int64_t kcp, uint16_t *out) {
  const int64_t rows = std::max<int64_t>(0, std::min(mc, a.rows - i0));
  if (a.rs == 1 && a.cs != 1) {
    // A^T row-major: transpose 32 x 32 blocks, reading along A^T's rows.
    for (int64_t ib = 0; ib < rows; ib += kBlock)
      for (int64_t pb = 0; pb < kc; pb += kBlock) {
        const int64_t iEnd = std::min(rows, ib + kBlock);
        const int64_t pEnd = std::min(kc, pb + kBlock);
        for (int64_t p = pb; p < pEnd; ++p) {
          const uint16_t *src = a.ptr + (p0 + p) * a.cs + i0;
          for (int64_t i = ib; i < iEnd; ++i)
            out[i * kcp + p] = src[i];
        }
      }
  } else {
    for (int64_t i = 0; i < rows; ++i) {
      uint16_t *dst = out + i * kcp;
      const uint16_t *src = a.ptr + (i0 + i) * a.rs + p0 * a.cs;
      if (a.cs == 1) {
        std::memcpy(dst, src, size_t(kc) * sizeof(uint16_t));
      } else {
        for (int64_t p = 0; p < kc; ++p)
          dst[p] = src[p * a.cs];
      }
    }
  }
  for (int64_t i = 0; i < rows; ++i)
    std::fill(out + i * kcp + kc, out + (i + 1) * kcp, uint16_t(0));
  std::fill(out + rows * kcp, out + mc * kcp, uint16_t(0));
}

/// Rows [p0, p0 + kc) and columns [j0, j0 + 32) of B into one VNNI panel of
/// kcp / 2 k-pairs x 32 columns x 2, zero beyond B. B^T row-major (the
/// common transposed layout) copies a k-pair as one 32-bit word.
GPTC_AVX512 void packPanel(const Bf16Matrix &b, int64_t p0, int64_t kc,
                           int64_t kcp, int64_t j0, uint16_t *panel) {
  const int64_t cols = std::max<int64_t>(0, std::min(kBlock, b.cols - j0));
  if (cols < kBlock || kc < kcp) // padding: everything else is overwritten
    std::fill(panel, panel + kcp * kBlock, uint16_t(0));
  if (b.rs == 1 && b.cs != 1) {
    const int64_t pairs = kc / 2;
    for (int64_t j = 0; j < cols; ++j) {
      const uint16_t *col = b.ptr + p0 + (j0 + j) * b.cs;
      uint16_t *dst = panel + 2 * j;
      for (int64_t q = 0; q < pairs; ++q)
        std::memcpy(dst + q * (kBlock * 2), col + 2 * q, 4);
      if (kc % 2)
        dst[pairs * (kBlock * 2)] = col[kc - 1];
    }
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    uint16_t *dst = panel + (p / 2) * (kBlock * 2) + (p % 2);
    const uint16_t *src = b.ptr + (p0 + p) * b.rs + j0 * b.cs;
    for (int64_t j = 0; j < cols; ++j)
      dst[2 * j] = src[j * b.cs];
  }
}

/// Rows [p0, p0 + kc) of B into `out` as np / 32 panels (packPanel). B
/// row-major is copied row by row across the panels instead.
GPTC_AVX512 void packB(const Bf16Matrix &b, int64_t p0, int64_t kc, int64_t kcp,
                       int64_t np, std::vector<uint16_t> &out) {
  out.resize(size_t(kcp * np));
  if (b.cs != 1) {
    for (int64_t j0 = 0; j0 < np; j0 += kBlock)
      packPanel(b, p0, kc, kcp, j0, out.data() + j0 * kcp);
    return;
  }
  const int64_t n = b.cols;
  if (n < np || kc < kcp) // padding: everything else is overwritten
    std::fill(out.begin(), out.end(), uint16_t(0));
  for (int64_t p = 0; p < kc; ++p) {
    const uint16_t *src = b.ptr + (p0 + p) * b.rs;
    uint16_t *dst = out.data() + (p / 2) * (kBlock * 2) + (p % 2);
    for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
      uint16_t *panel = dst + j0 * kcp;
      const int64_t cols = std::min(kBlock, n - j0);
      for (int64_t j = 0; j < cols; ++j)
        panel[2 * j] = src[j0 + j];
    }
  }
}

/// Row i of the result: D[i][j] = bf16(alpha sums[j] + beta C[i][j]) for
/// j < n, rounded to nearest even, NaNs kept quiet. Branch-free so that the
/// contiguous case vectorises.
GPTC_AVX512 void storeRow(const float *sums, const Bf16Matrix &d, int64_t i,
                          int64_t j0, int64_t n, const Bf16Epilogue &e) {
  auto round = [](float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    uint32_t quiet = (bits >> 16) | 0x40u;
    return uint16_t((bits & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
  };
  uint16_t *out = d.ptr + i * d.rs + j0 * d.cs;
  const float alpha = e.alpha, beta = e.beta;
  if (beta == 0.0f) {
    if (d.cs == 1)
      for (int64_t j = 0; j < n; ++j)
        out[j] = round(alpha * sums[j]);
    else
      for (int64_t j = 0; j < n; ++j)
        out[j * d.cs] = round(alpha * sums[j]);
    return;
  }
  const uint16_t *src = e.c + i * e.rs + j0 * e.cs;
  if (d.cs == 1 && e.cs == 1)
    for (int64_t j = 0; j < n; ++j)
      out[j] = round(alpha * sums[j] + beta * bf16ToF32(src[j]));
  else
    for (int64_t j = 0; j < n; ++j)
      out[j * d.cs] = round(alpha * sums[j] + beta * bf16ToF32(src[j * e.cs]));
}

} // namespace

bool amxBf16Available() {
  static const bool available = detectAMX();
  return available;
}

void amxGemmBf16(const Bf16Matrix &a, const Bf16Matrix &b, const Bf16Matrix &d,
                 const Bf16Epilogue &epilogue) {
  const int64_t m = d.rows, n = d.cols, k = a.cols;
  if (m == 0 || n == 0)
    return;
  const int64_t mp = roundUp(m, kBlock), np = roundUp(n, kBlock);
  thread_local std::vector<uint16_t> packedA, packedB;
  thread_local std::vector<float> sums;
  // One K block: each 32 x 32 block goes from its tiles to C at once (a
  // block in L1); several: the f32 sums of all of C wait in `sums`.
  const bool oneKBlock = k <= kKc;
  float block[kBlock * kBlock];
  if (!oneKBlock)
    sums.resize(size_t(mp * np)); // the first K block stores, not adds
  configureTiles();
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    const int64_t kc = std::min(kKc, k - p0), kcp = roundUp(kc, kTileK);
    packB(b, p0, kc, kcp, np, packedB);
    for (int64_t i0 = 0; i0 < mp; i0 += kMc) {
      const int64_t mc = std::min(kMc, mp - i0);
      packedA.resize(size_t(mc * kcp));
      packA(a, i0, mc, p0, kc, kcp, packedA.data());
      for (int64_t j0 = 0; j0 < np; j0 += kBlock)
        for (int64_t ii = 0; ii < mc; ii += kBlock) {
          const uint16_t *rows = packedA.data() + ii * kcp;
          const uint16_t *panel = packedB.data() + j0 * kcp;
          if (!oneKBlock) {
            block32(rows, kcp, panel, kcp, sums.data() + (i0 + ii) * np + j0,
                    np, p0 > 0);
            continue;
          }
          block32(rows, kcp, panel, kcp, block, kBlock, /*load=*/false);
          const int64_t i = i0 + ii;
          const int64_t rowsHere = std::min(kBlock, m - i);
          const int64_t colsHere = std::min(kBlock, n - j0);
          for (int64_t r = 0; r < rowsHere; ++r)
            storeRow(block + r * kBlock, d, i + r, j0, colsHere, epilogue);
        }
    }
  }
  releaseTiles();
  if (!oneKBlock)
    for (int64_t i = 0; i < m; ++i)
      storeRow(sums.data() + i * np, d, i, 0, n, epilogue);
}

void amxSyrkBf16(const Bf16Matrix &a, const Bf16Matrix &d, float alpha) {
  const int64_t m = a.rows, k = a.cols;
  if (m == 0)
    return;
  const int64_t mp = roundUp(m, kBlock), kp = roundUp(k, kTileK);
  const int64_t blocks = mp / kBlock;
  // Shared by the team: A's rows and A^T's panels packed once, the sums.
  thread_local std::vector<uint16_t> rows, panels;
  thread_local std::vector<float> sums;
  rows.resize(size_t(mp * kp));
  panels.resize(size_t(kp * mp));
  sums.resize(size_t(mp * mp));
  uint16_t *rowData = rows.data(), *panelData = panels.data();
  float *sumData = sums.data();
  const Bf16Matrix at{a.ptr, k, m, a.cs, a.rs}; // A^T as the B operand
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      packA(a, blk * kBlock, kBlock, 0, k, kp, rowData + blk * kBlock * kp);
      packPanel(at, 0, k, kp, blk * kBlock, panelData + blk * kBlock * kp);
    }
    configureTiles();
    // Block rows from the longest (bi = 0: every column block) down.
#pragma omp for schedule(dynamic, 1)
    for (int64_t bi = 0; bi < blocks; ++bi)
      for (int64_t bj = bi; bj < blocks; ++bj)
        block32(rowData + bi * kBlock * kp, kp, panelData + bj * kBlock * kp,
                kp, sumData + bi * kBlock * mp + bj * kBlock, mp,
                /*load=*/false);
    releaseTiles();
    // Below the diagonal blocks, C[i][j] = C[j][i].
#pragma omp for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
      float *row = sumData + i * mp;
      for (int64_t j = 0; j < (i / kBlock) * kBlock; ++j)
        row[j] = sumData[j * mp + i];
      storeRow(row, d, i, 0, m, Bf16Epilogue{alpha, 0.0f, nullptr, 0, 0});
    }
  }
}

} // namespace gptc::runtime
