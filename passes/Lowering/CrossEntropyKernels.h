//===- CrossEntropyKernels.h - Softmax cross-entropy loop nests -*- C++ -*-===//
//
// The kernels of gpt.cross_entropy and gpt.cross_entropy_grad on buffers:
// one scf.parallel over the rows (positions), each work item a few passes
// over its row of logits, which stays in cache between them:
//
//  - forward:  m = max(l), s = sum exp(l - m), nll = m + log(s) - l[t]
//  - backward: m, then d = exp(l - m) with s = sum d in the same pass,
//              then d *= g / s and d[t] -= g: the gradient is written
//              once, with no one-hot tensor and nothing through the max.
//
// Logits are [N, V], targets and per-row values [N] (callers collapse the
// leading dimensions); everything is computed in the logits' element type.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_LOWERING_CROSSENTROPYKERNELS_H
#define GPTC_PASSES_LOWERING_CROSSENTROPYKERNELS_H

#include "mlir/IR/Builders.h"

namespace gptc::lowering {

/// nll[r] = logsumexp(logits[r, :]) - logits[r, targets[r]].
void emitCrossEntropyForward(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value logits, mlir::Value targets,
                             mlir::Value nll);

/// dlogits[r, j] = grad[r] * (softmax(logits[r, :])[j] - (j == targets[r])).
void emitCrossEntropyBackward(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value logits, mlir::Value targets,
                              mlir::Value grad, mlir::Value dlogits);

} // namespace gptc::lowering

#endif // GPTC_PASSES_LOWERING_CROSSENTROPYKERNELS_H
