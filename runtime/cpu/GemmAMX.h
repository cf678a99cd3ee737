//===- GemmAMX.h - bf16 GEMMs on Intel AMX tiles ----------------*- C++ -*-===//
//
// The bf16 GEMM of the runtime (gptc_gemm_bf16: bf16 operands and result,
// f32 accumulation) on the AMX tile unit when the CPU and the kernel offer
// it (Sapphire Rapids and later): TDPBF16PS multiplies bf16 pairs and
// accumulates in f32, which is exactly the contract, at several times the
// rate of f32 FMA. Elsewhere, or with GPTC_GEMM_AMX=0 in the environment,
// gptc_gemm_bf16 widens to f32 and calls OpenBLAS (runtime/cpu/Gemm.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_CPU_GEMMAMX_H
#define GPTC_RUNTIME_CPU_GEMMAMX_H

#include "runtime/cpu/Bf16.h"

#include <cstdint>

namespace gptc::runtime {

/// True when AMX-BF16 can run in this process: CPUID reports AMX-TILE and
/// AMX-BF16, the kernel grants the tile state (arch_prctl
/// ARCH_REQ_XCOMP_PERM), and GPTC_GEMM_AMX is not "0". Decided once.
bool amxBf16Available();

/// D = alpha A B + beta C, A m x k, B k x n, D m x n (transposes are
/// strides). Products of bf16 are exact, sums are f32 (in k order within
/// each 32-wide slice), the result is rounded to bf16 once, to nearest
/// even. Only call when amxBf16Available().
void amxGemmBf16(const Bf16Matrix &a, const Bf16Matrix &b, const Bf16Matrix &d,
                 const Bf16Epilogue &epilogue);

/// D = alpha A A^T (m x m, symmetric), A m x k: only the 32 x 32 blocks on
/// and above the diagonal are computed, the others are their mirror
/// images, so D is exactly symmetric at about half the work. A is packed
/// once and the blocks are spread over the OpenMP threads (call it outside
/// a parallel region to use them). Same rounding as amxGemmBf16.
void amxSyrkBf16(const Bf16Matrix &a, const Bf16Matrix &d, float alpha);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_CPU_GEMMAMX_H
