//===- GemmAVX512.h - f32 GEMM on AVX-512 -------------------------*- C++
//-*-===//
//
// gptc's own single-precision GEMM for CPUs with AVX-512: a packed,
// cache-blocked GEMM (the BLIS loop nest) around a 12 x 32 register-tiled
// micro-kernel of FMAs. It runs the f32 GEMM callbacks and the widened
// bf16 ones (runtime/cpu/Gemm.cpp) in place of cblas_sgemm when the CPU
// has AVX-512F and the OS saves the ZMM state, unless GPTC_GEMM_AVX512=0
// is in the environment; f64 stays on OpenBLAS. Where the CPU also has
// AVX512_BF16, bf16 GEMMs run on a kernel of the same shape over bf16
// pairs (VDPBF16PS: twice the multiply-adds per instruction, no widening).
//
// Why not OpenBLAS's own AVX-512 kernels: OpenBLAS picks them by CPU model,
// and older builds (Debian 12's 0.3.21) mis-detect or miscompute on some
// newer CPUs, so environments pin OPENBLAS_CORETYPE to an AVX2 core. This
// kernel needs only the AVX-512F feature bit and is tested against an
// exact reference on every shape class (unittests/Runtime/GemmTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CPU_GEMMAVX512_H
#define GPTC_RUNTIME_CPU_GEMMAVX512_H

#include "runtime/cpu/Bf16.h"

#include <cstdint>

namespace gptc::runtime {

/// True when the AVX-512 f32 GEMM can run here: CPUID reports AVX-512F, the
/// OS saves the ZMM registers, and GPTC_GEMM_AVX512 is not "0". Decided
/// once.
bool avx512SgemmAvailable();

/// Row-major C (m x n, row stride ldc) = alpha op(A) op(B) + beta C, the
/// contract of cblas_sgemm(CblasRowMajor, ...): op(A) is m x k, A stored
/// row-major with row stride lda (k x m when transA); likewise B. beta == 0
/// never reads C. Single-threaded: callers split the work. Sums run in k
/// order for every element, whatever the split. Only call when
/// avx512SgemmAvailable().
void avx512Sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
                 float alpha, const float *a, int64_t lda, const float *b,
                 int64_t ldb, float beta, float *c, int64_t ldc);

/// True when the AVX-512 bf16 GEMM can run here: as above, and CPUID
/// reports AVX512_BF16 (VDPBF16PS). Decided once.
bool avx512Bf16Available();

/// D = alpha A B + beta C with bf16 A (m x k), B (k x n), C and D (m x n),
/// all strided: the products of bf16 pairs summed in f32 by VDPBF16PS
/// (runtime/cpu/GemmAVX512Bf16.cpp), the epilogue applied in f32, then one
/// rounding to bf16, to nearest even. Each element's sum is a chain over k
/// in pairs, restarted every 512 k, the chains added in k order: the same
/// bits whatever the split or the kernel's blocking. Single-threaded. Only
/// call when avx512Bf16Available().
void avx512GemmBf16(const Bf16Matrix &a, const Bf16Matrix &b,
                    const Bf16Matrix &d, const Bf16Epilogue &epilogue);

/// Rows [i0, i1) of the lower triangle (j <= i) of the Gram product
/// D = alpha X X^T + beta C of a bf16 X (m x k), C and D m x m (the
/// epilogue's C indexed as D, read only at the elements written): only the
/// register tiles that hold such elements are computed, each element bit
/// for bit as avx512GemmBf16 computes it; nothing else of D is written.
/// Single-threaded. Only call when avx512Bf16Available().
void avx512GramLowerBf16(const Bf16Matrix &x, int64_t i0, int64_t i1,
                         const Bf16Matrix &d, const Bf16Epilogue &epilogue);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_CPU_GEMMAVX512_H
