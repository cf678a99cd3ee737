//===- LowerOptim.cpp - optim ops -> gpt math -----------------------------===//
//
// optim.adam / optim.muon / optim.newton_schulz / the schedules become gpt
// primitives (REFERENCE §3-4), which then lower to kernels like the model.
// One pattern per op; the math is written with GraphBuilder.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/GPT/GraphBuilder.h"
#include "dialects/Optim/OptimDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

#define DEBUG_TYPE "gptc-lower-optim"

namespace gptc {
#define GEN_PASS_DEF_LOWEROPTIMPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using namespace mlir::gpt;
using gptc::GraphBuilder;

namespace {

Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// A 0-d f32 scalar as a [1, ..., 1] tensor of `like`'s rank and element
/// type, broadcast to `like`'s shape.
Value spread(GraphBuilder &g, Value scalar, Value like) {
  auto t = cast<RankedTensorType>(like.getType());
  Value s = g.cast(scalar, t.getElementType());
  s = g.reshape(s, SmallVector<int64_t>(t.getRank(), 1));
  return g.broadcastTo(s, t.getShape());
}

/// min(x, c) for a 0-d float tensor and a constant.
Value minConst(GraphBuilder &g, Value x, double c) {
  auto t = cast<RankedTensorType>(x.getType());
  Value cst = g.splat(t.getShape(), t.getElementType(), c);
  Value lt = g.compare(CompareKind::lt, x, cst);
  return SelectOp::create(g.builder(), g.getLoc(), lt, x, cst);
}

/// The step counter as a 0-d f32 tensor.
Value stepAsFloat(GraphBuilder &g, Value step) {
  return g.cast(step, g.builder().getF32Type());
}

// optim.lr_schedule => warm-up (step+1)/W, then w + (1 - w) floor with
// w = min((N - step) / D, 1).
struct LowerLRSchedule : OpRewritePattern<optim::LRScheduleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::LRScheduleOp op,
                                PatternRewriter &rewriter) const override {
    GraphBuilder g(rewriter, rewriter.getF32Type(), rewriter.getF32Type());
    g.setLoc(op.getLoc());
    Value s = stepAsFloat(g, op.getStep());
    double n = static_cast<double>(op.getTotalSteps());
    double d = 0;
    if (auto ds = op.getDecaySteps())
      d = static_cast<double>(*ds);
    else if (auto df = op.getDecayFraction())
      d = df->convertToDouble() * n;
    double floor = op.getFloor().convertToDouble();
    Value mult = g.splat({}, rewriter.getF32Type(), 1.0);
    if (d > 0) {
      // w = min((N - s) / D, 1)
      Value w = minConst(g, g.scale(g.shift(g.scale(s, -1.0), n), 1.0 / d),
                         1.0);
      mult = g.shift(g.scale(w, 1.0 - floor), floor);
    }
    int64_t warmup = op.getWarmupSteps();
    if (warmup > 0) {
      Value warm = g.scale(g.shift(s, 1.0), 1.0 / static_cast<double>(warmup));
      Value inWarmup = g.compare(
          CompareKind::lt, op.getStep(),
          g.splat({}, rewriter.getI64Type(), static_cast<double>(warmup)));
      mult = SelectOp::create(rewriter, op.getLoc(), inWarmup, warm, mult);
    }
    rewriter.replaceOp(op, mult);
    return success();
  }
};

// optim.momentum_warmup => start + min(step / steps, 1) (end - start)
struct LowerMomentumWarmup : OpRewritePattern<optim::MomentumWarmupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::MomentumWarmupOp op,
                                PatternRewriter &rewriter) const override {
    GraphBuilder g(rewriter, rewriter.getF32Type(), rewriter.getF32Type());
    g.setLoc(op.getLoc());
    double start = op.getStart().convertToDouble();
    double end = op.getEnd().convertToDouble();
    Value f = minConst(
        g,
        g.scale(stepAsFloat(g, op.getStep()),
                1.0 / static_cast<double>(op.getSteps())),
        1.0);
    rewriter.replaceOp(op, g.shift(g.scale(f, end - start), start));
    return success();
  }
};

// optim.adam => elementwise Adam / AdamW with bias correction t = step + 1.
struct LowerAdam : OpRewritePattern<optim::AdamOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::AdamOp op,
                                PatternRewriter &rewriter) const override {
    Type elt = elementTypeOf(op.getParam());
    GraphBuilder g(rewriter, elt, elt);
    g.setLoc(op.getLoc());
    double b1 = op.getBeta1().convertToDouble();
    double b2 = op.getBeta2().convertToDouble();
    double eps = op.getEps().convertToDouble();
    double wd = op.getWeightDecay().convertToDouble();
    Value p = op.getParam(), grad = op.getGrad();
    if (!op.getDecoupled() && wd != 0.0)
      grad = g.add(grad, g.scale(p, wd));
    Value m = g.add(g.scale(op.getM(), b1), g.scale(grad, 1.0 - b1));
    Value v = g.add(g.scale(op.getV(), b2),
                    g.scale(SquareOp::create(rewriter, op.getLoc(), grad),
                            1.0 - b2));
    // lr_t = lr / (1 - b1^t) and the v correction 1 / sqrt(1 - b2^t), as
    // scalars: b^t = exp(t log b).
    Value lr = op.getLr();
    Value mHat = m, vHat = v;
    if (op.getBiasCorrection()) {
      Value t = g.shift(stepAsFloat(g, op.getStep()), 1.0);
      auto oneMinusPow = [&](double beta) {
        Value pw = ExpOp::create(rewriter, op.getLoc(), g.scale(t, std::log(beta)));
        return g.shift(g.scale(pw, -1.0), 1.0);
      };
      mHat = g.div(m, spread(g, oneMinusPow(b1), m));
      vHat = g.div(v, spread(g, oneMinusPow(b2), v));
    }
    Value denom = g.shift(SqrtOp::create(rewriter, op.getLoc(), vHat), eps);
    Value update = g.mul(g.div(mHat, denom), spread(g, lr, p));
    if (op.getDecoupled() && wd != 0.0)
      p = g.sub(p, g.mul(p, spread(g, g.scale(lr, wd), p)));
    rewriter.replaceOp(op, {g.sub(p, update), m, v});
    return success();
  }
};

/// The Muon update scale of a rows x cols block.
double updateScale(optim::UpdateScale rule, int64_t rows, int64_t cols) {
  switch (rule) {
  case optim::UpdateScale::none:
    return 1.0;
  case optim::UpdateScale::sqrt_max_dim:
    return std::sqrt(static_cast<double>(std::max(rows, cols)));
  case optim::UpdateScale::sqrt_max_1_ratio:
    return std::sqrt(std::max(1.0, static_cast<double>(rows) / cols));
  }
  return 1.0;
}

// optim.muon => momentum (sum / lerp, nesterov), orthogonalisation
// (optim.newton_schulz or optim.svd_orthogonalize per block), scaled step.
struct LowerMuon : OpRewritePattern<optim::MuonOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::MuonOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elt = elementTypeOf(op.getParam());
    GraphBuilder g(rewriter, elt, elt);
    g.setLoc(loc);
    Value grad = op.getGrad(), buf = op.getBuf();
    Value m = spread(g, op.getMomentum(), grad);
    Value newBuf, u;
    if (op.getMomentumForm() == optim::MomentumForm::sum) {
      newBuf = g.add(g.mul(m, buf), grad);
      u = op.getNesterov() ? g.add(grad, g.mul(m, newBuf)) : newBuf;
    } else {
      // lerp(buf, g, 1 - m) = buf + (1 - m)(g - buf); lerp(g, buf', m).
      Value oneMinusM = g.sub(g.splat(g.typeOf(m).getShape(), elt, 1.0), m);
      newBuf = g.add(buf, g.mul(oneMinusM, g.sub(grad, buf)));
      u = op.getNesterov() ? g.add(grad, g.mul(m, g.sub(newBuf, grad)))
                           : newBuf;
    }

    auto type = cast<RankedTensorType>(u.getType());
    int64_t rank = type.getRank();
    int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
    SmallVector<Value> blocks = {u};
    if (op.getQkvSplit())
      blocks = g.split(u, rank - 2, 3);
    SmallVector<Value> orthogonal;
    for (Value block : blocks) {
      auto bt = cast<RankedTensorType>(block.getType());
      Value o;
      if (op.getBackend() == optim::OrthoBackend::svd)
        o = optim::SVDOrthogonalizeOp::create(rewriter, loc, bt, block);
      else
        o = optim::NewtonSchulzOp::create(
            rewriter, loc, bt, block, op.getStepsAttr(),
            op.getCoefficientsAttr(), op.getEpsAttr(), op.getFormAttr(),
            op.getTransposeAttr(), op.getNormalizeAttr(),
            op.getComputeDtypeAttr());
      int64_t r = bt.getDimSize(rank - 2), c = bt.getDimSize(rank - 1);
      orthogonal.push_back(g.scale(o, updateScale(op.getUpdateScale(), r, c)));
    }
    (void)rows;
    (void)cols;
    Value o = orthogonal.size() == 1 ? orthogonal[0]
                                     : g.concat(orthogonal, rank - 2);
    Value p = op.getParam();
    Value lr = spread(g, op.getLr(), p);
    double wd = op.getWeightDecay().convertToDouble();
    if (wd != 0.0)
      p = g.sub(p, g.scale(g.mul(p, lr), wd));
    rewriter.replaceOp(op, {g.sub(p, g.mul(lr, o)), newBuf});
    return success();
  }
};

// optim.newton_schulz => normalise, short side, `steps` quintic iterations
// with GEMMs in the compute dtype, back to the input's type.
struct LowerNewtonSchulz : OpRewritePattern<optim::NewtonSchulzOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::NewtonSchulzOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type inElt = elementTypeOf(op.getInput());
    Type ct = op.getComputeDtype();
    GraphBuilder g(rewriter, ct, ct);
    g.setLoc(loc);
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> matDims = {rank - 2, rank - 1};
    double eps = op.getEps().convertToDouble();

    // X / (||X||_F + eps), the norm per matrix, computed in f32 (or f64).
    Type normType = inElt.isF64() ? inElt : Type(rewriter.getF32Type());
    auto normalize = [&](Value x) {
      Value xf = g.cast(x, normType);
      Value sq = SquareOp::create(rewriter, loc, xf);
      Value nrm = SqrtOp::create(rewriter, loc,
                                 g.reduce(ReduceKind::sum, sq, matDims));
      Value denom = g.broadcastTo(g.shift(nrm, eps), g.typeOf(xf).getShape());
      return g.div(xf, denom);
    };
    Value x;
    if (op.getNormalize() == optim::NormalizeOrder::before_cast)
      x = g.cast(normalize(op.getInput()), ct);
    else
      x = g.cast(normalize(g.cast(op.getInput(), ct)), ct);

    bool transposed = op.getTranspose() == optim::TransposeRule::short_side &&
                      type.getDimSize(rank - 2) > type.getDimSize(rank - 1);
    SmallVector<int64_t> swapLast;
    for (int64_t i = 0; i < rank; ++i)
      swapLast.push_back(i);
    std::swap(swapLast[rank - 2], swapLast[rank - 1]);
    if (transposed)
      x = g.transpose(x, swapLast);

    ArrayRef<double> coef = op.getCoefficients();
    double a = coef[0], b = coef[1], c = coef[2];
    for (int64_t i = 0; i < op.getSteps(); ++i) {
      Value gram = g.matmul(x, x, false, true); // A = X X^T
      if (op.getForm() == optim::NSForm::polynomial_then_apply) {
        // B = b A + c A A; X = a X + B X
        Value poly =
            g.add(g.scale(gram, b), g.scale(g.matmul(gram, gram, false, false),
                                            c));
        x = g.add(g.scale(x, a), g.matmul(poly, x, false, false));
      } else {
        // B = A X; X = a X + b B + c A B
        Value bx = g.matmul(gram, x, false, false);
        x = g.add(g.add(g.scale(x, a), g.scale(bx, b)),
                  g.scale(g.matmul(gram, bx, false, false), c));
      }
    }
    if (transposed)
      x = g.transpose(x, swapLast);
    rewriter.replaceOp(op, g.cast(x, inElt));
    return success();
  }
};

struct LowerOptimPass : gptc::impl::LowerOptimPassBase<LowerOptimPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<LowerLRSchedule, LowerMomentumWarmup, LowerAdam, LowerMuon,
                 LowerNewtonSchulz>(ctx);
    ConversionTarget target(*ctx);
    target.addLegalDialect<gpt::GPTDialect, func::FuncDialect>();
    target.addIllegalDialect<optim::OptimDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
