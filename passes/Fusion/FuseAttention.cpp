//===- FuseAttention.cpp - The gptc-fuse-attention pass -------------------===//
//
// The attention the frontend emits,
//
//   s = mul_scalar(matmul(q, k transpose_rhs), scale)
//   s = select(broadcast(allowed), s, -inf)            (when masked)
//   p = exp(s - max(s)) / sum(exp(s - max(s)))
//   o = matmul(p, v)
//
// (each matmul possibly between casts to a narrower type), becomes
// gpt.attention q, k, v with the mask recognised from `allowed`; when q, k,
// p and v are all cast to bf16 for the GEMMs, with `products = bf16` (the
// precision of the records' attention products, kept by the fused kernels)
// (AttentionMaskMatch.cpp). The T x T intermediates must have no user
// outside the pattern; a mask that is not a combination of the causal,
// window and document masks leaves everything as it is.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/AttentionMaskMatch.h"
#include "passes/Fusion/SoleUse.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

#define DEBUG_TYPE "gptc-fuse-attention"

namespace gptc {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using namespace mlir::gpt;
using gptc::fusion::onlyUsedBy;
using gptc::fusion::soleUseDef;

namespace {

/// The operand of a gpt.cast defining `v` (a GEMM operand rounded to a
/// narrower type), or `v` itself.
Value throughCast(Value v) {
  if (auto cast = v.getDefiningOp<CastOp>())
    return cast.getInput();
  return v;
}

/// The reduction of kind `kind` over the last dimension of `of`, broadcast
/// back and used only by `user`.
ReduceOp broadcastRowReduce(Value v, Operation *user, ReduceKind kind,
                            Value of) {
  auto bc = soleUseDef<BroadcastOp>(v, user);
  if (!bc)
    return nullptr;
  auto red = soleUseDef<ReduceOp>(bc.getInput(), bc);
  if (!red || red.getKind() != kind || red.getInput() != of ||
      red.getDims() != ArrayRef<int64_t>{3})
    return nullptr;
  return red;
}

/// `-inf` splat.
bool isNegInfSplat(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseFPElementsAttr>(c.getValue()) : nullptr;
  return dense && dense.isSplat() &&
         dense.getSplatValue<APFloat>().isInfinity() &&
         dense.getSplatValue<APFloat>().isNegative();
}

struct AttentionMatch {
  Value q, k, v, tokens, window;
  MaskAttr mask;
  double scale = 1.0;
  /// Whether q and k were both cast to bf16 for their product.
  bool bf16Scores = false;
};

/// Whether `v` is a gpt.cast to bf16 (a GEMM operand rounded to bf16).
bool castToBf16(Value v) {
  auto cast = v.getDefiningOp<CastOp>();
  return cast && cast.getType().getElementType().isBF16();
}

/// Matches softmax(scores) where scores is the masked, scaled q k^T; `p` is
/// the probabilities value, used only by `user`.
FailureOr<AttentionMatch> matchProbabilities(Value p, Operation *user,
                                             MLIRContext *ctx) {
  auto div = soleUseDef<DivOp>(p, user);
  if (!div)
    return failure();
  auto exp = div.getLhs().getDefiningOp<ExpOp>();
  if (!exp ||
      !broadcastRowReduce(div.getRhs(), div, ReduceKind::sum, exp.getResult()))
    return failure();
  auto sumUser =
      div.getRhs().getDefiningOp<BroadcastOp>().getInput().getDefiningOp();
  if (!onlyUsedBy(exp.getResult(), {div, sumUser}))
    return failure();
  auto sub = soleUseDef<SubOp>(exp.getInput(), exp);
  if (!sub)
    return failure();
  Value scores = sub.getLhs();
  ReduceOp max = broadcastRowReduce(sub.getRhs(), sub, ReduceKind::max, scores);
  if (!max || !onlyUsedBy(scores, {sub, max}))
    return failure();

  AttentionMatch m;
  Operation *scoresUser = nullptr;
  Value allowed;
  if (auto select = scores.getDefiningOp<SelectOp>()) {
    if (!isNegInfSplat(select.getFalseValue()))
      return failure();
    allowed = select.getCondition();
    scores = select.getTrueValue();
    scoresUser = select;
  }
  auto maskMatch = gptc::fusion::matchAttentionMask(allowed, ctx);
  if (failed(maskMatch))
    return failure();
  m.mask = maskMatch->mask;
  m.tokens = maskMatch->tokens;
  m.window = maskMatch->window;

  if (auto mulScalar = scores.getDefiningOp<MulScalarOp>()) {
    if (scoresUser && !onlyUsedBy(scores, {scoresUser}))
      return failure();
    m.scale = mulScalar.getScalar().convertToDouble();
    scoresUser = mulScalar;
    scores = mulScalar.getInput();
  }
  if (auto cast = scores.getDefiningOp<CastOp>()) {
    if (scoresUser && !onlyUsedBy(scores, {scoresUser}))
      return failure();
    scoresUser = cast;
    scores = cast.getInput();
  }
  auto qk = scores.getDefiningOp<MatmulOp>();
  if (!qk || qk.getTransposeLhs() || !qk.getTransposeRhs() ||
      (scoresUser && !onlyUsedBy(scores, {scoresUser})))
    return failure();
  m.bf16Scores = castToBf16(qk.getLhs()) && castToBf16(qk.getRhs());
  m.q = throughCast(qk.getLhs());
  m.k = throughCast(qk.getRhs());
  if (!(m.scale > 0.0) || !std::isfinite(m.scale))
    return failure();
  return m;
}

struct FuseAttention : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    if (pv.getTransposeLhs() || pv.getTransposeRhs())
      return rewriter.notifyMatchFailure(pv, "transposed operand");
    Value p = pv.getLhs();
    Operation *pUser = pv;
    if (auto cast = soleUseDef<CastOp>(p, pv)) {
      pUser = cast;
      p = cast.getInput();
    }
    FailureOr<AttentionMatch> m =
        matchProbabilities(p, pUser, rewriter.getContext());
    if (failed(m))
      return rewriter.notifyMatchFailure(pv, "not softmax(q k^T) v");
    const bool bf16Products =
        m->bf16Scores && castToBf16(pv.getLhs()) && castToBf16(pv.getRhs());
    Value v = throughCast(pv.getRhs());
    auto type = dyn_cast<RankedTensorType>(m->q.getType());
    if (!type || type.getRank() != 4 || m->k.getType() != type ||
        v.getType() != type)
      return rewriter.notifyMatchFailure(pv, "q, k, v of different types");

    // The result in q's type: the matmul itself, or its cast back.
    Operation *root = pv;
    if (pv.getType() != type) {
      auto back =
          pv->hasOneUse() ? dyn_cast<CastOp>(*pv->getUsers().begin()) : nullptr;
      if (!back || back.getType() != type)
        return rewriter.notifyMatchFailure(pv, "result not in q's type");
      root = back;
    }
    rewriter.setInsertionPoint(root);
    auto fused = AttentionOp::create(
        rewriter, root->getLoc(), type,
        cast<RankedTensorType>(attentionRowType(type)), m->q, m->k, v,
        m->tokens, m->window, m->mask, rewriter.getF64FloatAttr(m->scale),
        bf16Products && !type.getElementType().isBF16()
            ? TypeAttr::get(rewriter.getBF16Type())
            : TypeAttr());
    rewriter.replaceOp(root, fused.getResult());
    return success();
  }
};

struct FuseAttentionPass
    : gptc::impl::FuseAttentionPassBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttention>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
