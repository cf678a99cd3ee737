//===- AttentionKernels.h - Flash-attention loop nests ----------*- C++ -*-===//
//
// The kernels of gpt.attention and gpt.attention_grad on buffers, as
// scf.parallel nests (one kernel each, like every other kernel of the step)
// over tiles of queries or keys:
//
//  - bounds:   per (batch, query) the allowed keys [lo, hi], from the mask:
//              every mask gptc knows (causal, window in tokens or blocks,
//              document) allows one contiguous key range per query, and lo,
//              hi never decrease along the queries. Document starts and
//              ends come from scanning the batch's tokens for BOS at run
//              time; the window size is read at run time.
//  - forward:  per query tile, online softmax over the key tiles of
//              [lo(first), hi(last)] (keys outside are skipped, never
//              computed): the T x T scores are never materialised. Each
//              row's log-sum-exp is written out for the backward pass.
//  - backward: per query tile, rowsum(dO * O) and dQ, recomputing the
//              probabilities from the forward's log-sum-exp; per key tile,
//              dK and dV over the queries that can see it.
//
// Everything accumulates in the element type of the operands (f32 or f64).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_LOWERING_ATTENTIONKERNELS_H
#define GPTC_PASSES_LOWERING_ATTENTIONKERNELS_H

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPTGPU/GPTGPUDialect.h"

#include "mlir/IR/Builders.h"

namespace gptc::lowering {

/// How the kernels tile the sequence, and who works on a tile's rows.
///  - forward and dQ: a work item per tile of `queryRows` queries, looping
///    over tiles of `keyCols` keys (staged in shared tiles);
///  - dK/dV: a work item per tile of `keyRows` keys, looping over tiles of
///    `queryCols` queries (staged in shared tiles).
/// CPU: the work item loops over its rows (contiguous rows vectorise).
/// GPU (`threadPerRow`): a work item is a thread block with one thread per
/// row; the block stages the shared tiles cooperatively between barriers,
/// and each thread keeps its row's state in registers/local memory.
struct AttentionTiling {
  int64_t queryRows = 32, keyCols = 64, keyRows = 64, queryCols = 32;
  bool threadPerRow = false;
  /// GPU: the forward of bf16 products on tensor cores
  /// (AttentionTensorCores.h).
  bool tensorCores = false;
  static AttentionTiling cpu() { return {}; }
  static AttentionTiling gpu() { return {128, 32, 128, 32, true}; }
};

/// Shapes, mask and run-time mask operands of one attention op (buffers).
struct AttentionProblem {
  AttentionTiling tiling;
  int64_t B = 0, H = 0, T = 0, D = 0;
  mlir::gpt::MaskAttr mask;
  double scale = 1.0;
  mlir::Value tokens; ///< memref<BxTxi32/i64> when the mask has documents
  mlir::Value window; ///< memref<i64> when the mask has a window
  /// {products = bf16}: the kernels round the probabilities (and, in the
  /// backward, ds) to bf16 before they weigh v, dout, k or q (q, k, v and
  /// dout come rounded already).
  bool bf16Probabilities = false;
};

/// Allocates and fills the key bounds: (lo, hi) as memref<BxTxi32>
/// (KernelEmitter::loadIndex reads them).
std::pair<mlir::Value, mlir::Value> emitKeyBounds(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  const AttentionProblem &p);

/// The outputs and the per-row statistics of one attention.
struct AttentionOutput {
  mlir::Value out; ///< memref<BxHxTxDxf>
  mlir::Value lse; ///< memref<BxHxTxf>: each row's log-sum-exp
};

/// out = softmax(scale q k^T + mask) v (q, k, v memref<BxHxTxDxf>), and
/// lse = log(sum(exp(scale q k^T + mask))) per row.
void emitAttentionForward(mlir::OpBuilder &b, mlir::Location loc,
                          const AttentionProblem &p, mlir::Value lo,
                          mlir::Value hi, mlir::Value q, mlir::Value k,
                          mlir::Value v, AttentionOutput result);

/// dq, dk, dv of the attention that produced `forward`, given `dout`.
void emitAttentionBackward(mlir::OpBuilder &b, mlir::Location loc,
                           const AttentionProblem &p, mlir::Value lo,
                           mlir::Value hi, mlir::Value q, mlir::Value k,
                           mlir::Value v, AttentionOutput forward,
                           mlir::Value dout, mlir::Value dq, mlir::Value dk,
                           mlir::Value dv);

class KernelEmitter;

/// Marks the scf.for just emitted by `e` (over the key or query tiles a
/// mask selects at run time, `rows` rows a work item) for the cost model
/// (kMaskedSpanAttr in KernelEmitter.h).
void markAttentionSpan(KernelEmitter &e, const AttentionProblem &p,
                       int64_t rows);

/// The first i in [0, n) where the monotone predicate `holds(i)` (false,
/// then true) is true, or n: a bisection.
mlir::Value firstRowWhere(KernelEmitter &e, int64_t n,
                          llvm::function_ref<mlir::Value(mlir::Value)> holds);

/// The backward's key kernel alone: dk and dv, given delta =
/// rowsum(dout * out) per row (memref<BxHxTxf>) from a query kernel.
void emitAttentionKeyValueGrad(mlir::OpBuilder &b, mlir::Location loc,
                               const AttentionProblem &p, mlir::Value lo,
                               mlir::Value hi, mlir::Value q, mlir::Value k,
                               mlir::Value v, mlir::Value dout, mlir::Value lse,
                               mlir::Value delta, mlir::Value dk,
                               mlir::Value dv);

} // namespace gptc::lowering

#endif // GPTC_PASSES_LOWERING_ATTENTIONKERNELS_H
