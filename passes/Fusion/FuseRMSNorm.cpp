//===- FuseRMSNorm.cpp - The gptc-fuse-rmsnorm pass -----------------------===//
//
// x * broadcast(rsqrt(mean(x^2, last) + eps))          => gpt.rms_norm x
//   ... * broadcast(reshape(w))                        => ... weight w
//   with x = a + r and no other user of x              => ... residual
//
// Every intermediate must have no user outside the pattern; otherwise the
// primitive ops stay (they compute a value someone else needs).
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/SoleUse.h"
#include "passes/Passes.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-fuse-rmsnorm"

namespace gptc {
#define GEN_PASS_DEF_FUSERMSNORMPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using namespace mlir::gpt;
using gptc::fusion::soleUseDef;

namespace {

/// The normalised tensor and eps of `mul(x, broadcast(rsqrt(...)))`.
struct NormMatch {
  Value x;
  double eps = 0.0;
  Operation *square = nullptr;
};

std::optional<NormMatch> matchNorm(MulOp mul) {
  for (unsigned side = 0; side < 2; ++side) {
    Value x = mul->getOperand(side), scaleVal = mul->getOperand(1 - side);
    auto bc = soleUseDef<BroadcastOp>(scaleVal, mul);
    if (!bc || bc.getType() != x.getType())
      continue;
    auto rsqrt = soleUseDef<RsqrtOp>(bc.getInput(), bc);
    if (!rsqrt)
      continue;
    auto shift = soleUseDef<AddScalarOp>(rsqrt.getInput(), rsqrt);
    if (!shift)
      continue;
    auto mean = soleUseDef<ReduceOp>(shift.getInput(), shift);
    auto rank = cast<RankedTensorType>(x.getType()).getRank();
    if (!mean || mean.getKind() != ReduceKind::mean ||
        mean.getDims() != ArrayRef<int64_t>{rank - 1})
      continue;
    auto square = soleUseDef<SquareOp>(mean.getInput(), mean);
    if (!square || square.getInput() != x)
      continue;
    return NormMatch{x, shift.getScalar().convertToDouble(), square};
  }
  return std::nullopt;
}

/// `w` when `v` is broadcast(reshape(w)) of a vector w of the last
/// dimension, used only by `user`.
Value matchWeight(Value v, Operation *user, RankedTensorType normType) {
  auto bc = soleUseDef<BroadcastOp>(v, user);
  if (!bc || bc.getType() != normType)
    return nullptr;
  auto reshape = soleUseDef<ReshapeOp>(bc.getInput(), bc);
  if (!reshape)
    return nullptr;
  Value w = reshape.getInput();
  auto wt = cast<RankedTensorType>(w.getType());
  if (wt.getRank() != 1 || wt.getDimSize(0) != normType.getShape().back() ||
      wt.getElementType() != normType.getElementType())
    return nullptr;
  return w;
}

struct FuseRMSNorm : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp mul,
                                PatternRewriter &rewriter) const override {
    std::optional<NormMatch> norm = matchNorm(mul);
    if (!norm)
      return rewriter.notifyMatchFailure(mul, "not x * rsqrt(mean(x^2)+eps)");
    auto type = cast<RankedTensorType>(mul.getType());

    // x = a + r whose only users are the pattern's: fuse the residual add.
    Value input = norm->x, residual;
    if (auto add = norm->x.getDefiningOp<AddOp>())
      if (llvm::all_of(add->getUsers(), [&](Operation *u) {
            return u == mul.getOperation() || u == norm->square;
          }))
        input = add.getLhs(), residual = add.getRhs();

    // A following multiplication by a weight vector.
    Operation *root = mul;
    Value weight;
    if (mul->hasOneUse())
      if (auto wmul = dyn_cast<MulOp>(*mul->getUsers().begin()))
        for (unsigned side = 0; side < 2 && !weight; ++side)
          if (wmul->getOperand(side) == mul.getResult())
            if ((weight = matchWeight(wmul->getOperand(1 - side), wmul, type)))
              root = wmul;

    rewriter.setInsertionPoint(root);
    auto fused =
        RMSNormOp::create(rewriter, root->getLoc(), type, input, residual,
                          weight, rewriter.getF64FloatAttr(norm->eps));
    rewriter.replaceOp(root, fused.getResult());
    return success();
  }
};

struct FuseRMSNormPass : gptc::impl::FuseRMSNormPassBase<FuseRMSNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseRMSNorm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
