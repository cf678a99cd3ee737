//===- CrossEntropyKernels.h - Softmax cross-entropy loop nests -*- C++ -*-===//
//
// The kernels of gpt.cross_entropy and gpt.cross_entropy_grad on buffers:
// one scf.parallel over the rows (positions), each work item a few passes
// over its row of logits, which stays in cache between them. With z the
// logits, softcapped if the op says so (recomputed in every pass, never
// stored):
//
//  - forward:  m = max(z), s = sum exp(z - m), nll = m + log(s) - z[t]
//  - backward: m, s as above (or the forward's, when it kept them), then
//              one pass writing
//              d = (exp(z - m) * (g / s) - (j == t) g) * dz/dlogits:
//              no one-hot tensor, nothing through the max.
//
// The max is taken over the raw logits and then softcapped: a softcap is
// increasing, so this is the max of z without squashing every element.
//
// Who works on a row: on the CPU the work item, element after element (the
// passes vectorise); on the GPU (`threads` > 0) a thread block, each thread
// taking every threads-th element (coalesced), the partial maxima and sums
// combined by a tree over a shared tile between barriers: deterministic,
// the same bits every run.
//
// Logits are [N, V], targets and per-row values [N] (callers collapse the
// leading dimensions); the logits may be narrower than the per-row values
// (bf16 logits, f32 loss), and everything is computed in the per-row
// values' float type.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_LOWERING_CROSSENTROPYKERNELS_H
#define GPTC_PASSES_LOWERING_CROSSENTROPYKERNELS_H

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/Builders.h"

namespace gptc::lowering {

/// The rows of one cross-entropy op.
struct CrossEntropyRows {
  mlir::Value logits;             ///< memref<N x V x narrow-or-compute float>
  mlir::Value targets;            ///< memref<N x i32/i64>
  mlir::gpt::SoftcapAttr softcap; ///< null: none
  int64_t threads = 0;            ///< > 0: a GPU thread block per row
};

/// nll[r] = logsumexp(z[r, :]) - z[r, targets[r]]; with `stats`
/// (memref<N x 2 x f>), also its row's m and s, for the backward.
void emitCrossEntropyForward(mlir::OpBuilder &b, mlir::Location loc,
                             const CrossEntropyRows &rows, mlir::Value nll,
                             mlir::Value stats = {});

/// dlogits[r, j] = grad[r] * (softmax(z[r, :])[j] - (j == targets[r]))
///                 * dz[r, j] / dlogits[r, j]; with `stats` (the forward's
/// m and s of the same rows: the same bits) instead of two passes that
/// compute them again.
void emitCrossEntropyBackward(mlir::OpBuilder &b, mlir::Location loc,
                              const CrossEntropyRows &rows, mlir::Value grad,
                              mlir::Value dlogits, mlir::Value stats = {});

} // namespace gptc::lowering

#endif // GPTC_PASSES_LOWERING_CROSSENTROPYKERNELS_H
