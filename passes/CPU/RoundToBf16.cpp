//===- RoundToBf16.cpp - The gptc-round-to-bf16 pass ----------------------===//
//
// bf16 conversions as integer arithmetic on the bits, so that LLVM sees no
// bf16 arithmetic to legalise:
//  - f32 -> bf16 `llvm.fptrunc` (scalar or vector): round to nearest even
//    by adding 0x7fff plus the lowest kept bit, NaNs kept quiet, the high
//    half kept as i16; a store of the result stores those i16 bits;
//  - bf16 -> f32 `llvm.fpext`: the bits shifted into the high half.
// LLVM has bf16 instructions only on CPUs with AVX512_BF16: on every other
// x86 it carries bf16 values as f32 and rounds them back with calls of
// `__truncsfbf2`, a libgcc function that GCC 12 (Debian 12) does not have,
// so a step.so compiled there did not load. It also narrows f32 arithmetic
// on widened bf16 values to bf16 (a running max over bf16 logits), which
// needs the same call. The integer forms need nothing, vectorise on every
// CPU and round exactly as the runtime's f32ToBf16 (runtime/cpu/Bf16.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-round-to-bf16"

namespace gptc {
#define GEN_PASS_DEF_ROUNDTOBF16PASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// `type` with its element type replaced by `element` (scalar or vector).
Type withElementType(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

/// An integer constant of `type` (scalar or splat vector).
Value intConstant(OpBuilder &builder, Location loc, Type type, int64_t value) {
  auto attr = builder.getIntegerAttr(getElementTypeOrSelf(type), value);
  if (auto vector = dyn_cast<VectorType>(type))
    return LLVM::ConstantOp::create(builder, loc, type,
                                    DenseElementsAttr::get(vector, attr));
  return LLVM::ConstantOp::create(builder, loc, type, attr);
}

/// The bf16 bits of f32 `value`, as i16: round to nearest even; a NaN keeps
/// its sign and high payload bits and is made quiet.
Value roundedBits(OpBuilder &builder, Location loc, Value value) {
  Type i32 = withElementType(value.getType(), builder.getI32Type());
  Type i16 = withElementType(value.getType(), builder.getI16Type());
  auto constant = [&](int64_t c) { return intConstant(builder, loc, i32, c); };
  Value bits = LLVM::BitcastOp::create(builder, loc, i32, value);
  Value magnitude =
      LLVM::AndOp::create(builder, loc, bits, constant(0x7fffffff));
  Value isNaN = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ugt,
                                     magnitude, constant(0x7f800000));
  Value quiet = LLVM::OrOp::create(builder, loc, bits, constant(0x400000));
  // A carry out of the kept bits rounds up into the next binade (or to
  // infinity), as it should.
  Value kept = LLVM::LShrOp::create(builder, loc, bits, constant(16));
  Value lowestKept = LLVM::AndOp::create(builder, loc, kept, constant(1));
  Value bias = LLVM::AddOp::create(builder, loc, lowestKept, constant(0x7fff));
  Value rounded = LLVM::AddOp::create(builder, loc, bits, bias);
  Value chosen = LLVM::SelectOp::create(builder, loc, isNaN, quiet, rounded);
  Value high = LLVM::LShrOp::create(builder, loc, chosen, constant(16));
  return LLVM::TruncOp::create(builder, loc, i16, high);
}

/// f32 -> bf16: the rounded bits; a store stores them as i16, any other
/// user takes them as bf16 (a widening of it is then FPExtFromBf16Bits').
struct FPTruncToBf16Bits : OpRewritePattern<LLVM::FPTruncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LLVM::FPTruncOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getArg()).isF32() ||
        !getElementTypeOrSelf(op.getType()).isBF16())
      return rewriter.notifyMatchFailure(op, "not f32 to bf16");
    Value bits = roundedBits(rewriter, op.getLoc(), op.getArg());
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      auto store = dyn_cast<LLVM::StoreOp>(use.getOwner());
      if (store && use.getOperandNumber() == 0)
        rewriter.modifyOpInPlace(store, [&] { use.set(bits); });
    }
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, op.getType(), bits);
    return success();
  }
};

/// bf16 -> f32: the bits shifted into the high half. LLVM would otherwise
/// narrow f32 arithmetic on widened bf16 values (a running max over bf16
/// logits) back to bf16, which it can only do through `__truncsfbf2`.
/// A widened load becomes a load of i16 once LLVM folds the bitcast.
struct FPExtFromBf16Bits : OpRewritePattern<LLVM::FPExtOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LLVM::FPExtOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getArg()).isBF16() ||
        !getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not bf16 to f32");
    Location loc = op.getLoc();
    Type i16 = withElementType(op.getType(), rewriter.getI16Type());
    Type i32 = withElementType(op.getType(), rewriter.getI32Type());
    Value bits = LLVM::BitcastOp::create(rewriter, loc, i16, op.getArg());
    Value wide = LLVM::ZExtOp::create(rewriter, loc, i32, bits);
    Value shifted = LLVM::ShlOp::create(rewriter, loc, wide,
                                        intConstant(rewriter, loc, i32, 16));
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, op.getType(), shifted);
    return success();
  }
};

struct RoundToBf16Pass : gptc::impl::RoundToBf16PassBase<RoundToBf16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FPTruncToBf16Bits, FPExtFromBf16Bits>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
