//===- FuseCrossEntropy.cpp - The gptc-fuse-cross-entropy pass ------------===//
//
//   m   = reduce max(l, last)
//   lse = log(reduce sum(exp(l - broadcast(m)), last)) + m
//   nll = reshape(lse) - gather_last(l[targets])     => gpt.cross_entropy
//
// Every intermediate must have no user outside the pattern (m: exactly the
// broadcast and the add); otherwise the primitive ops stay. Then the
// logits' producers fold into the op, each only when the op is its sole
// user:
//
//   cross_entropy(mul_scalar(f(mul_scalar(x, s)), c)), f = tanh | sigmoid
//                               => cross_entropy(x) softcap <f, c, s>
//   cross_entropy(cast(x)), x narrower (bf16 -> f32)
//                               => cross_entropy(x)
//
// so that the softcapped (and widened) logits, the largest tensors of the
// step, are never stored, and their gradient (gpt.cross_entropy_grad, from
// the autodiff) is written once, in the logits' own type.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/SoleUse.h"
#include "passes/Passes.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "gptc-fuse-cross-entropy"

namespace gptc {
#define GEN_PASS_DEF_FUSECROSSENTROPYPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using namespace mlir::gpt;
using gptc::fusion::soleUseDef;

namespace {

/// A reduction of `kind` over the last dimension only.
bool reducesLast(ReduceOp r, ReduceKind kind) {
  int64_t rank = r.getInput().getType().getRank();
  return r.getKind() == kind && r.getDims() == ArrayRef<int64_t>{rank - 1};
}

/// The logits whose log-sum-exp `lse` computes (log(sum exp(l - m)) + m
/// with m = max(l)), or null.
Value matchLogSumExp(AddOp lse) {
  for (unsigned side = 0; side < 2; ++side) {
    auto log = soleUseDef<LogOp>(lse->getOperand(side), lse);
    auto max = lse->getOperand(1 - side).getDefiningOp<ReduceOp>();
    if (!log || !max || !reducesLast(max, ReduceKind::max))
      continue;
    auto sum = soleUseDef<ReduceOp>(log.getInput(), log);
    if (!sum || !reducesLast(sum, ReduceKind::sum))
      continue;
    auto exp = soleUseDef<ExpOp>(sum.getInput(), sum);
    if (!exp)
      continue;
    auto shifted = soleUseDef<SubOp>(exp.getInput(), exp);
    if (!shifted || shifted.getLhs() != max.getInput())
      continue;
    auto bc = soleUseDef<BroadcastOp>(shifted.getRhs(), shifted);
    if (!bc || bc.getInput() != max.getResult())
      continue;
    // The max feeds exactly the shift and the final add.
    if (llvm::any_of(max->getUsers(), [&](Operation *u) {
          return u != bc.getOperation() && u != lse.getOperation();
        }))
      continue;
    return max.getInput();
  }
  return nullptr;
}

struct FuseCrossEntropy : OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubOp nll,
                                PatternRewriter &rewriter) const override {
    auto target = soleUseDef<GatherLastOp>(nll.getRhs(), nll);
    if (!target)
      return rewriter.notifyMatchFailure(nll, "rhs is not gather_last");
    Value lseValue = nll.getLhs();
    if (auto reshape = soleUseDef<ReshapeOp>(lseValue, nll))
      lseValue = reshape.getInput();
    else if (!lseValue.hasOneUse())
      return rewriter.notifyMatchFailure(nll, "lse has another user");
    auto lse = lseValue.getDefiningOp<AddOp>();
    if (!lse)
      return rewriter.notifyMatchFailure(nll, "lhs is not max + log(...)");
    Value logits = matchLogSumExp(lse);
    if (!logits || logits != target.getInput())
      return rewriter.notifyMatchFailure(
          nll, "not logsumexp(l) - l[targets] of one tensor l");
    rewriter.replaceOpWithNewOp<CrossEntropyOp>(
        nll, nll.getType(), logits, target.getIndex(), SoftcapAttr());
    return success();
  }
};

/// f(x) for f = tanh or sigmoid: its kind and x.
std::optional<std::pair<SoftcapKind, Value>> matchSquash(Operation *op) {
  if (auto tanh = dyn_cast_or_null<TanhOp>(op))
    return std::make_pair(SoftcapKind::tanh, tanh.getInput());
  if (auto sigmoid = dyn_cast_or_null<SigmoidOp>(op))
    return std::make_pair(SoftcapKind::sigmoid, sigmoid.getInput());
  return std::nullopt;
}

struct FoldSoftcap : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getSoftcapAttr())
      return rewriter.notifyMatchFailure(op, "already softcapped");
    auto outer = soleUseDef<MulScalarOp>(op.getLogits(), op);
    if (!outer)
      return rewriter.notifyMatchFailure(op, "logits are not c * f(...)");
    Value squashed = outer.getInput();
    std::optional<std::pair<SoftcapKind, Value>> squash;
    if (squashed.hasOneUse())
      squash = matchSquash(squashed.getDefiningOp());
    if (!squash)
      return rewriter.notifyMatchFailure(op, "not c * tanh or c * sigmoid");
    auto inner =
        soleUseDef<MulScalarOp>(squash->second, squashed.getDefiningOp());
    if (!inner)
      return rewriter.notifyMatchFailure(op, "not c * f(x * s)");
    double cap = outer.getScalar().convertToDouble();
    double scale = inner.getScalar().convertToDouble();
    if (!(cap > 0.0) || !std::isfinite(cap) || !(scale > 0.0) ||
        !std::isfinite(scale))
      return rewriter.notifyMatchFailure(op, "cap or scale not positive");
    auto softcap =
        SoftcapAttr::get(op.getContext(), squash->first, outer.getScalarAttr(),
                         inner.getScalarAttr());
    Value logits = inner.getInput();
    rewriter.modifyOpInPlace(op, [&] {
      op.getLogitsMutable().assign(logits);
      op.setSoftcapAttr(softcap);
    });
    return success();
  }
};

struct FoldWideningCast : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    auto cast = soleUseDef<CastOp>(op.getLogits(), op);
    if (!cast)
      return rewriter.notifyMatchFailure(op, "logits are not a cast");
    auto from = dyn_cast<FloatType>(cast.getInput().getType().getElementType());
    auto to = dyn_cast<FloatType>(op.getLogits().getType().getElementType());
    if (!from || !to || from.getWidth() >= to.getWidth())
      return rewriter.notifyMatchFailure(op, "not a widening float cast");
    rewriter.modifyOpInPlace(
        op, [&] { op.getLogitsMutable().assign(cast.getInput()); });
    return success();
  }
};

struct FuseCrossEntropyPass
    : gptc::impl::FuseCrossEntropyPassBase<FuseCrossEntropyPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseCrossEntropy, FoldSoftcap, FoldWideningCast>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
