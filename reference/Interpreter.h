//===- Interpreter.h - Reference interpreter of gpt IR in f64 ---*- C++ -*-===//
//
// Runs a single-block `func.func` of gpt ops on host tensors, in f64 whatever
// the IR's element types: bf16/f32 casts are identities, integer results are
// exact, i1 is 0/1. Each op is run through ReferenceEvalOpInterface (see
// ReferenceInterfaces.td), so the context must have the external models
// registered (registerReferenceExternalModels). This is the numerical
// ground truth the compiled training step and the autodiff are checked
// against; it is written for clarity, not speed.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_REFERENCE_INTERPRETER_H
#define GPTC_REFERENCE_INTERPRETER_H

#include "reference/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace gptc::ref {

/// Evaluates `fn` on `args` (one per argument, with the argument's shape)
/// and returns the operands of its `func.return`. Emits an error (at the
/// function or at the failing op) and fails on a shape mismatch, an op
/// without reference semantics, or an op whose evaluation fails.
llvm::FailureOr<llvm::SmallVector<HostTensor>>
evaluate(mlir::func::FuncOp fn, llvm::ArrayRef<HostTensor> args);

/// Same, for the function named `name` in `module`.
llvm::FailureOr<llvm::SmallVector<HostTensor>>
evaluate(mlir::ModuleOp module, llvm::StringRef name,
         llvm::ArrayRef<HostTensor> args);

/// One evaluation of a function with every intermediate value kept, so
/// that it can be re-run with one argument replaced while recomputing only
/// the ops that depend on that argument. Made for finite differences,
/// where each evaluation perturbs one entry of one parameter.
class CachedEvaluation {
public:
  /// Evaluates `fn` on `args` (as `evaluate` does) and keeps every value.
  static llvm::FailureOr<CachedEvaluation>
  create(mlir::func::FuncOp fn, llvm::ArrayRef<HostTensor> args);

  /// The results of the evaluation.
  llvm::ArrayRef<HostTensor> results() const { return outputs; }

  /// The results with argument `index` replaced by `value` (same shape).
  /// The cached values do not change.
  llvm::FailureOr<llvm::SmallVector<HostTensor>>
  evaluateWith(unsigned index, const HostTensor &value) const;

private:
  CachedEvaluation() = default;
  mutable mlir::func::FuncOp fn; // op handles are not const-correct
  llvm::DenseMap<mlir::Value, HostTensor> values;
  llvm::DenseMap<mlir::Value, mlir::Operation *> lastUser;
  llvm::SmallVector<HostTensor> outputs;
};

/// The shape of a ranked tensor type (a 0-d tensor for a non-tensor type).
llvm::SmallVector<int64_t, 4> shapeOf(mlir::Type type);

} // namespace gptc::ref

#endif // GPTC_REFERENCE_INTERPRETER_H
