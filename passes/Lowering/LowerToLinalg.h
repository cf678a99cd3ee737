//===- LowerToLinalg.h - gpt -> linalg/tensor patterns ----------*- C++ -*-===//

#ifndef GPTC_PASSES_LOWERING_LOWERTOLINALG_H
#define GPTC_PASSES_LOWERING_LOWERTOLINALG_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace gptc::lowering {

/// Elementwise, scalar, compare/select/cast ops => linalg.generic.
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// reduce, matmul, iota, constant, cumsum.
void populateReductionToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// Gathers, scatters and shape ops; gpt.embedding_grad as a loop of row
/// updates (CPU).
void populateDataMovementToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// Every gpt.embedding_grad of `func` as a segmented sum over positions
/// sorted by token, one sort per block and ids (GPU kernels,
/// EmbeddingGradSorted.cpp).
void lowerEmbeddingGradsSorted(mlir::func::FuncOp func);
/// gpt.rotary as one elementwise kernel over [..., 2, D/2]
/// (RotaryToLinalg.cpp).
void populateRotaryToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// rms_norm (linalg), attention, attention_grad, cross_entropy and
/// cross_entropy_grad (loop nests on buffers; with `gpuKernels` one thread
/// block per tile, AttentionTiling::gpu(), and per row of logits; with
/// `tensorCores` too, the bf16 attention forward on tensor cores).
void populateFusedToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                   bool gpuKernels = false,
                                   bool tensorCores = false);

} // namespace gptc::lowering

#endif // GPTC_PASSES_LOWERING_LOWERTOLINALG_H
