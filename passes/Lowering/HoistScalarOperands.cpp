//===- HoistScalarOperands.cpp - Broadcast scalars read once, outside -----===//
//
// %r = linalg.generic {indexing_maps = [(i, j) -> (0, 0), (i, j) -> (i, j),
//                                       (i, j) -> (i, j)]}
//        ins(%norm, %x : tensor<1x1xf32>, tensor<64x64xf32>) outs(%init)
//        ^bb0(%n: f32, %v: f32, %o: f32): ... uses %n ...
//   =>
// %n = tensor.extract %norm[%c0, %c0] : tensor<1x1xf32>
// %r = linalg.generic {indexing_maps = [(i, j) -> (i, j), (i, j) -> (i, j)]}
//        ins(%x : tensor<64x64xf32>) outs(%init)
//        ^bb0(%v: f32, %o: f32): ... uses %n ...
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-hoist-scalar-operands"

namespace gptc {
#define GEN_PASS_DEF_HOISTSCALAROPERANDSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// An input read at the same constant indices by every iteration.
bool isBroadcastScalar(linalg::GenericOp op, OpOperand *input) {
  if (!isa<RankedTensorType>(input->get().getType()))
    return false;
  AffineMap map = op.getMatchingIndexingMap(input);
  return llvm::all_of(map.getResults(),
                      [](AffineExpr e) { return isa<AffineConstantExpr>(e); });
}

struct HoistScalarOperands : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "needs tensor semantics");
    SmallVector<OpOperand *> inputs = op.getDpsInputOperands();
    if (llvm::none_of(inputs,
                      [&](OpOperand *in) { return isBroadcastScalar(op, in); }))
      return rewriter.notifyMatchFailure(op, "no broadcast scalar input");

    Location loc = op.getLoc();
    Block &body = op.getRegion().front();
    IRMapping mapping;
    SmallVector<Value> keptInputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *in : inputs) {
      AffineMap map = op.getMatchingIndexingMap(in);
      if (!isBroadcastScalar(op, in)) {
        keptInputs.push_back(in->get());
        maps.push_back(map);
        continue;
      }
      SmallVector<Value> indices;
      for (AffineExpr e : map.getResults())
        indices.push_back(arith::ConstantIndexOp::create(
            rewriter, loc, cast<AffineConstantExpr>(e).getValue()));
      Value scalar =
          tensor::ExtractOp::create(rewriter, loc, in->get(), indices);
      mapping.map(op.getMatchingBlockArgument(in), scalar);
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));

    auto hoisted = linalg::GenericOp::create(
        rewriter, loc, op.getResultTypes(), keptInputs, op.getDpsInits(), maps,
        op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location, ValueRange args) {
          unsigned next = 0;
          for (BlockArgument arg : body.getArguments())
            if (!mapping.contains(arg))
              mapping.map(arg, args[next++]);
          for (Operation &inner : body)
            b.clone(inner, mapping);
        });
    hoisted->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, hoisted.getResults());
    return success();
  }
};

struct HoistScalarOperandsPass
    : gptc::impl::HoistScalarOperandsPassBase<HoistScalarOperandsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<HoistScalarOperands>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
