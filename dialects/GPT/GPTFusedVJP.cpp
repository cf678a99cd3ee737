//===- GPTFusedVJP.cpp - VJPs of the fused ops ----------------------------===//
//
// gpt.rms_norm differentiates into gpt.rms_norm_grad (both row sums in one
// reduction, then one elementwise kernel); gpt.rotary into the inverse
// rotary; gpt.attention into
// gpt.attention_grad, whose kernels recompute the
// probabilities instead of keeping them (FlashAttention-2);
// gpt.cross_entropy into gpt.cross_entropy_grad, which recomputes the
// softmax of each row.
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPT/GPTVJPUtils.h"

using namespace mlir;
using namespace mlir::gpt;
using namespace mlir::gpt::vjp;

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
