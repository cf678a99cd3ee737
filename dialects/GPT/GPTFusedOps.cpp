//===- GPTFusedOps.cpp - The fused ops' verifiers and VJPs ----------------===//
//
// The C++ of GPTFusedOps.td's ops, one file for all of them: what each
// checks, and what it differentiates into. gpt.rms_norm differentiates into
// gpt.rms_norm_grad (both row sums in one reduction, then one elementwise
// kernel); gpt.rotary into the inverse rotary; gpt.attention into
// gpt.attention_grad, whose kernels recompute the probabilities instead of
// keeping them (FlashAttention-2); gpt.cross_entropy into
// gpt.cross_entropy_grad, which recomputes the softmax of each row.
// (gpt.matmul_add, a GEMM, is verified beside gpt.matmul in GPTOps.cpp.)
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPT/GPTVJPUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::gpt;
using namespace mlir::gpt::vjp;

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

/// Checks that a float attribute (eps, scale) is positive and finite; NaN
/// fails `<= 0` as well as `> 0`, so test the positive case.
static LogicalResult verifyPositiveFinite(Operation *op, StringRef name,
                                          double value) {
  if (!(value > 0.0) || std::isinf(value))
    return op->emitOpError()
           << name << " must be positive and finite, got " << value;
  return success();
}

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

//===----------------------------------------------------------------------===//
// VJPs
//===----------------------------------------------------------------------===//

// y = x r w with r = rsqrt(mean(x^2) + eps) (x after the optional residual
// add): dx from gpt.rms_norm_grad (one pass over each row), the same for
// the residual; dw = sum over rows of g x r.
LogicalResult RMSNormOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  RankedTensorType t = getInput().getType();
  int64_t last = t.getRank() - 1;
  Value dx = RMSNormGradOp::create(b, loc, t, getInput(), grads[0],
                                   getResidual(), getWeight(), getEpsAttr());
  out.push_back(dx);
  if (getResidual())
    out.push_back(dx);
  if (Value weight = getWeight()) {
    // g * (y without the weight) = g * x r; recompute y / w as rms_norm.
    Value normed = RMSNormOp::create(b, loc, t, getInput(), getResidual(),
                                     Value(), getEpsAttr());
    Value xr = MulOp::create(b, loc, grads[0], normed);
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < last; ++i)
      dims.push_back(i);
    SmallVector<int64_t> reduced(t.getRank(), 1);
    reduced.back() = t.getShape().back();
    auto redType = RankedTensorType::get(reduced, t.getElementType());
    Value sum = ReduceOp::create(b, loc, redType, ReduceKind::sum, xr,
                                 b.getDenseI64ArrayAttr(dims));
    out.push_back(reshape(b, loc, sum, {t.getShape().back()}));
  }
  return success();
}

// The rotation is orthogonal: dx is dy rotated back (the inverse rotary),
// one pass again. The tables are constants of the positions (no gradient).
LogicalResult RotaryOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  out.push_back(RotaryOp::create(b, getLoc(), getInput().getType(), grads[0],
                                 getCos(), getSin(), !getInverse()));
  out.push_back(Value());
  out.push_back(Value());
  return success();
}

// dq, dk, dv from gpt.attention_grad, which reads the forward's row
// log-sum-exp; tokens and window have no gradient. The lse result is
// statistics for the backward pass, not a differentiable output.
LogicalResult AttentionOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  if (grads[1])
    return emitOpError("the loss depends on the lse result, which has no "
                       "gradient");
  if (!grads[0]) {
    out.assign(getNumOperands(), Value());
    return success();
  }
  RankedTensorType type = getQuery().getType();
  auto grad = AttentionGradOp::create(
      b, getLoc(), type, type, type, getQuery(), getKey(), getValue(),
      getResult(), getLse(), grads[0], getTokens(), getWindow(), getMask(),
      getScale(), getProductsAttr());
  out.push_back(grad.getQueryGrad());
  out.push_back(grad.getKeyGrad());
  out.push_back(grad.getValueGrad());
  if (getTokens())
    out.push_back(Value());
  if (getWindow())
    out.push_back(Value());
  return success();
}

// d logits = g (softmax(z) - onehot(targets)) dz/dlogits, z the softcapped
// logits; targets have none.
LogicalResult CrossEntropyOp::buildVJP(OpBuilder &b, ValueRange grads,
                                       SmallVectorImpl<Value> &out) {
  out.push_back(CrossEntropyGradOp::create(b, getLoc(), getLogits().getType(),
                                           getLogits(), getTargets(), grads[0],
                                           getSoftcapAttr()));
  out.push_back(Value());
  return success();
}
