//===- FusedToLinalg.cpp - gpt.rms_norm, gpt.attention(_grad) -> kernels --===//
//
// gpt.rms_norm   => a row reduction (sum of squares) and one elementwise
//                   kernel (x * rsqrt(ss / n + eps) * w), the residual add
//                   feeding both
// gpt.rms_norm_grad => one reduction with two results (sum x^2 and
//                   sum gw x per row) and one elementwise kernel
// gpt.attention, => the flash-attention loop nests of AttentionKernels.h on
// attention_grad    buffers: operands read through bufferization.to_buffer,
//                   results written to fresh buffers and returned through
//                   bufferization.to_tensor, so that one-shot bufferization
//                   sees ordinary tensor values around them
// gpt.cross_entropy, => the row kernels of CrossEntropyKernels.h, on
// cross_entropy_grad    buffers the same way, leading dimensions collapsed
//
//===----------------------------------------------------------------------===//

#include "passes/GPU/AttentionTensorCores.h"
#include "passes/Lowering/AttentionKernels.h"
#include "passes/Lowering/CrossEntropyKernels.h"
#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Lowering/LowerToLinalg.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

/// What both RMSNorm lowerings start from: the normalised tensor x (input
/// plus residual), the row type and the maps of a row-wise kernel.
struct RowFrame {
  Value x;
  RankedTensorType type, rowType;
  int64_t rank = 0, n = 0;
  AffineMap identity, rowMap, lastMap;
  SmallVector<utils::IteratorType> rowReduction;
};

RowFrame rowFrame(OpBuilder &b, Location loc, Value input, Value residual) {
  RowFrame f;
  f.type = cast<RankedTensorType>(input.getType());
  f.rank = f.type.getRank();
  f.n = f.type.getShape().back();
  f.x = input;
  if (residual)
    f.x = parallelGeneric(b, loc, f.type, ValueRange{input, residual}, {},
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return Value(
                                arith::AddFOp::create(nb, l, a[0], a[1]));
                          });
  f.rowType = RankedTensorType::get(f.type.getShape().drop_back(),
                                    f.type.getElementType());
  f.identity = b.getMultiDimIdentityMap(f.rank);
  f.rowMap = f.identity.dropResult(f.rank - 1);
  f.lastMap =
      AffineMap::get(f.rank, 0, b.getAffineDimExpr(f.rank - 1), b.getContext());
  f.rowReduction.assign(f.rank, utils::IteratorType::parallel);
  f.rowReduction.back() = utils::IteratorType::reduction;
  return f;
}

struct RMSNormToLinalg : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RowFrame f = rowFrame(rewriter, loc, op.getInput(), op.getResidual());
    RankedTensorType type = f.type, rowType = f.rowType;
    Value x = f.x;
    int64_t n = f.n;
    AffineMap identity = f.identity, rowMap = f.rowMap;
    // ss[rows] = sum over the last dimension of x^2.
    Value ss = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{rowType}, ValueRange{x},
                   ValueRange{filled(rewriter, loc, rowType, 0.0)},
                   ArrayRef<AffineMap>{identity, rowMap}, f.rowReduction,
                   [](OpBuilder &b, Location l, ValueRange a) {
                     Value sq = arith::MulFOp::create(b, l, a[0], a[0]);
                     linalg::YieldOp::create(
                         b, l, Value(arith::AddFOp::create(b, l, sq, a[1])));
                   })
                   .getResult(0);
    SmallVector<Value> inputs = {x, ss};
    SmallVector<AffineMap> maps = {identity, rowMap};
    if (Value w = op.getWeight()) {
      inputs.push_back(w);
      maps.push_back(f.lastMap);
    }
    double eps = op.getEps().convertToDouble();
    double invN = 1.0 / static_cast<double>(n);
    Value y = parallelGeneric(rewriter, loc, type, inputs, maps,
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                Type f = a[0].getType();
                                Value ms = arith::MulFOp::create(
                                    b, l, a[1], scalarConstant(b, l, f, invN));
                                Value shifted = arith::AddFOp::create(
                                    b, l, ms, scalarConstant(b, l, f, eps));
                                Value r = math::RsqrtOp::create(b, l, shifted);
                                Value yv = arith::MulFOp::create(b, l, a[0], r);
                                if (a.size() > 2)
                                  yv = arith::MulFOp::create(b, l, yv, a[2]);
                                return yv;
                              });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// gpt.rms_norm_grad => one reduction with two outputs (sum x^2, sum gw x
/// per row) and one elementwise kernel.
struct RMSNormGradToLinalg : OpRewritePattern<RMSNormGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RowFrame f = rowFrame(rewriter, loc, op.getInput(), op.getResidual());
    RankedTensorType type = f.type, rowType = f.rowType;
    Value x = f.x;
    int64_t n = f.n;
    AffineMap identity = f.identity, rowMap = f.rowMap, lastMap = f.lastMap;
    SmallVector<Value> inputs = {x, op.getGrad()};
    SmallVector<AffineMap> inMaps = {identity, identity};
    if (Value w = op.getWeight()) {
      inputs.push_back(w);
      inMaps.push_back(lastMap);
    }
    bool weighted = static_cast<bool>(op.getWeight());
    SmallVector<AffineMap> maps = inMaps;
    maps.push_back(rowMap);
    maps.push_back(rowMap);
    Value zero = filled(rewriter, loc, rowType, 0.0);
    auto sums = linalg::GenericOp::create(
        rewriter, loc, TypeRange{rowType, rowType}, inputs,
        ValueRange{zero, zero}, maps, f.rowReduction,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value xv = a[0];
          Value gw =
              weighted ? Value(arith::MulFOp::create(b, l, a[1], a[2])) : a[1];
          unsigned acc = weighted ? 3 : 2;
          Value ss = arith::AddFOp::create(b, l, a[acc],
                                           arith::MulFOp::create(b, l, xv, xv));
          Value dot = arith::AddFOp::create(
              b, l, a[acc + 1], arith::MulFOp::create(b, l, gw, xv));
          linalg::YieldOp::create(b, l, ValueRange{ss, dot});
        });
    SmallVector<Value> ins = inputs;
    ins.push_back(sums.getResult(0));
    ins.push_back(sums.getResult(1));
    SmallVector<AffineMap> elMaps = inMaps;
    elMaps.push_back(rowMap);
    elMaps.push_back(rowMap);
    double eps = op.getEps().convertToDouble();
    double invN = 1.0 / static_cast<double>(n);
    Value dx = parallelGeneric(
        rewriter, loc, type, ins, elMaps,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type f = a[0].getType();
          Value xv = a[0];
          Value gw =
              weighted ? Value(arith::MulFOp::create(b, l, a[1], a[2])) : a[1];
          unsigned at = weighted ? 3 : 2;
          Value c = scalarConstant(b, l, f, invN);
          Value ms = arith::MulFOp::create(b, l, a[at], c);
          Value r = math::RsqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, ms, scalarConstant(b, l, f, eps)));
          Value dot = arith::MulFOp::create(b, l, a[at + 1], c);
          Value r3 =
              arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, r, r), r);
          Value corr = arith::MulFOp::create(
              b, l, xv, arith::MulFOp::create(b, l, r3, dot));
          return Value(arith::SubFOp::create(
              b, l, arith::MulFOp::create(b, l, r, gw), corr));
        });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

/// The buffer of a tensor operand, for reading.
Value readBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto t = cast<RankedTensorType>(tensor.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(t.getShape(), t.getElementType()), tensor,
      b.getUnitAttr());
}

/// A fresh buffer for a result of `type`.
Value resultBuffer(OpBuilder &b, Location loc, RankedTensorType type) {
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()));
}

Value asTensor(OpBuilder &b, Location loc, RankedTensorType type, Value m) {
  return bufferization::ToTensorOp::create(b, loc, type, m, /*restrict=*/true,
                                           /*writable=*/true);
}

template <typename OpT>
AttentionProblem problemOf(OpT op, OpBuilder &b, AttentionTiling tiling) {
  RankedTensorType t = op.getQuery().getType();
  AttentionProblem p;
  p.tiling = tiling;
  p.B = t.getDimSize(0), p.H = t.getDimSize(1), p.T = t.getDimSize(2),
  p.D = t.getDimSize(3);
  p.mask = op.getMask();
  p.scale = op.getScale().convertToDouble();
  if (Value tokens = op.getTokens())
    p.tokens = readBuffer(b, op.getLoc(), tokens);
  if (Value window = op.getWindow())
    p.window = readBuffer(b, op.getLoc(), window);
  return p;
}

/// The buffers and key bounds both attention lowerings start from.
struct AttentionInputs {
  AttentionProblem problem;
  Value lo, hi, q, k, v;
};

template <typename OpT>
FailureOr<AttentionInputs> prepareAttention(OpT op, PatternRewriter &rewriter,
                                            AttentionTiling tiling) {
  if (!op.getQuery().getType().hasStaticShape())
    return rewriter.notifyMatchFailure(op, "dynamic shape");
  Location loc = op.getLoc();
  AttentionInputs in;
  in.problem = problemOf(op, rewriter, tiling);
  std::tie(in.lo, in.hi) = emitKeyBounds(rewriter, loc, in.problem);
  in.q = readBuffer(rewriter, loc, op.getQuery());
  in.k = readBuffer(rewriter, loc, op.getKey());
  in.v = readBuffer(rewriter, loc, op.getValue());
  return in;
}

/// `x` rounded to bf16: as a bf16 tensor (`narrow`), or back in its own
/// type.
Value roundedToBf16(OpBuilder &b, Location loc, Value x, bool narrow) {
  auto type = cast<RankedTensorType>(x.getType());
  Type bf16 = b.getBF16Type();
  // A transposed operand (the heads' [B, H, T, D] view of a [B, T, H, D]
  // projection) is rounded straight from the transpose's input: one pass
  // instead of a copy and a pass (the copy goes when nothing else reads
  // it). Result dim i is input dim permutation[i].
  Value source = x;
  SmallVector<AffineMap> maps;
  std::optional<ArrayRef<int64_t>> permutation;
  if (auto t = x.getDefiningOp<gpt::TransposeOp>())
    permutation = t.getPermutation(), source = t.getInput();
  else if (auto t = x.getDefiningOp<linalg::TransposeOp>())
    permutation = t.getPermutation(), source = t.getInput();
  if (permutation) {
    SmallVector<AffineExpr> exprs(permutation->size());
    for (auto [i, p] : llvm::enumerate(*permutation))
      exprs[size_t(p)] = b.getAffineDimExpr(unsigned(i));
    maps.push_back(
        AffineMap::get(unsigned(exprs.size()), 0, exprs, b.getContext()));
  }
  return parallelGeneric(
      b, loc, narrow ? type.clone(bf16) : type, source, maps,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value r = arith::TruncFOp::create(nb, nloc, bf16, args[0]);
        if (narrow)
          return r;
        return arith::ExtFOp::create(nb, nloc, type.getElementType(), r);
      });
}

/// Whether `op` (attention or its gradient) runs on the tensor-core
/// kernels: bf16 products of f32 tensors, a GPU build that allows them,
/// and a head dimension they fit.
template <typename OpT>
bool onTensorCores(OpT op, AttentionTiling tiling, const AttentionProblem &p) {
  return op.getProducts() && tiling.tensorCores &&
         op.getQuery().getType().getElementType().isF32() &&
         tensorCoreAttentionFits(p);
}

struct AttentionToLoops : OpRewritePattern<AttentionOp> {
  AttentionToLoops(MLIRContext *ctx, AttentionTiling tiling)
      : OpRewritePattern(ctx), tiling(tiling) {}
  AttentionTiling tiling;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<AttentionInputs> in = prepareAttention(op, rewriter, tiling);
    if (failed(in))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getQuery().getType();
    RankedTensorType rowType = op.getLse().getType();
    AttentionOutput result{resultBuffer(rewriter, loc, type),
                           resultBuffer(rewriter, loc, rowType)};
    // bf16 products: q, k, v rounded once; on the GPU in bf16 for the
    // tensor cores, elsewhere back in f32 with the probabilities rounded
    // in the kernel.
    const bool tensorCores = onTensorCores(op, tiling, in->problem);
    if (op.getProducts()) {
      auto rounded = [&](Value x) {
        return readBuffer(rewriter, loc,
                          roundedToBf16(rewriter, loc, x, tensorCores));
      };
      in->q = rounded(op.getQuery());
      in->k = rounded(op.getKey());
      in->v = rounded(op.getValue());
      in->problem.bf16Probabilities = true;
    }
    if (tensorCores)
      emitTensorCoreAttentionForward(rewriter, loc, in->problem, in->lo, in->hi,
                                     in->q, in->k, in->v, result);
    else
      emitAttentionForward(rewriter, loc, in->problem, in->lo, in->hi, in->q,
                           in->k, in->v, result);
    rewriter.replaceOp(op, {asTensor(rewriter, loc, type, result.out),
                            asTensor(rewriter, loc, rowType, result.lse)});
    return success();
  }
};

struct AttentionGradToLoops : OpRewritePattern<AttentionGradOp> {
  AttentionGradToLoops(MLIRContext *ctx, AttentionTiling tiling)
      : OpRewritePattern(ctx), tiling(tiling) {}
  AttentionTiling tiling;
  LogicalResult matchAndRewrite(AttentionGradOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<AttentionInputs> in = prepareAttention(op, rewriter, tiling);
    if (failed(in))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getQuery().getType();
    Value dq = resultBuffer(rewriter, loc, type);
    Value dk = resultBuffer(rewriter, loc, type);
    Value dv = resultBuffer(rewriter, loc, type);
    AttentionOutput forward{readBuffer(rewriter, loc, op.getOut()),
                            readBuffer(rewriter, loc, op.getLse())};
    Value dout = readBuffer(rewriter, loc, op.getOutGrad());
    // bf16 products: q, k, v and dout rounded once, back in f32 for the
    // scalar kernels; on the GPU both kernels take them in bf16 on tensor
    // cores.
    const bool tensorCores = onTensorCores(op, tiling, in->problem);
    if (op.getProducts()) {
      auto rounded = [&](Value x, bool narrow) {
        return readBuffer(rewriter, loc,
                          roundedToBf16(rewriter, loc, x, narrow));
      };
      if (tensorCores) {
        Value delta = memref::AllocOp::create(
            rewriter, loc, cast<MemRefType>(forward.lse.getType()));
        Value q16 = rounded(op.getQuery(), true);
        Value k16 = rounded(op.getKey(), true);
        Value v16 = rounded(op.getValue(), true);
        Value dout16 = rounded(op.getOutGrad(), true);
        emitTensorCoreQueryGrad(rewriter, loc, in->problem, in->lo, in->hi, q16,
                                k16, v16, forward, dout16, dq, delta);
        emitTensorCoreKeyValueGrad(rewriter, loc, in->problem, in->lo, in->hi,
                                   q16, k16, v16, dout16, forward.lse, delta,
                                   dk, dv);
      } else {
        in->q = rounded(op.getQuery(), false);
        in->k = rounded(op.getKey(), false);
        in->v = rounded(op.getValue(), false);
        dout = rounded(op.getOutGrad(), false);
        in->problem.bf16Probabilities = true;
      }
    }
    if (!tensorCores)
      emitAttentionBackward(rewriter, loc, in->problem, in->lo, in->hi, in->q,
                            in->k, in->v, forward, dout, dq, dk, dv);
    rewriter.replaceOp(op, {asTensor(rewriter, loc, type, dq),
                            asTensor(rewriter, loc, type, dk),
                            asTensor(rewriter, loc, type, dv)});
    return success();
  }
};

/// `m` with its leading dimensions collapsed into one: [N, V] for logits
/// ([N] for per-position values with `keepLast` false).
Value asRows(OpBuilder &b, Location loc, Value m, bool keepLast) {
  auto type = cast<MemRefType>(m.getType());
  int64_t rank = type.getRank();
  int64_t lead = keepLast ? rank - 1 : rank;
  if (lead <= 1)
    return m;
  ReassociationIndices leading;
  for (int64_t i = 0; i < lead; ++i)
    leading.push_back(i);
  SmallVector<ReassociationIndices> groups{leading};
  if (keepLast)
    groups.push_back({rank - 1});
  return memref::CollapseShapeOp::create(b, loc, m, groups);
}

/// Threads of the block that works on a row of logits (GPU kernels).
constexpr int64_t kCrossEntropyThreads = 256;

/// The logits and targets of a cross-entropy op as rows, for `gpuKernels`
/// or the CPU.
template <typename OpTy>
CrossEntropyRows crossEntropyRows(OpBuilder &b, OpTy op, bool gpuKernels) {
  Location loc = op.getLoc();
  CrossEntropyRows rows;
  rows.logits =
      asRows(b, loc, readBuffer(b, loc, op.getLogits()), /*keepLast=*/true);
  rows.targets =
      asRows(b, loc, readBuffer(b, loc, op.getTargets()), /*keepLast=*/false);
  rows.softcap = op.getSoftcapAttr();
  rows.threads = gpuKernels ? kCrossEntropyThreads : 0;
  return rows;
}

/// The cross-entropy whose row statistics `grad` can reuse: one of the same
/// logits, targets and softcap before it in its block (the forward of the
/// step that `grad` differentiates).
CrossEntropyOp forwardOf(CrossEntropyGradOp grad) {
  for (Operation *user : grad.getLogits().getUsers()) {
    auto fwd = dyn_cast<CrossEntropyOp>(user);
    if (fwd && fwd.getTargets() == grad.getTargets() &&
        fwd.getSoftcapAttr() == grad.getSoftcapAttr() &&
        fwd->getBlock() == grad->getBlock() && fwd->isBeforeInBlock(grad))
      return fwd;
  }
  return {};
}

/// The gradients that reuse `op`'s row statistics.
SmallVector<CrossEntropyGradOp> gradientsOf(CrossEntropyOp op) {
  SmallVector<CrossEntropyGradOp> grads;
  for (Operation *user : op.getLogits().getUsers())
    if (auto grad = dyn_cast<CrossEntropyGradOp>(user))
      if (forwardOf(grad) == op)
        grads.push_back(grad);
  return grads;
}

/// `op` => its row kernel, at `op`; with `stats` (the forward's row max and
/// sum) instead of two passes that compute them again.
void lowerCrossEntropyGrad(PatternRewriter &rewriter, CrossEntropyGradOp op,
                           bool gpuKernels, Value stats) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value dl = resultBuffer(rewriter, loc, type);
  CrossEntropyRows rows = crossEntropyRows(rewriter, op, gpuKernels);
  emitCrossEntropyBackward(rewriter, loc, rows,
                           asRows(rewriter, loc,
                                  readBuffer(rewriter, loc, op.getGrad()),
                                  /*keepLast=*/false),
                           asRows(rewriter, loc, dl, /*keepLast=*/true),
                           stats ? readBuffer(rewriter, loc, stats) : Value());
  rewriter.replaceOp(op, asTensor(rewriter, loc, type, dl));
}

/// gpt.cross_entropy, and with it the gradients of the same rows: the
/// forward keeps each row's max and sum for them, so that each reads its
/// logits once instead of three times (the same bits: the same kernel code
/// computed them).
struct CrossEntropyToLoops : OpRewritePattern<CrossEntropyOp> {
  CrossEntropyToLoops(MLIRContext *ctx, bool gpuKernels)
      : OpRewritePattern(ctx), gpuKernels(gpuKernels) {}
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getLogits().getType().hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    SmallVector<CrossEntropyGradOp> grads = gradientsOf(op);
    Value nll = resultBuffer(rewriter, loc, type);
    Value statsBuffer;
    RankedTensorType statsType;
    if (!grads.empty()) {
      statsType = RankedTensorType::get({type.getNumElements(), 2},
                                        type.getElementType());
      statsBuffer = resultBuffer(rewriter, loc, statsType);
    }
    CrossEntropyRows rows = crossEntropyRows(rewriter, op, gpuKernels);
    emitCrossEntropyForward(rewriter, loc, rows,
                            asRows(rewriter, loc, nll, /*keepLast=*/false),
                            statsBuffer);
    Value stats =
        statsBuffer ? asTensor(rewriter, loc, statsType, statsBuffer) : Value();
    rewriter.replaceOp(op, asTensor(rewriter, loc, type, nll));
    for (CrossEntropyGradOp grad : grads)
      lowerCrossEntropyGrad(rewriter, grad, gpuKernels, stats);
    return success();
  }
  bool gpuKernels;
};

/// A gpt.cross_entropy_grad without a forward of the same rows before it.
struct CrossEntropyGradToLoops : OpRewritePattern<CrossEntropyGradOp> {
  CrossEntropyGradToLoops(MLIRContext *ctx, bool gpuKernels)
      : OpRewritePattern(ctx), gpuKernels(gpuKernels) {}
  LogicalResult matchAndRewrite(CrossEntropyGradOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getLogits().getType().hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    if (forwardOf(op))
      return rewriter.notifyMatchFailure(op, "lowered with its forward");
    lowerCrossEntropyGrad(rewriter, op, gpuKernels, Value());
    return success();
  }
  bool gpuKernels;
};

} // namespace

void populateFusedToLinalgPatterns(RewritePatternSet &patterns, bool gpuKernels,
                                   bool tensorCores) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<RMSNormToLinalg, RMSNormGradToLinalg>(ctx);
  patterns.add<CrossEntropyToLoops, CrossEntropyGradToLoops>(ctx, gpuKernels);
  AttentionTiling tiling =
      gpuKernels ? AttentionTiling::gpu() : AttentionTiling::cpu();
  tiling.tensorCores = gpuKernels && tensorCores;
  patterns.add<AttentionToLoops, AttentionGradToLoops>(ctx, tiling);
}

} // namespace gptc::lowering
