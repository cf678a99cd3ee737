//===- GPTOps.cpp - gpt op verifiers: elementwise, reductions, fused ------===//
//
// Data-movement ops (embedding, reshape, slice, ...) are verified in
// GPTShapeOps.cpp.
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

/// Checks that a float attribute (eps, scale) is positive and finite; NaN
/// fails `<= 0` as well as `> 0`, so test the positive case.
static LogicalResult verifyPositiveFinite(Operation *op, StringRef name,
                                          double value) {
  if (!(value > 0.0) || std::isinf(value))
    return op->emitOpError()
           << name << " must be positive and finite, got " << value;
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

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

/// The checks gpt.rms_norm and gpt.rms_norm_grad share.
static LogicalResult verifyRMSNorm(Operation *op, RankedTensorType in,
                                   Value residual, Value weight, double eps) {
  if (in.getRank() < 1)
    return op->emitOpError("input must have rank >= 1 (it is normalised "
                           "over its last dimension)");
  if (failed(verifyPositiveFinite(op, "eps", eps)))
    return failure();
  if (weight) {
    auto wt = cast<RankedTensorType>(weight.getType());
    if (wt.getRank() != 1 || wt.getDimSize(0) != in.getShape().back() ||
        wt.getElementType() != in.getElementType())
      return op->emitOpError("weight must be a vector of the last dimension (")
             << in.getShape().back() << ") with the input's element type";
  }
  if (residual && residual.getType() != in)
    return op->emitOpError("residual must have the input's type");
  return success();
}

LogicalResult RMSNormGradOp::verify() {
  return verifyRMSNorm(*this, getInput().getType(), getResidual(), getWeight(),
                       getEps().convertToDouble());
}

LogicalResult RMSNormOp::verify() {
  return verifyRMSNorm(*this, getInput().getType(), getResidual(), getWeight(),
                       getEps().convertToDouble());
}

LogicalResult RotaryOp::verify() {
  RankedTensorType x = getInput().getType(), table = getCos().getType();
  if (x.getRank() < 1 || x.getShape().back() % 2 != 0)
    return emitOpError("the input's last dimension must be even (two "
                       "halves), got ")
           << x;
  if (table.getRank() != x.getRank() ||
      table.getElementType() != x.getElementType())
    return emitOpError("cos and sin must have the input's rank and element "
                       "type, got ")
           << table << " for " << x;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    int64_t want =
        i + 1 == x.getRank() ? x.getShape().back() / 2 : x.getDimSize(i);
    int64_t got = table.getDimSize(i);
    if (got != want && !(got == 1 && i + 1 < x.getRank()))
      return emitOpError("cos and sin dimension ")
             << i << " is " << got << ": it must be " << want
             << (i + 1 < x.getRank() ? " or 1 (broadcast)" : " (the half)");
  }
  return success();
}

Type mlir::gpt::attentionRowType(Type query) {
  auto t = dyn_cast<RankedTensorType>(query);
  if (!t || t.getRank() == 0)
    return query;
  return RankedTensorType::get(t.getShape().drop_back(), t.getElementType());
}

/// The checks gpt.attention and gpt.attention_grad share.
static LogicalResult verifyAttention(Operation *op, RankedTensorType q,
                                     MaskAttr mask, Value tokens, Value window,
                                     double scale) {
  if (q.getRank() != 4)
    return op->emitOpError("query, key and value must be [batch, heads, seq, "
                           "head_dim]");
  if (failed(verifyPositiveFinite(op, "scale", scale)))
    return failure();
  if (mask.hasDocument() != static_cast<bool>(tokens))
    return op->emitOpError("a document mask needs the tokens operand, and "
                           "only a document mask takes it");
  if (mask.hasWindow() != static_cast<bool>(window))
    return op->emitOpError("a sliding window needs the window operand, and "
                           "only a windowed mask takes it");
  if (tokens) {
    auto tt = cast<RankedTensorType>(tokens.getType());
    if (tt.getRank() != 2 || tt.getDimSize(0) != q.getDimSize(0) ||
        tt.getDimSize(1) != q.getDimSize(2))
      return op->emitOpError("tokens must be [batch, seq] = [")
             << q.getDimSize(0) << ", " << q.getDimSize(2) << "]";
  }
  if (window)
    if (cast<RankedTensorType>(window.getType()).getRank() != 0)
      return op->emitOpError("window must be a 0-d tensor");
  // A dynamic length is kDynamic (INT64_MIN), which is a multiple of 128.
  if (mask.getWindow() == WindowUnit::blocks &&
      (q.isDynamicDim(2) || q.getDimSize(2) % 128 != 0))
    return op->emitOpError("a block window needs a sequence length that is a "
                           "multiple of 128");
  return success();
}

/// `products`, when given, is bf16 and narrower than the element type.
static LogicalResult verifyProducts(Operation *op, std::optional<Type> products,
                                    RankedTensorType type) {
  if (!products)
    return success();
  auto narrow = dyn_cast<FloatType>(*products);
  auto wide = cast<FloatType>(type.getElementType());
  if (!narrow || !narrow.isBF16() || wide.getWidth() <= narrow.getWidth())
    return op->emitOpError("products must be bf16, narrower than the element "
                           "type ")
           << wide;
  return success();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyProducts(*this, getProducts(), getQuery().getType())))
    return failure();
  return verifyAttention(*this, getQuery().getType(), getMask(), getTokens(),
                         getWindow(), getScale().convertToDouble());
}

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyProducts(*this, getProducts(), getQuery().getType())))
    return failure();
  return verifyAttention(*this, getQuery().getType(), getMask(), getTokens(),
                         getWindow(), getScale().convertToDouble());
}

/// The checks gpt.cross_entropy and gpt.cross_entropy_grad share: targets
/// and per-position values have the logits' shape without the vocabulary.
static LogicalResult verifyCrossEntropy(Operation *op, RankedTensorType logits,
                                        RankedTensorType targets,
                                        RankedTensorType perPosition) {
  if (logits.getRank() < 2)
    return op->emitOpError("logits must have positions and a vocabulary "
                           "dimension");
  if (targets.getShape() != logits.getShape().drop_back())
    return op->emitOpError("targets must have the logits' shape without the "
                           "vocabulary dimension");
  auto narrow = dyn_cast<FloatType>(logits.getElementType());
  auto wide = dyn_cast<FloatType>(perPosition.getElementType());
  if (perPosition.getShape() != targets.getShape() || !narrow || !wide ||
      wide.getWidth() < narrow.getWidth() ||
      (wide.getWidth() == narrow.getWidth() && wide != narrow))
    return op->emitOpError("the per-position values must have the targets' "
                           "shape and the logits' element type or a wider "
                           "float type");
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  return verifyCrossEntropy(*this, getLogits().getType(),
                            getTargets().getType(), getResult().getType());
}

LogicalResult CrossEntropyGradOp::verify() {
  return verifyCrossEntropy(*this, getLogits().getType(),
                            getTargets().getType(), getGrad().getType());
}
