//===- FuseCrossEntropy.cpp - The gptc-fuse-cross-entropy pass ------------===//
//
//   m   = reduce max(l, last)
//   lse = log(reduce sum(exp(l - broadcast(m)), last)) + m
//   nll = reshape(lse) - gather_last(l[targets])     => gpt.cross_entropy
//
// Every intermediate must have no user outside the pattern (m: exactly the
// broadcast and the add); otherwise the primitive ops stay.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/SoleUse.h"
#include "passes/Passes.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
    rewriter.replaceOpWithNewOp<CrossEntropyOp>(nll, nll.getType(), logits,
                                                target.getIndex());
    return success();
  }
};

struct FuseCrossEntropyPass
    : gptc::impl::FuseCrossEntropyPassBase<FuseCrossEntropyPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseCrossEntropy>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
