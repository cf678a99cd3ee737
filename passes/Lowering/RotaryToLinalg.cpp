//===- RotaryToLinalg.cpp - gpt.rotary -> one linalg.generic --------------===//
//
// x [..., D] is viewed as [..., 2, D/2] (tensor.expand_shape, no copy) and
// one elementwise kernel over that shape reads both halves of its position
// (input maps with the half's index constant 0 and 1) and the tables, and
// writes the half its index p names:
//
//   p = 0: y1 = x1 cos + x2 sin      (inverse: x1 cos - x2 sin)
//   p = 1: y2 = x2 cos - x1 sin      (inverse: x2 cos + x1 sin)
//
// in the order of the frontend's primitive ops, so the fused and unfused
// steps round alike.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Lowering/LowerToLinalg.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

struct RotaryToLinalg : OpRewritePattern<RotaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RotaryOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType type = op.getInput().getType();
    RankedTensorType table = op.getCos().getType();
    const int64_t rank = type.getRank(), half = type.getShape().back() / 2;
    // [..., 2, half]: dims 0..rank-2 as x's, then p, then j.
    SmallVector<int64_t> split(type.getShape().drop_back());
    split.append({2, half});
    auto splitType = RankedTensorType::get(split, type.getElementType());
    Value x = reshapeTensor(rewriter, loc, op.getInput(), splitType);
    const unsigned dims = unsigned(rank + 1);
    auto halfMap = [&](int64_t p) {
      SmallVector<AffineExpr> e;
      for (int64_t i = 0; i + 1 < rank; ++i)
        e.push_back(getAffineDimExpr(unsigned(i), ctx));
      e.push_back(getAffineConstantExpr(p, ctx));
      e.push_back(getAffineDimExpr(unsigned(rank), ctx));
      return AffineMap::get(dims, 0, e, ctx);
    };
    SmallVector<AffineExpr> t;
    for (int64_t i = 0; i + 1 < rank; ++i)
      t.push_back(table.getDimSize(i) == 1
                      ? getAffineConstantExpr(0, ctx)
                      : getAffineDimExpr(unsigned(i), ctx));
    t.push_back(getAffineDimExpr(unsigned(rank), ctx));
    AffineMap tableMap = AffineMap::get(dims, 0, t, ctx);
    const bool inverse = op.getInverse();
    Value y = parallelGeneric(
        rewriter, loc, splitType, ValueRange{x, x, op.getCos(), op.getSin()},
        {halfMap(0), halfMap(1), tableMap, tableMap},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value x1 = a[0], x2 = a[1], c = a[2], s = a[3];
          Value x1c = arith::MulFOp::create(b, l, x1, c);
          Value x2s = arith::MulFOp::create(b, l, x2, s);
          Value x2c = arith::MulFOp::create(b, l, x2, c);
          Value x1s = arith::MulFOp::create(b, l, x1, s);
          Value first = inverse ? Value(arith::SubFOp::create(b, l, x1c, x2s))
                                : Value(arith::AddFOp::create(b, l, x1c, x2s));
          Value second = inverse ? Value(arith::AddFOp::create(b, l, x2c, x1s))
                                 : Value(arith::SubFOp::create(b, l, x2c, x1s));
          Value p = linalg::IndexOp::create(b, l, uint64_t(rank - 1));
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value isFirst =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, p, zero);
          return arith::SelectOp::create(b, l, isFirst, first, second);
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, y, type));
    return success();
  }
};

} // namespace

void populateRotaryToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RotaryToLinalg>(patterns.getContext());
}

} // namespace gptc::lowering
