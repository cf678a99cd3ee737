//===- LinalgBuilders.h - Helpers for lowering gpt to linalg ----*- C++ -*-===//

#ifndef GPTC_PASSES_LOWERING_LINALGBUILDERS_H
#define GPTC_PASSES_LOWERING_LINALGBUILDERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace gptc::lowering {

/// tensor.empty of `type`.
mlir::Value emptyLike(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::RankedTensorType type);
/// linalg.fill of a scalar into a new tensor of `type`.
mlir::Value filled(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::RankedTensorType type, double value);
/// A scalar constant of element type `t` (float or integer).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                           double value);
/// A linalg.generic over `resultType` with all-parallel iterators, the
/// given inputs read through `inputMaps` (identity when empty) and `body`
/// computing the scalar result from the scalar inputs.
mlir::Value parallelGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> inputMaps,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::ValueRange)>
        body);
/// Reshape between static shapes through a rank-1 collapse/expand (views).
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          mlir::RankedTensorType to);

} // namespace gptc::lowering

#endif // GPTC_PASSES_LOWERING_LINALGBUILDERS_H
