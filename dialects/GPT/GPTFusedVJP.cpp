//===- GPTFusedVJP.cpp - VJPs of the fused ops ----------------------------===//
//
// gpt.rms_norm differentiates into gpt primitives (two row reductions and
// elementwise work, which gptc-fuse-elementwise turns into two kernels);
// gpt.attention into gpt.attention_grad, whose kernels recompute the
// probabilities instead of keeping them (FlashAttention-2).
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPT/GPTVJPUtils.h"

using namespace mlir;
using namespace mlir::gpt;
using namespace mlir::gpt::vjp;

// y = x r with r = rsqrt(mean(x^2) + eps) (x after the optional residual
// add), times w:
//   dx = r (gw - x r^2 mean(gw x)),  gw = g w;   dw = sum over rows of g x r
LogicalResult RMSNormOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  RankedTensorType t = getInput().getType();
  int64_t last = t.getRank() - 1;
  Value x = getInput();
  if (Value r = getResidual())
    x = AddOp::create(b, loc, x, r);
  SmallVector<int64_t> rowShape(t.getShape());
  rowShape.back() = 1;
  auto rowType = RankedTensorType::get(rowShape, t.getElementType());
  auto meanOf = [&](Value v) {
    return ReduceOp::create(b, loc, rowType, ReduceKind::mean, v,
                            b.getDenseI64ArrayAttr({last}));
  };
  Value ms = meanOf(SquareOp::create(b, loc, x));
  Value r = RsqrtOp::create(b, loc, shift(b, loc, ms, getEps().convertToDouble()));
  Value rb = BroadcastOp::create(b, loc, t, r);
  Value g = grads[0];
  Value w;
  if (getWeight()) {
    auto wt = cast<RankedTensorType>(getWeight().getType());
    SmallVector<int64_t> ones(t.getRank(), 1);
    ones.back() = wt.getDimSize(0);
    w = BroadcastOp::create(b, loc, t, reshape(b, loc, getWeight(), ones));
    g = MulOp::create(b, loc, g, w);
  }
  Value dot = meanOf(MulOp::create(b, loc, g, x));
  Value r3dot = MulOp::create(
      b, loc, MulOp::create(b, loc, SquareOp::create(b, loc, r), r), dot);
  Value corr = MulOp::create(b, loc, x, BroadcastOp::create(b, loc, t, r3dot));
  Value dx = SubOp::create(b, loc, MulOp::create(b, loc, g, rb), corr);
  out.push_back(dx);
  if (getResidual())
    out.push_back(dx);
  if (Value weight = getWeight()) {
    Value xr = MulOp::create(b, loc, grads[0], MulOp::create(b, loc, x, rb));
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

// dq, dk, dv from gpt.attention_grad; tokens and window have no gradient.
LogicalResult AttentionOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  auto grad = AttentionGradOp::create(
      b, getLoc(), getQuery(), getKey(), getValue(), getResult(), grads[0],
      getTokens(), getWindow(), getMask(), getScale());
  out.push_back(grad.getQueryGrad());
  out.push_back(grad.getKeyGrad());
  out.push_back(grad.getValueGrad());
  if (getTokens())
    out.push_back(Value());
  if (getWindow())
    out.push_back(Value());
  return success();
}
