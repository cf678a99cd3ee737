//===- GPTVJP.cpp - Vector-Jacobian products of gpt ops -------------------===//
//
// DifferentiableOpInterface for the elementwise, reduction and contraction
// ops. Each VJP is written in gpt ops. Data-movement and fused ops are in
// GPTShapeVJP.cpp. Conventions: `g` is the gradient of the (single) result,
// `y` the op's result.
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPT/GPTVJPUtils.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::gpt;
using namespace mlir::gpt::vjp;

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

// d(a + b) = (g, g)
LogicalResult AddOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  out.append({grads[0], grads[0]});
  return success();
}

// d(a - b) = (g, -g)
LogicalResult SubOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  out.append({grads[0], NegOp::create(b, getLoc(), grads[0])});
  return success();
}

// d(a * b) = (g b, g a)
LogicalResult MulOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  out.append({MulOp::create(b, getLoc(), g, getRhs()),
              MulOp::create(b, getLoc(), g, getLhs())});
  return success();
}

// d(a / b) = (g / b, -g a / b^2) = (g / b, -(g / b) y)
LogicalResult DivOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value gOverB = DivOp::create(b, loc, grads[0], getRhs());
  Value db = NegOp::create(b, loc, MulOp::create(b, loc, gOverB, getResult()));
  out.append({gOverB, db});
  return success();
}

// d max(a, b) = (g [a >= b], g [a < b]); ties go to the left operand.
LogicalResult MaxOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value g = grads[0];
  Value zero = zerosLike(b, loc, g.getType());
  Value takeLhs = compare(b, loc, CompareKind::ge, getLhs(), getRhs());
  out.append({SelectOp::create(b, loc, takeLhs, g, zero),
              SelectOp::create(b, loc, takeLhs, zero, g)});
  return success();
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// d(-x) = -g
LogicalResult NegOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  out.push_back(NegOp::create(b, getLoc(), grads[0]));
  return success();
}

// d exp(x) = g y
LogicalResult ExpOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  out.push_back(MulOp::create(b, getLoc(), grads[0], getResult()));
  return success();
}

// d log(x) = g / x
LogicalResult LogOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  out.push_back(DivOp::create(b, getLoc(), grads[0], getInput()));
  return success();
}

// d sqrt(x) = g / (2 y)
LogicalResult SqrtOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value half = scale(b, loc, grads[0], 0.5);
  out.push_back(DivOp::create(b, loc, half, getResult()));
  return success();
}

// d x^-1/2 = -g y^3 / 2
LogicalResult RsqrtOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value y = getResult();
  Value y3 = MulOp::create(b, loc, SquareOp::create(b, loc, y), y);
  out.push_back(scale(b, loc, MulOp::create(b, loc, grads[0], y3), -0.5));
  return success();
}

// d tanh(x) = g (1 - y^2)
LogicalResult TanhOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value y2 = SquareOp::create(b, loc, getResult());
  Value oneMinus = shift(b, loc, NegOp::create(b, loc, y2), 1.0);
  out.push_back(MulOp::create(b, loc, grads[0], oneMinus));
  return success();
}

// d sigmoid(x) = g y (1 - y)
LogicalResult SigmoidOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value y = getResult();
  Value oneMinus = shift(b, loc, NegOp::create(b, loc, y), 1.0);
  Value dy = MulOp::create(b, loc, y, oneMinus);
  out.push_back(MulOp::create(b, loc, grads[0], dy));
  return success();
}

// d x^2 = 2 g x
LogicalResult SquareOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  out.push_back(
      scale(b, loc, MulOp::create(b, loc, grads[0], getInput()), 2.0));
  return success();
}

// d relu(x) = g [x > 0]
LogicalResult ReluOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value zero = zerosLike(b, loc, getInput().getType());
  Value positive = compare(b, loc, CompareKind::gt, getInput(), zero);
  out.push_back(SelectOp::create(b, loc, positive, grads[0], zero));
  return success();
}

// d gelu(x) = g (Phi(x) + x phi(x)), Phi(x) = (1 + erf(x / sqrt 2)) / 2,
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
LogicalResult GeluOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value x = getInput();
  Value erf = ErfOp::create(b, loc, scale(b, loc, x, 1.0 / std::sqrt(2.0)));
  Value cdf = scale(b, loc, shift(b, loc, erf, 1.0), 0.5);
  Value e =
      ExpOp::create(b, loc, scale(b, loc, SquareOp::create(b, loc, x), -0.5));
  Value pdf = scale(b, loc, e, 1.0 / std::sqrt(2.0 * M_PI));
  Value d = AddOp::create(b, loc, cdf, MulOp::create(b, loc, x, pdf));
  out.push_back(MulOp::create(b, loc, grads[0], d));
  return success();
}

// d erf(x) = g 2 / sqrt(pi) exp(-x^2)
LogicalResult ErfOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value x2 = SquareOp::create(b, loc, getInput());
  Value e = ExpOp::create(b, loc, NegOp::create(b, loc, x2));
  Value d = scale(b, loc, e, 2.0 / std::sqrt(M_PI));
  out.push_back(MulOp::create(b, loc, grads[0], d));
  return success();
}

// d cos(x) = -g sin(x)
LogicalResult CosOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value s = SinOp::create(b, loc, getInput());
  out.push_back(NegOp::create(b, loc, MulOp::create(b, loc, grads[0], s)));
  return success();
}

// d sin(x) = g cos(x)
LogicalResult SinOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value c = CosOp::create(b, loc, getInput());
  out.push_back(MulOp::create(b, loc, grads[0], c));
  return success();
}

// d (c x) = c g
LogicalResult MulScalarOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  out.push_back(scale(b, getLoc(), grads[0], getScalar().convertToDouble()));
  return success();
}

// d (x + c) = g
LogicalResult AddScalarOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  out.push_back(grads[0]);
  return success();
}

// d select(c, t, f) = (none, g [c], g [!c])
LogicalResult SelectOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value g = grads[0];
  Value zero = zerosLike(b, loc, g.getType());
  out.append({Value(), SelectOp::create(b, loc, getCondition(), g, zero),
              SelectOp::create(b, loc, getCondition(), zero, g)});
  return success();
}

// d cast(x) = cast(g) back to x's element type; none for integer inputs.
LogicalResult CastOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  Type inType = getInput().getType();
  if (!isa<FloatType>(getElementTypeOrSelf(inType))) {
    out.push_back(Value());
    return success();
  }
  out.push_back(CastOp::create(b, getLoc(), inType, grads[0]));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and contraction
//===----------------------------------------------------------------------===//

// sum: broadcast g; mean: broadcast g / n; max: g / (number of elements
// equal to the max) where x equals the max.
LogicalResult ReduceOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  RankedTensorType inType = getInput().getType();
  auto broadcastGrad = [&] {
    return BroadcastOp::create(b, loc, inType, grads[0]);
  };
  switch (getKind()) {
  case ReduceKind::sum:
    out.push_back(broadcastGrad());
    return success();
  case ReduceKind::mean: {
    int64_t n = 1;
    for (int64_t d : getDims())
      n *= inType.getDimSize(d);
    out.push_back(scale(b, loc, broadcastGrad(), 1.0 / static_cast<double>(n)));
    return success();
  }
  case ReduceKind::max: {
    // Elements tied for the max share g equally (as torch.amax): a tie must
    // not multiply the gradient. All logits tie at a zero-initialised head,
    // and the max of a log-sum-exp carries round-off there.
    Value mx = BroadcastOp::create(b, loc, inType, getResult());
    Value isMax = compare(b, loc, CompareKind::eq, getInput(), mx);
    Value ones = CastOp::create(b, loc, inType, isMax);
    Value ties = ReduceOp::create(b, loc, getResult().getType(),
                                  ReduceKind::sum, ones, getDimsAttr());
    Value share = BroadcastOp::create(b, loc, inType,
                                      DivOp::create(b, loc, grads[0], ties));
    out.push_back(
        SelectOp::create(b, loc, isMax, share, zerosLike(b, loc, inType)));
    return success();
  }
  }
  return failure();
}

// C = op(A) op(B):
//   dA = g op(B)^T           (transposed back when A is transposed)
//   dB = op(A)^T g           (transposed back when B is transposed)
// A rank-2 B shared by a batched A accumulates dB over the batch.
LogicalResult MatmulOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Location loc = getLoc();
  Value g = grads[0];
  Value lhs = getLhs(), rhs = getRhs();
  bool ta = getTransposeLhs(), tb = getTransposeRhs();
  RankedTensorType lt = getLhs().getType(), rt = getRhs().getType();
  Value dA = ta ? matmul(b, loc, rhs, g, tb, /*tc=*/true)
                : matmul(b, loc, g, rhs, false, !tb);
  Value dB;
  bool shared = rt.getRank() == 2 && lt.getRank() > 2;
  if (shared) {
    if (ta)
      return emitOpError("cannot differentiate a transposed batched lhs "
                         "with a shared rhs");
    // Flatten the batch: A [N, K], g [N, M].
    int64_t k = lt.getShape().back();
    int64_t m = getResult().getType().getShape().back();
    int64_t n = lt.getNumElements() / k;
    Value a2 = reshape(b, loc, lhs, {n, k});
    Value g2 = reshape(b, loc, g, {n, m});
    dB = tb ? matmul(b, loc, g2, a2, true, false)
            : matmul(b, loc, a2, g2, true, false);
  } else {
    dB = tb ? matmul(b, loc, g, lhs, true, ta)
            : matmul(b, loc, lhs, g, !ta, false);
  }
  out.append({dA, dB});
  return success();
}
