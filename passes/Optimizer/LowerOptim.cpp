//===- LowerOptim.cpp - optim ops -> gpt math -----------------------------===//
//
// optim.adam / optim.muon / optim.newton_schulz / the schedules become gpt
// primitives (REFERENCE §3-4), which then lower to kernels like the model.
// One pattern per op; the math is written with GraphBuilder.
//
// optim.svd_orthogonalize is not gpt math: it becomes a call of the runtime
// (runtime/gptrt.h) on the buffers of its operand and of a new result,
//   %in  = bufferization.to_buffer %x read_only    (x as [batch, rows, cols])
//   %out = memref.alloc()
//   func.call @gptc_svd_orthogonalize_<f32|f64>(%in, %out)   (C interface)
//   %o   = bufferization.to_tensor %out restrict writable
// which one-shot bufferization turns into a call on the real buffers. The
// callee is declared in the module, so the SVD backend needs the pass to run
// on the module (or the declaration to be there already).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/GPT/GraphBuilder.h"
#include "dialects/Optim/OptimDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
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

/// The step counter as a 0-d float tensor of `type`.
Value stepAsFloat(GraphBuilder &g, Value step, Type type) {
  return g.cast(step, type);
}

/// The element type of a 0-d scalar's tensor.
Type scalarType(Value v) { return elementTypeOf(v); }

/// min(x, c) for two 0-d tensors.
Value minOf(GraphBuilder &g, Value x, Value c) {
  return SelectOp::create(g.builder(), g.getLoc(),
                          g.compare(CompareKind::lt, x, c), x, c);
}

/// r = N / compiled_steps: how much longer the run is than the one the
/// schedule's steps were counted in (exactly 1 when it is that run).
Value runScale(GraphBuilder &g, Value n, int64_t compiledSteps) {
  auto t = cast<RankedTensorType>(n.getType());
  return g.div(
      n, g.splat({}, t.getElementType(), static_cast<double>(compiledSteps)));
}

// optim.lr_schedule => with N the run's length and r = N / compiled_steps,
// W = r warmup_steps and D = r decay_steps (or r decay_fraction
// compiled_steps): warm-up min((step+1)/W, 1), then w + (1 - w) floor with
// w = min((N - s) / D, 1), s = min(step, N): past N the multiplier stays
// at its floor (never negative). A run of compiled_steps computes what a
// bundle compiled for its length computes (r = 1); one of N steps what a
// bundle compiled for N steps computes when the steps scale exactly.
struct LowerLRSchedule : OpRewritePattern<optim::LRScheduleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::LRScheduleOp op,
                                PatternRewriter &rewriter) const override {
    Type ft = scalarType(op.getResult());
    GraphBuilder g(rewriter, ft, ft);
    g.setLoc(op.getLoc());
    const int64_t compiled = op.getCompiledSteps();
    Value n = stepAsFloat(g, op.getTotalSteps(), ft);
    Value r = runScale(g, n, compiled);
    Value s = stepAsFloat(g, op.getStep(), ft);
    double d = 0;
    if (auto ds = op.getDecaySteps())
      d = static_cast<double>(*ds);
    else if (auto df = op.getDecayFraction())
      d = df->convertToDouble() * static_cast<double>(compiled);
    double floor = op.getFloor().convertToDouble();
    Value mult = g.splat({}, ft, 1.0);
    if (d > 0) {
      // w = min((N - min(s, N)) / D, 1)
      Value w =
          minConst(g, g.div(g.sub(n, minOf(g, s, n)), g.scale(r, d)), 1.0);
      mult = g.shift(g.scale(w, 1.0 - floor), floor);
    }
    int64_t warmup = op.getWarmupSteps();
    if (warmup > 0) {
      Value w = g.scale(r, static_cast<double>(warmup));
      // At most 1: a warm-up scaled below a step (a short run of a long
      // schedule) is over at once, not a multiplier of 1 / W.
      Value warm = minConst(g, g.div(g.shift(s, 1.0), w), 1.0);
      Value inWarmup = g.compare(CompareKind::lt, s, w);
      mult = SelectOp::create(rewriter, op.getLoc(), inWarmup, warm, mult);
    }
    rewriter.replaceOp(op, mult);
    return success();
  }
};

// optim.momentum_warmup => start + min(step / S, 1) (end - start), with
// S = r steps (r = N / compiled_steps, N the run's length).
struct LowerMomentumWarmup : OpRewritePattern<optim::MomentumWarmupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::MomentumWarmupOp op,
                                PatternRewriter &rewriter) const override {
    Type ft = scalarType(op.getResult());
    GraphBuilder g(rewriter, ft, ft);
    g.setLoc(op.getLoc());
    double start = op.getStart().convertToDouble();
    double end = op.getEnd().convertToDouble();
    Value r = runScale(g, stepAsFloat(g, op.getTotalSteps(), ft),
                       op.getCompiledSteps());
    Value f = minConst(g,
                       g.div(stepAsFloat(g, op.getStep(), ft),
                             g.scale(r, static_cast<double>(op.getSteps()))),
                       1.0);
    rewriter.replaceOp(op, g.shift(g.scale(f, end - start), start));
    return success();
  }
};

// optim.window_schedule => in exact i64 arithmetic, with N the run's length
// (an operand), s = clamp(step, 0, N) and num = start (N - s) + end s = N x:
//   floor: g floor(num / (N g)),   ceil: g floor((num + N g - 1) / (N g)),
// then at least g. (num >= 0, so the signed division is a floor.)
struct LowerWindowSchedule : OpRewritePattern<optim::WindowScheduleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::WindowScheduleOp op,
                                PatternRewriter &rewriter) const override {
    Type i64 = rewriter.getI64Type();
    GraphBuilder g(rewriter, i64, i64);
    g.setLoc(op.getLoc());
    auto c = [&](int64_t v) { return g.splat({}, i64, double(v)); };
    int64_t gran = op.getGranularity();
    int64_t start = op.getStart(), end = op.getEnd();
    Value n = MaxOp::create(rewriter, op.getLoc(), op.getTotalSteps(), c(1));
    Value s = MaxOp::create(rewriter, op.getLoc(), op.getStep(), c(0));
    s = minOf(g, s, n);
    Value num = g.add(g.mul(n, c(start)), g.mul(s, c(end - start)));
    Value period = g.mul(n, c(gran));
    if (op.getRounding() == optim::Rounding::ceil)
      num = g.add(num, g.sub(period, c(1)));
    Value window = g.mul(g.div(num, period), c(gran));
    rewriter.replaceOp(op,
                       MaxOp::create(rewriter, op.getLoc(), window, c(gran)));
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
    // torch.optim.Adam's order: m.lerp_(g, 1 - b1), v.mul_(b2).addcmul_(g,
    // g, 1 - b2), denom = v.sqrt() / c + eps, p.addcdiv_(m, denom, -s).
    Value m = g.add(op.getM(), g.scale(g.sub(grad, op.getM()), 1.0 - b1));
    Value v =
        g.add(g.scale(op.getV(), b2),
              g.scale(SquareOp::create(rewriter, op.getLoc(), grad), 1.0 - b2));
    // The scalars s = lr / (1 - b1^t) and c = sqrt(1 - b2^t) in lr's type,
    // b^t = exp(t log b).
    Value lr = op.getLr();
    Type ft = scalarType(lr);
    GraphBuilder sg(rewriter, ft, ft);
    sg.setLoc(op.getLoc());
    Value stepSize = lr;
    Value root = SqrtOp::create(rewriter, op.getLoc(), v);
    if (op.getBiasCorrection()) {
      Value t = sg.shift(stepAsFloat(sg, op.getStep(), ft), 1.0);
      auto oneMinusPow = [&](double beta) {
        Value pw =
            ExpOp::create(rewriter, op.getLoc(), sg.scale(t, std::log(beta)));
        return sg.shift(sg.scale(pw, -1.0), 1.0);
      };
      stepSize = sg.div(lr, oneMinusPow(b1));
      Value c = SqrtOp::create(rewriter, op.getLoc(), oneMinusPow(b2));
      root = g.div(root, spread(g, c, v));
    }
    Value denom = g.shift(root, eps);
    Value update = g.mul(g.div(m, denom), spread(g, stepSize, p));
    if (op.getDecoupled() && wd != 0.0)
      p = g.sub(p, g.mul(p, spread(g, sg.scale(lr, wd), p)));
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
    Value o =
        orthogonal.size() == 1 ? orthogonal[0] : g.concat(orthogonal, rank - 2);
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
  LowerNewtonSchulz(MLIRContext *ctx, bool epilogues)
      : OpRewritePattern(ctx), epilogues(epilogues) {}
  /// Scale-adds as GEMM epilogues (gpt.matmul_add), else f32 sums of
  /// gpt.matmul results.
  bool epilogues;
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
      Value nrm =
          SqrtOp::create(rewriter, loc, g.reduce(ReduceKind::sum, sq, matDims));
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

    // The scale-adds are the GEMMs' epilogues (gpt.matmul_add): alpha and
    // beta apply in f32 to the f32 sums, rounded to the compute type once;
    // in bf16 the coefficients themselves would round (3.4445 to 3.4375,
    // -4.775 to -4.78125), a bias of the whole iteration rather than
    // rounding noise. A sum outside a GEMM is formed in f32 for the same
    // reason (one kernel after fusion).
    Type sumType =
        ct.getIntOrFloatBitWidth() < 32 ? Type(rewriter.getF32Type()) : ct;
    auto sum = [&](ArrayRef<std::pair<Value, double>> terms) {
      Value acc;
      for (auto [v, coef] : terms) {
        Value t = g.cast(v, sumType);
        if (coef != 1.0)
          t = g.scale(t, coef);
        acc = acc ? g.add(acc, t) : t;
      }
      return g.cast(acc, ct);
    };
    ArrayRef<double> coef = op.getCoefficients();
    double a = coef[0], b = coef[1], c = coef[2];
    for (uint64_t i = 0; i < op.getSteps(); ++i) {
      // A = X X^T (a Gram product: the runtime computes one triangle)
      Value gram = g.matmul(x, x, false, true);
      // alpha l op(r) + beta addend, in one GEMM or as a sum.
      auto gemm = [&](Value l, Value r, bool transposeR, double alpha,
                      Value addend, double beta) {
        if (epilogues)
          return g.matmulAdd(l, r, false, transposeR, alpha, addend, beta);
        return sum(
            {{addend, beta}, {g.matmul(l, r, false, transposeR), alpha}});
      };
      if (op.getForm() == optim::NSForm::polynomial_then_apply) {
        // B = b A + c A A; X = a X + B X. A is symmetric (bit for bit
        // where the runtime mirrors a Gram product's triangle, as on the
        // CPU), so A A is written A A^T: a Gram product too, one triangle
        // again (b A, a symmetric C, its epilogue), with the same bits on
        // kernels that sum each element in k order.
        Value poly = gemm(gram, gram, true, c, gram, b);
        x = gemm(poly, x, false, 1.0, x, a);
      } else {
        // B = A X; X = a X + b B + c A B
        Value bx = g.matmul(gram, x, false, false);
        if (epilogues)
          x = g.matmulAdd(gram, bx, false, false, c, sum({{x, a}, {bx, b}}),
                          1.0);
        else
          x = sum({{x, a}, {bx, b}, {g.matmul(gram, bx, false, false), c}});
      }
    }
    if (transposed)
      x = g.transpose(x, swapLast);
    rewriter.replaceOp(op, g.cast(x, inElt));
    return success();
  }
};

/// The precision the SVD backend computes in: f64 for f64, else f32.
Type svdWorkType(Type elt) {
  return elt.isF64() ? elt : Float32Type::get(elt.getContext());
}

/// The runtime function that orthogonalises a batch of `work` matrices.
std::string svdCalleeName(Type work) {
  return work.isF64() ? "gptc_svd_orthogonalize_f64"
                      : "gptc_svd_orthogonalize_f32";
}

/// memref<shape x work> with a fully dynamic strided layout.
MemRefType stridedMemRef(ArrayRef<int64_t> shape, Type work) {
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  return MemRefType::get(
      shape, work,
      StridedLayoutAttr::get(work.getContext(), ShapedType::kDynamic, strides));
}

/// (in, out) -> (): both memref<?x?x?xwork, strided<[?, ?, ?], offset: ?>>,
/// [batch, rows, cols].
FunctionType svdCalleeType(Type work) {
  SmallVector<int64_t> dyn(3, ShapedType::kDynamic);
  MemRefType m = stridedMemRef(dyn, work);
  return FunctionType::get(work.getContext(), {m, m}, {});
}

// optim.svd_orthogonalize => x as a [batch, rows, cols] buffer in f32 (f64
// for f64), the runtime's U V^T into a new buffer, back to x's shape and
// type. The callee must be declared (LowerOptimPass does it).
struct LowerSVDOrthogonalize : OpRewritePattern<optim::SVDOrthogonalizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(optim::SVDOrthogonalizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Type work = svdWorkType(type.getElementType());
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, rewriter.getStringAttr(svdCalleeName(work)));
    if (!callee)
      return rewriter.notifyMatchFailure(op,
                                         "the runtime call is not declared");
    GraphBuilder g(rewriter, work, work);
    g.setLoc(loc);
    int64_t rank = type.getRank();
    int64_t batch = 1;
    for (int64_t d : type.getShape().drop_back(2))
      batch *= d;
    SmallVector<int64_t> shape3 = {batch, type.getDimSize(rank - 2),
                                   type.getDimSize(rank - 1)};
    Value x = g.reshape(g.cast(op.getInput(), work), shape3);
    Value in = bufferization::ToBufferOp::create(
        rewriter, loc, stridedMemRef(shape3, work), x, /*read_only=*/true);
    auto outType = MemRefType::get(shape3, work);
    Value out = memref::AllocOp::create(rewriter, loc, outType);
    auto dynType = cast<MemRefType>(svdCalleeType(work).getInput(0));
    func::CallOp::create(
        rewriter, loc, callee,
        ValueRange{memref::CastOp::create(rewriter, loc, dynType, in),
                   memref::CastOp::create(rewriter, loc, dynType, out)});
    Value o = bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get(shape3, work), out,
        /*restrict=*/true, /*writable=*/true);
    o = g.cast(g.reshape(o, type.getShape()), type.getElementType());
    rewriter.replaceOp(op, o);
    return success();
  }
};

/// The ops of `root` that lower to the SVD runtime call, with their work
/// types: optim.svd_orthogonalize and optim.muon with the SVD backend. Fails
/// (with an error) on a dynamic shape.
LogicalResult
collectSvdUses(Operation *root,
               SmallVectorImpl<std::pair<Operation *, Type>> &uses) {
  WalkResult r = root->walk([&](Operation *op) {
    Value input;
    if (auto svd = dyn_cast<optim::SVDOrthogonalizeOp>(op))
      input = svd.getInput();
    else if (auto muon = dyn_cast<optim::MuonOp>(op))
      if (muon.getBackend() == optim::OrthoBackend::svd)
        input = muon.getParam();
    if (!input)
      return WalkResult::advance();
    auto t = cast<RankedTensorType>(input.getType());
    if (!t.hasStaticShape()) {
      op->emitOpError("the SVD backend needs a static shape, got ") << t;
      return WalkResult::interrupt();
    }
    uses.push_back({op, svdWorkType(t.getElementType())});
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Checks that `fn`, the declaration of the runtime call for `work`, has
/// its type.
LogicalResult checkSvdCallee(func::FuncOp fn, Type work) {
  FunctionType type = svdCalleeType(work);
  if (fn.getFunctionType() != type)
    return fn.emitOpError("is the SVD runtime call and must have type ")
           << type;
  return success();
}

/// Declares the runtime call for `work` in `module` at `b`'s insertion point
/// unless it is there, or checks the declaration that is there.
LogicalResult declareSvdCallee(OpBuilder &b, ModuleOp module, Type work) {
  std::string name = svdCalleeName(work);
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return checkSvdCallee(fn, work);
  auto fn = func::FuncOp::create(b, module.getLoc(), name, svdCalleeType(work));
  fn.setPrivate();
  // The runtime takes the memref descriptors by pointer (gptrt.h).
  fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return success();
}

/// The declarations the SVD backend needs: added when the pass runs on the
/// module; run on a function, the pass may not touch the module, so they
/// must exist already.
LogicalResult prepareSvdCallees(Operation *root) {
  SmallVector<std::pair<Operation *, Type>> uses;
  if (failed(collectSvdUses(root, uses)))
    return failure();
  if (auto module = dyn_cast<ModuleOp>(root)) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    for (auto [op, work] : uses)
      if (failed(declareSvdCallee(b, module, work)))
        return failure();
    return success();
  }
  for (auto [op, work] : uses) {
    std::string name = svdCalleeName(work);
    auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, StringAttr::get(op->getContext(), name));
    if (!fn)
      return op->emitOpError("lowers to a call of @")
             << name
             << ", which is not declared: run gptc-lower-optim on the module";
    if (failed(checkSvdCallee(fn, work)))
      return failure();
  }
  return success();
}

struct LowerOptimPass : gptc::impl::LowerOptimPassBase<LowerOptimPass> {
  using LowerOptimPassBase::LowerOptimPassBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (failed(prepareSvdCallees(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    patterns.add<LowerLRSchedule, LowerMomentumWarmup, LowerWindowSchedule,
                 LowerAdam, LowerMuon, LowerSVDOrthogonalize>(ctx);
    if (!keepNewtonSchulz)
      patterns.add<LowerNewtonSchulz>(ctx, gemmEpilogues);
    ConversionTarget target(*ctx);
    target.addLegalDialect<gpt::GPTDialect, func::FuncDialect,
                           bufferization::BufferizationDialect,
                           memref::MemRefDialect>();
    target.addIllegalDialect<optim::OptimDialect>();
    if (keepNewtonSchulz)
      target.addLegalOp<optim::NewtonSchulzOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
