//===- GPTOps.cpp - gpt op verifiers: elementwise, reductions, GEMMs ------===//
//
// Data-movement ops (embedding, reshape, slice, ...) are verified in
// GPTShapeOps.cpp, the fused ops (but gpt.matmul_add, a GEMM) in
// GPTFusedOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::gpt;

#define GET_OP_CLASSES
#include "dialects/GPT/GPTOps.cpp.inc"

/// Checks that `dim` indexes a dimension of a rank-`rank` tensor.
static LogicalResult verifyDimIndex(Operation *op, int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << "dim " << dim << " is out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::verify() {
  if (getLhs().getType().getShape() != getResult().getType().getShape())
    return emitOpError("result shape must match the operand shape");
  return success();
}

LogicalResult SelectOp::verify() {
  if (getCondition().getType().getShape() != getResult().getType().getShape())
    return emitOpError("condition shape must match the value shape");
  return success();
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getResult().getType().getShape())
    return emitOpError("result shape must match the input shape");
  return success();
}

//===----------------------------------------------------------------------===//
// Constants and index generators
//===----------------------------------------------------------------------===//

/// The value, so that folding and constant uniquing see it (without this,
/// every constant of a type would look alike to the folder).
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult MulScalarOp::fold(FoldAdaptor) {
  return getScalar().convertToDouble() == 1.0 ? getInput() : OpFoldResult();
}

Operation *GPTDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult IotaOp::verify() {
  return verifyDimIndex(*this, getDim(), getResult().getType().getRank());
}

LogicalResult CumsumOp::verify() {
  return verifyDimIndex(*this, getDim(), getResult().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Reductions and contraction
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type must match the input");
  if (in.getRank() != out.getRank())
    return emitOpError("result must keep the input rank (reduced dimensions "
                       "become size 1)");
  if (getDims().empty())
    return emitOpError("dims must name at least one dimension");
  SmallVector<int64_t> expected(in.getShape());
  int64_t prev = -1;
  for (int64_t d : getDims()) {
    if (failed(verifyDimIndex(*this, d, in.getRank())))
      return failure();
    if (d <= prev)
      return emitOpError("dims must be strictly increasing");
    prev = d;
    expected[d] = 1;
  }
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return emitOpError("result shape must be the input shape with the reduced "
                       "dimensions set to 1");
  return success();
}

/// The checks of gpt.matmul's operands and result, shared with
/// gpt.matmul_add.
static LogicalResult verifyMatmul(Operation *op, RankedTensorType lhs,
                                  RankedTensorType rhs, RankedTensorType out,
                                  bool transposeLhs, bool transposeRhs) {
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return op->emitOpError("operands must have rank >= 2");
  if (lhs.getElementType() != rhs.getElementType())
    return op->emitOpError("operand element types must match");
  bool sharedRhs = rhs.getRank() == 2 && lhs.getRank() > 2;
  if (!sharedRhs && lhs.getRank() != rhs.getRank())
    return op->emitOpError(
        "rhs must have the rank of lhs, or be a rank-2 matrix");
  ArrayRef<int64_t> batch = lhs.getShape().drop_back(2);
  if (!sharedRhs && rhs.getShape().drop_back(2) != batch)
    return op->emitOpError("batch dimensions of lhs and rhs must match");
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  int64_t m = lhs.getDimSize(transposeLhs ? lr - 1 : lr - 2);
  int64_t kl = lhs.getDimSize(transposeLhs ? lr - 2 : lr - 1);
  int64_t kr = rhs.getDimSize(transposeRhs ? rr - 1 : rr - 2);
  int64_t n = rhs.getDimSize(transposeRhs ? rr - 2 : rr - 1);
  if (kl != kr)
    return op->emitOpError()
           << "contraction sizes differ: lhs has " << kl << ", rhs has " << kr;
  SmallVector<int64_t> expected(batch);
  expected.append({m, n});
  if (ArrayRef<int64_t>(expected) != out.getShape() ||
      out.getElementType() != lhs.getElementType())
    return op->emitOpError()
           << "result type must be "
           << RankedTensorType::get(expected, lhs.getElementType());
  return success();
}

LogicalResult MatmulOp::verify() {
  return verifyMatmul(*this, getLhs().getType(), getRhs().getType(),
                      getResult().getType(), getTransposeLhs(),
                      getTransposeRhs());
}

LogicalResult MatmulAddOp::verify() {
  for (auto [name, value] :
       {std::pair{"alpha", getAlpha()}, std::pair{"beta", getBeta()}})
    if (!value.isFinite())
      return emitOpError() << name << " must be finite";
  return verifyMatmul(*this, getLhs().getType(), getRhs().getType(),
                      getResult().getType(), getTransposeLhs(),
                      getTransposeRhs());
}
