//===- CommOps.cpp - comm op verifiers ------------------------------------===//

#include "dialects/Comm/CommDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::comm;

#define GET_OP_CLASSES
#include "dialects/Comm/CommOps.cpp.inc"

/// Checks that an average is taken of floating-point values.
static LogicalResult verifyKind(Operation *op, ReductionKind kind,
                                RankedTensorType type) {
  if (kind == ReductionKind::avg && !isa<FloatType>(type.getElementType()))
    return op->emitOpError("avg needs a floating-point element type, got ")
           << type.getElementType();
  return success();
}

/// Checks that `result` is `input` with dimension 0 scaled: multiplied by
/// `world_size` when `gather`, divided by it otherwise.
static LogicalResult verifyShardedShapes(Operation *op, RankedTensorType input,
                                         RankedTensorType result,
                                         int64_t worldSize, bool gather) {
  if (worldSize < 1)
    return op->emitOpError("world_size must be at least 1, got ") << worldSize;
  if (input.getRank() < 1)
    return op->emitOpError("input must have rank >= 1 (ranks are sharded "
                           "along dimension 0)");
  if (input.getElementType() != result.getElementType())
    return op->emitOpError("result element type must match the input");
  int64_t dim0 = input.getDimSize(0);
  bool dynamic = ShapedType::isDynamic(dim0);
  if (!gather && !dynamic && dim0 % worldSize != 0)
    return op->emitOpError()
           << "dimension 0 (" << dim0 << ") must be divisible by world_size ("
           << worldSize << ")";
  SmallVector<int64_t> expected(input.getShape());
  if (!dynamic)
    expected[0] = gather ? dim0 * worldSize : dim0 / worldSize;
  if (ArrayRef<int64_t>(expected) != result.getShape())
    return op->emitOpError()
           << "result type must be "
           << RankedTensorType::get(expected, input.getElementType());
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyKind(*this, getKind(), getInput().getType());
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyKind(*this, getKind(), getInput().getType())))
    return failure();
  return verifyShardedShapes(*this, getInput().getType(), getResult().getType(),
                             getWorldSizeAttr().getInt(), /*gather=*/false);
}

LogicalResult AllGatherOp::verify() {
  return verifyShardedShapes(*this, getInput().getType(), getResult().getType(),
                             getWorldSizeAttr().getInt(), /*gather=*/true);
}

LogicalResult ShardOp::verify() {
  return verifyShardedShapes(*this, getInput().getType(), getResult().getType(),
                             getWorldSizeAttr().getInt(), /*gather=*/false);
}
