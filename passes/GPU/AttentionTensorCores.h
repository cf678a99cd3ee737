//===- AttentionTensorCores.h - Tensor-core flash attention -----*- C++ -*-===//
//
// The kernels of gpt.attention and gpt.attention_grad {products = bf16}
// for NVIDIA tensor cores (sm_80 and later), in the FlashAttention-2
// partition. Forward and dQ: a block of four warps per tile of 64 queries,
// each warp owning 16 query rows; K and V staged in shared memory 64 keys
// at a time (32 for the forward, 16 for dQ over head_dim 64), into two
// buffers used in turn (one barrier per tile). dK/dV: a warp per 16 keys,
// Q and dO staged per tile of queries the same way. Every product by
// mma.sync.m16n8k16 (bf16 x bf16, f32 accumulation) with operands loaded
// by ldmatrix; scores, softmax statistics and accumulators in registers
// (no local memory). Tiles outside a tile's key (or query) range are never
// visited (the range from the key bounds, as the scalar kernels); the rest
// are masked element by element.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_GPU_ATTENTIONTENSORCORES_H
#define GPTC_PASSES_GPU_ATTENTIONTENSORCORES_H

#include "passes/Lowering/AttentionKernels.h"

namespace gptc::lowering {

/// Whether the tensor-core kernel handles `p`: a head dimension that is a
/// multiple of 16 (the mma's k) and at most 128 (the accumulator's
/// registers).
bool tensorCoreAttentionFits(const AttentionProblem &p);

/// out = softmax(scale q k^T + mask) v and lse as emitAttentionForward,
/// from q, k, v already rounded to bf16 (memref<BxHxTxDxbf16>), the
/// probabilities rounded to bf16 before they weigh v; out and lse in f32.
void emitTensorCoreAttentionForward(mlir::OpBuilder &b, mlir::Location loc,
                                    const AttentionProblem &p, mlir::Value lo,
                                    mlir::Value hi, mlir::Value q,
                                    mlir::Value k, mlir::Value v,
                                    AttentionOutput result);

/// The backward's query kernel on tensor cores: dq of the attention that
/// produced `forward` given `dout`, and delta = rowsum(dout * out) per row
/// (memref<BxHxTxf32>, for emitAttentionKeyValueGrad), from q, k, v and
/// dout rounded to bf16 (memref<BxHxTxDxbf16>); S, dP = dout v^T and
/// dq += ds k by mma.sync, ds rounded to bf16 before it weighs k.
void emitTensorCoreQueryGrad(mlir::OpBuilder &b, mlir::Location loc,
                             const AttentionProblem &p, mlir::Value lo,
                             mlir::Value hi, mlir::Value q, mlir::Value k,
                             mlir::Value v, AttentionOutput forward,
                             mlir::Value dout, mlir::Value dq,
                             mlir::Value delta);

/// The backward's key kernel on tensor cores: dk and dv from q, k, v and
/// dout in bf16, the forward's lse and emitTensorCoreQueryGrad's delta:
/// S^T = k q^T, dP^T = v dout^T, dv += p^T dout and dk += ds^T q by
/// mma.sync, p and ds rounded to bf16 before they weigh.
void emitTensorCoreKeyValueGrad(mlir::OpBuilder &b, mlir::Location loc,
                                const AttentionProblem &p, mlir::Value lo,
                                mlir::Value hi, mlir::Value q, mlir::Value k,
                                mlir::Value v, mlir::Value dout,
                                mlir::Value lse, mlir::Value delta,
                                mlir::Value dk, mlir::Value dv);

} // namespace gptc::lowering

#endif // GPTC_PASSES_GPU_ATTENTIONTENSORCORES_H
