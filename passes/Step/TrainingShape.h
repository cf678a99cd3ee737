//===- TrainingShape.h - The ranks and micro-steps a module is for -*- C++
//-*-===//
//
// The frontend records the spec's training.ranks and its micro-steps per
// optimizer step on the module (`gpt.ranks`, `gpt.grad_accum`), so that a
// dump continued by gptc-opt builds the step the spec asked for. The passes
// that need them (gptc-build-step, gptc-distribute-newton-schulz) take an
// option of 0 to mean "the module's"; an explicit option that differs from
// the module's is an error, never a silent 1-rank step.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_STEP_TRAININGSHAPE_H
#define GPTC_PASSES_STEP_TRAININGSHAPE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace gptc {

inline constexpr llvm::StringLiteral kRanksAttr = "gpt.ranks";
inline constexpr llvm::StringLiteral kGradAccumAttr = "gpt.grad_accum";
/// On @update's gradient argument (a TypeAttr): the element type the ranks
/// average that gradient in, when it is not the gradient's own (an
/// optimizer group's `grad_reduce: bf16`).
inline constexpr llvm::StringLiteral kReduceTypeAttr = "gpt.reduce_type";

/// The value of `attrName` (kRanksAttr or kGradAccumAttr) a pass uses: its
/// option when set (non-zero), else the module's attribute, else 1. Emits
/// an error naming `pass` and `option` when the option and the module's
/// attribute differ, or either is below 1.
mlir::FailureOr<int64_t> trainingCount(mlir::ModuleOp module,
                                       llvm::StringRef attrName, int64_t option,
                                       llvm::StringRef pass,
                                       llvm::StringRef optionName);

} // namespace gptc

#endif // GPTC_PASSES_STEP_TRAININGSHAPE_H
