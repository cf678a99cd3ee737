//===- ReferenceModels.h - Shared pieces of the external models -*- C++ -*-===//
//
// Private to reference/: the generic external model that forwards
// ReferenceEvalOpInterface::evaluate to a function per op, the helpers the
// per-family files (ReferenceElementwise.cpp, ReferenceShape.cpp,
// ReferenceContraction.cpp, ReferenceFused.cpp) share, and their
// registration entry points.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_REFERENCE_REFERENCEMODELS_H
#define GPTC_REFERENCE_REFERENCEMODELS_H

#include "reference/ReferenceInterfaces.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

namespace gptc::ref::detail {

using EvalResults = llvm::SmallVectorImpl<HostTensor>;

/// ReferenceEvalOpInterface for `OpT`, implemented by
/// `LogicalResult Fn(OpT op, ArrayRef<HostTensor> operands,
///                   SmallVectorImpl<HostTensor> &results)`.
template <typename OpT, auto Fn>
struct FnModel
    : ReferenceEvalOpInterface::ExternalModel<FnModel<OpT, Fn>, OpT> {
  llvm::LogicalResult evaluate(mlir::Operation *op,
                               llvm::ArrayRef<HostTensor> operands,
                               EvalResults &results) const {
    return Fn(llvm::cast<OpT>(op), operands, results);
  }
};

template <typename OpT, auto Fn> void attach(mlir::MLIRContext *ctx) {
  OpT::template attachInterface<FnModel<OpT, Fn>>(*ctx);
}

/// Static shape of result `i` of `op`.
inline llvm::SmallVector<int64_t, 4> resultShape(mlir::Operation *op,
                                                 unsigned i = 0) {
  auto t = llvm::cast<mlir::RankedTensorType>(op->getResult(i).getType());
  return llvm::SmallVector<int64_t, 4>(t.getShape());
}

/// True when `type` (or its element type) is an integer (incl. i1).
inline bool isIntegerLike(mlir::Type type) {
  if (auto t = llvm::dyn_cast<mlir::ShapedType>(type))
    type = t.getElementType();
  return llvm::isa<mlir::IntegerType>(type);
}

/// Reads an integer stored in a HostTensor element (exact by construction).
inline int64_t asIndex(double v) { return static_cast<int64_t>(v); }

/// Checks that every id of `ids` indexes [0, bound); an op error naming
/// `what` and the first bad position otherwise.
llvm::LogicalResult checkIds(mlir::Operation *op, const HostTensor &ids,
                             int64_t bound, llvm::StringRef what);

// Registration of each op family (called when the gpt dialect loads).
void attachElementwiseModels(mlir::MLIRContext *ctx);
void attachContractionModels(mlir::MLIRContext *ctx);
void attachShapeModels(mlir::MLIRContext *ctx);
void attachFusedModels(mlir::MLIRContext *ctx);
/// optim.window_schedule (attached when the optim dialect loads).
void attachScheduleModels(mlir::MLIRContext *ctx);

} // namespace gptc::ref::detail

#endif // GPTC_REFERENCE_REFERENCEMODELS_H
