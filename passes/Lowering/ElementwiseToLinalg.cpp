//===- ElementwiseToLinalg.cpp - gpt elementwise ops -> linalg.generic ----===//
//
// gpt.OP %a, %b : T   =>   linalg.generic (parallel) { arith/math body }
//
// One templated pattern; each op contributes only its scalar body
// (`scalarBody` overloads below).
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Lowering/LowerToLinalg.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value constLike(OpBuilder &b, Location loc, Value like, double c) {
  return scalarConstant(b, loc, like.getType(), c);
}

// Binary.
Value scalarBody(AddOp, OpBuilder &b, Location l, ValueRange a) {
  return isFloat(a[0]) ? Value(arith::AddFOp::create(b, l, a[0], a[1]))
                       : Value(arith::AddIOp::create(b, l, a[0], a[1]));
}
Value scalarBody(SubOp, OpBuilder &b, Location l, ValueRange a) {
  return isFloat(a[0]) ? Value(arith::SubFOp::create(b, l, a[0], a[1]))
                       : Value(arith::SubIOp::create(b, l, a[0], a[1]));
}
Value scalarBody(MulOp, OpBuilder &b, Location l, ValueRange a) {
  return isFloat(a[0]) ? Value(arith::MulFOp::create(b, l, a[0], a[1]))
                       : Value(arith::MulIOp::create(b, l, a[0], a[1]));
}
Value scalarBody(DivOp, OpBuilder &b, Location l, ValueRange a) {
  return isFloat(a[0]) ? Value(arith::DivFOp::create(b, l, a[0], a[1]))
                       : Value(arith::FloorDivSIOp::create(b, l, a[0], a[1]));
}
Value scalarBody(MaxOp, OpBuilder &b, Location l, ValueRange a) {
  return isFloat(a[0]) ? Value(arith::MaximumFOp::create(b, l, a[0], a[1]))
                       : Value(arith::MaxSIOp::create(b, l, a[0], a[1]));
}

// Unary.
Value scalarBody(NegOp, OpBuilder &b, Location l, ValueRange a) {
  return arith::NegFOp::create(b, l, a[0]);
}
Value scalarBody(ExpOp, OpBuilder &b, Location l, ValueRange a) {
  return math::ExpOp::create(b, l, a[0]);
}
Value scalarBody(LogOp, OpBuilder &b, Location l, ValueRange a) {
  return math::LogOp::create(b, l, a[0]);
}
Value scalarBody(SqrtOp, OpBuilder &b, Location l, ValueRange a) {
  return math::SqrtOp::create(b, l, a[0]);
}
Value scalarBody(RsqrtOp, OpBuilder &b, Location l, ValueRange a) {
  return math::RsqrtOp::create(b, l, a[0]);
}
Value scalarBody(TanhOp, OpBuilder &b, Location l, ValueRange a) {
  return math::TanhOp::create(b, l, a[0]);
}
Value scalarBody(SigmoidOp, OpBuilder &b, Location l, ValueRange a) {
  Value one = constLike(b, l, a[0], 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, a[0]));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}
Value scalarBody(SquareOp, OpBuilder &b, Location l, ValueRange a) {
  return arith::MulFOp::create(b, l, a[0], a[0]);
}
Value scalarBody(ReluOp, OpBuilder &b, Location l, ValueRange a) {
  return arith::MaximumFOp::create(b, l, a[0], constLike(b, l, a[0], 0.0));
}
Value scalarBody(GeluOp, OpBuilder &b, Location l, ValueRange a) {
  // x * (1 + erf(x / sqrt 2)) / 2
  Value x = a[0];
  Value scaled =
      arith::MulFOp::create(b, l, x, constLike(b, l, x, 1.0 / std::sqrt(2.0)));
  Value cdf = arith::AddFOp::create(b, l, constLike(b, l, x, 1.0),
                                    math::ErfOp::create(b, l, scaled));
  Value half = arith::MulFOp::create(b, l, x, constLike(b, l, x, 0.5));
  return arith::MulFOp::create(b, l, half, cdf);
}
Value scalarBody(ErfOp, OpBuilder &b, Location l, ValueRange a) {
  return math::ErfOp::create(b, l, a[0]);
}
Value scalarBody(CosOp, OpBuilder &b, Location l, ValueRange a) {
  return math::CosOp::create(b, l, a[0]);
}
Value scalarBody(SinOp, OpBuilder &b, Location l, ValueRange a) {
  return math::SinOp::create(b, l, a[0]);
}

// With a constant scalar.
Value scalarBody(MulScalarOp op, OpBuilder &b, Location l, ValueRange a) {
  return arith::MulFOp::create(
      b, l, a[0], constLike(b, l, a[0], op.getScalar().convertToDouble()));
}
Value scalarBody(AddScalarOp op, OpBuilder &b, Location l, ValueRange a) {
  return arith::AddFOp::create(
      b, l, a[0], constLike(b, l, a[0], op.getScalar().convertToDouble()));
}

// Comparison, choice and conversion.
Value scalarBody(CompareOp op, OpBuilder &b, Location l, ValueRange a) {
  if (isFloat(a[0])) {
    arith::CmpFPredicate p;
    switch (op.getPredicate()) {
    case CompareKind::eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case CompareKind::ne:
      p = arith::CmpFPredicate::UNE;
      break;
    case CompareKind::lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case CompareKind::le:
      p = arith::CmpFPredicate::OLE;
      break;
    case CompareKind::gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case CompareKind::ge:
      p = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, l, p, a[0], a[1]);
  }
  arith::CmpIPredicate p;
  switch (op.getPredicate()) {
  case CompareKind::eq:
    p = arith::CmpIPredicate::eq;
    break;
  case CompareKind::ne:
    p = arith::CmpIPredicate::ne;
    break;
  case CompareKind::lt:
    p = arith::CmpIPredicate::slt;
    break;
  case CompareKind::le:
    p = arith::CmpIPredicate::sle;
    break;
  case CompareKind::gt:
    p = arith::CmpIPredicate::sgt;
    break;
  case CompareKind::ge:
    p = arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, l, p, a[0], a[1]);
}
Value scalarBody(SelectOp, OpBuilder &b, Location l, ValueRange a) {
  return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
}
Value scalarBody(CastOp op, OpBuilder &b, Location l, ValueRange a) {
  Type to = getElementTypeOrSelf(op.getResult().getType());
  Value x = a[0];
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth()
               ? Value(arith::ExtFOp::create(b, l, to, x))
               : Value(arith::TruncFOp::create(b, l, to, x));
  if (fromF)
    return arith::FPToSIOp::create(b, l, to, x);
  bool isBool = from.isInteger(1);
  if (toF)
    return isBool ? Value(arith::UIToFPOp::create(b, l, to, x))
                  : Value(arith::SIToFPOp::create(b, l, to, x));
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return isBool ? Value(arith::ExtUIOp::create(b, l, to, x))
                  : Value(arith::ExtSIOp::create(b, l, to, x));
  return arith::TruncIOp::create(b, l, to, x);
}

/// gpt elementwise op => linalg.generic with the op's scalar body.
template <typename OpTy> struct ElementwiseToGeneric : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value r =
        parallelGeneric(rewriter, op.getLoc(), type, op->getOperands(), {},
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          return scalarBody(op, b, l, args);
                        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ElementwiseToGeneric<AddOp>, ElementwiseToGeneric<SubOp>,
           ElementwiseToGeneric<MulOp>, ElementwiseToGeneric<DivOp>,
           ElementwiseToGeneric<MaxOp>, ElementwiseToGeneric<NegOp>,
           ElementwiseToGeneric<ExpOp>, ElementwiseToGeneric<LogOp>,
           ElementwiseToGeneric<SqrtOp>, ElementwiseToGeneric<RsqrtOp>,
           ElementwiseToGeneric<TanhOp>, ElementwiseToGeneric<SigmoidOp>,
           ElementwiseToGeneric<SquareOp>, ElementwiseToGeneric<ReluOp>,
           ElementwiseToGeneric<GeluOp>, ElementwiseToGeneric<ErfOp>,
           ElementwiseToGeneric<CosOp>, ElementwiseToGeneric<SinOp>,
           ElementwiseToGeneric<MulScalarOp>, ElementwiseToGeneric<AddScalarOp>,
           ElementwiseToGeneric<CompareOp>, ElementwiseToGeneric<SelectOp>,
           ElementwiseToGeneric<CastOp>>(patterns.getContext());
}

} // namespace gptc::lowering
