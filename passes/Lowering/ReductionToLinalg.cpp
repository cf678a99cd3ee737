//===- ReductionToLinalg.cpp - gpt reductions, GEMMs, generators -> linalg ===//
//
// gpt.reduce    => linalg.generic with reduction iterators (+ scale for mean)
// gpt.matmul    => linalg.matmul / linalg.batch_matmul with transposing
//                  indexing maps (batch dims collapsed; a shared rank-2 rhs
//                  folds the batch into M). gptc-gemm-to-blas later turns
//                  these into library calls.
// gpt.iota      => linalg.generic over linalg.index
// gpt.constant  => arith.constant
// gpt.cumsum    => scf.for over the scanned dimension
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Lowering/LowerToLinalg.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

/// gpt.reduce => linalg.generic (reduction) [+ linalg.generic (x / n)]
struct ReduceToGeneric : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType outType = op.getResult().getType();
    int64_t rank = inType.getRank();
    SmallVector<bool> reduced(rank, false);
    int64_t count = 1;
    for (int64_t d : op.getDims()) {
      reduced[d] = true;
      count *= inType.getDimSize(d);
    }
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t i = 0; i < rank; ++i) {
      outExprs.push_back(reduced[i] ? rewriter.getAffineConstantExpr(0)
                                    : rewriter.getAffineDimExpr(i));
      iterators.push_back(reduced[i] ? utils::IteratorType::reduction
                                     : utils::IteratorType::parallel);
    }
    bool isMax = op.getKind() == ReduceKind::max;
    double initValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value init = filled(rewriter, loc, outType, initValue);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, outExprs, rewriter.getContext())};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{op.getInput()},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value r =
              isMax ? Value(arith::MaximumFOp::create(b, l, args[0], args[1]))
                    : Value(arith::AddFOp::create(b, l, args[0], args[1]));
          linalg::YieldOp::create(b, l, r);
        });
    Value result = generic.getResult(0);
    if (op.getKind() == ReduceKind::mean) {
      double inv = 1.0 / static_cast<double>(count);
      result = parallelGeneric(
          rewriter, loc, outType, ValueRange{result}, {},
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value c = scalarConstant(b, l, args[0].getType(), inv);
            return Value(arith::MulFOp::create(b, l, args[0], c));
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Collapses all leading dims of `x` but the last `keep` into one.
Value collapseLeading(OpBuilder &b, Location loc, Value x, int64_t keep) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  if (rank == keep + 1)
    return x;
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t i = 0; i < rank - keep; ++i)
    groups[0].push_back(i);
  for (int64_t i = rank - keep; i < rank; ++i)
    groups.push_back({i});
  return tensor::CollapseShapeOp::create(b, loc, x, groups);
}

/// `x` in f32 when it is narrower (a bf16 GEMM's epilogue is f32).
Value widened(OpBuilder &b, Location loc, Value x) {
  auto ft = cast<FloatType>(x.getType());
  if (ft.getWidth() >= 32)
    return x;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
}

/// `x` rounded back to `type` when it was widened.
Value narrowed(OpBuilder &b, Location loc, Value x, Type type) {
  if (x.getType() == type)
    return x;
  return arith::TruncFOp::create(b, loc, type, x);
}

/// A GEMM's accumulation into `init`: linalg.matmul / batch_matmul with the
/// given maps, or, when alpha != 1, a linalg.generic over the same maps
/// whose body is out + (a * b) * alpha, alpha applied in f32 (at least):
/// gptc-gemm-to-blas makes either a runtime GEMM call.
Value contraction(PatternRewriter &rewriter, Location loc,
                  RankedTensorType flatOut, Value lhs, Value rhs, Value init,
                  ArrayRef<AffineMap> maps, double alpha) {
  bool batched = flatOut.getRank() == 3;
  if (alpha == 1.0) {
    linalg::LinalgOp mm;
    if (batched)
      mm =
          linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{flatOut},
                                        ValueRange{lhs, rhs}, ValueRange{init});
    else
      mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{flatOut},
                                    ValueRange{lhs, rhs}, ValueRange{init});
    mm->setAttr("indexing_maps", rewriter.getAffineMapArrayAttr(maps));
    return mm->getResult(0);
  }
  SmallVector<utils::IteratorType> iterators(batched ? 3 : 2,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{flatOut}, ValueRange{lhs, rhs}, ValueRange{init},
      maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Type elt = args[2].getType();
        Value x = widened(b, l, args[0]);
        Value y = widened(b, l, args[1]);
        Value prod = arith::MulFOp::create(b, l, x, y);
        Value scaled = arith::MulFOp::create(
            b, l, prod, scalarConstant(b, l, prod.getType(), alpha));
        Value acc = widened(b, l, args[2]);
        Value sum = arith::AddFOp::create(b, l, acc, scaled);
        linalg::YieldOp::create(b, l, narrowed(b, l, sum, elt));
      });
  return generic.getResult(0);
}

/// alpha op(lhs) op(rhs) + beta addend (no addend: + 0) as linalg
/// (transposes as maps; leading batch dimensions folded into M for a shared
/// rank-2 rhs, else into one batch dimension). The GEMM accumulates into a
/// zero fill (beta 0), the addend itself (beta 1) or a scaled copy of it,
/// all of which gptc-gemm-to-blas folds into the call's epilogue.
FailureOr<Value> emitMatmul(PatternRewriter &rewriter, Operation *op, Value lhs,
                            Value rhs, bool ta, bool tb,
                            RankedTensorType outType, double alpha,
                            Value addend, double beta) {
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto rt = cast<RankedTensorType>(rhs.getType());
  auto lt = cast<RankedTensorType>(lhs.getType());
  RankedTensorType flatOut;
  SmallVector<AffineMap> maps;
  int64_t keep;
  if (rt.getRank() == 2) {
    // Plain or shared-rhs GEMM: fold the batch into M.
    if (lt.getRank() > 2 && ta)
      return rewriter.notifyMatchFailure(op, "transposed batched lhs with "
                                             "a shared rhs");
    keep = 1;
    lhs = collapseLeading(rewriter, loc, lhs, keep);
    auto lt2 = cast<RankedTensorType>(lhs.getType());
    int64_t m = lt2.getDimSize(ta ? 1 : 0);
    int64_t n = rt.getDimSize(tb ? 0 : 1);
    flatOut = RankedTensorType::get({m, n}, outType.getElementType());
    AffineExpr dm, dn, dk;
    bindDims(ctx, dm, dn, dk);
    maps = {AffineMap::get(3, 0,
                           ta ? ArrayRef<AffineExpr>{dk, dm}
                              : ArrayRef<AffineExpr>{dm, dk},
                           ctx),
            AffineMap::get(3, 0,
                           tb ? ArrayRef<AffineExpr>{dn, dk}
                              : ArrayRef<AffineExpr>{dk, dn},
                           ctx),
            AffineMap::get(3, 0, {dm, dn}, ctx)};
  } else {
    keep = 2;
    lhs = collapseLeading(rewriter, loc, lhs, keep);
    rhs = collapseLeading(rewriter, loc, rhs, keep);
    auto l3 = cast<RankedTensorType>(lhs.getType());
    auto r3 = cast<RankedTensorType>(rhs.getType());
    int64_t batch = l3.getDimSize(0);
    int64_t m = l3.getDimSize(ta ? 2 : 1);
    int64_t n = r3.getDimSize(tb ? 1 : 2);
    flatOut = RankedTensorType::get({batch, m, n}, outType.getElementType());
    AffineExpr db, dm, dn, dk;
    bindDims(ctx, db, dm, dn, dk);
    maps = {AffineMap::get(4, 0,
                           ta ? ArrayRef<AffineExpr>{db, dk, dm}
                              : ArrayRef<AffineExpr>{db, dm, dk},
                           ctx),
            AffineMap::get(4, 0,
                           tb ? ArrayRef<AffineExpr>{db, dn, dk}
                              : ArrayRef<AffineExpr>{db, dk, dn},
                           ctx),
            AffineMap::get(4, 0, {db, dm, dn}, ctx)};
  }
  Value init;
  if (!addend || beta == 0.0) {
    init = filled(rewriter, loc, flatOut, 0.0);
  } else {
    init = collapseLeading(rewriter, loc, addend, keep);
    if (beta != 1.0)
      init = parallelGeneric(rewriter, loc, flatOut, ValueRange{init}, {},
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               Value x = widened(b, l, args[0]);
                               Value s = arith::MulFOp::create(
                                   b, l, x,
                                   scalarConstant(b, l, x.getType(), beta));
                               return narrowed(b, l, s, args[0].getType());
                             });
  }
  Value result =
      contraction(rewriter, loc, flatOut, lhs, rhs, init, maps, alpha);
  return reshapeTensor(rewriter, loc, result, outType);
}

/// gpt.matmul => linalg.matmul / linalg.batch_matmul (transposes as maps).
struct MatmulToLinalg : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> r =
        emitMatmul(rewriter, op, op.getLhs(), op.getRhs(), op.getTransposeLhs(),
                   op.getTransposeRhs(), op.getType(),
                   /*alpha=*/1.0, /*addend=*/Value(), /*beta=*/0.0);
    if (failed(r))
      return failure();
    rewriter.replaceOp(op, *r);
    return success();
  }
};

/// gpt.matmul_add => the GEMM with its epilogue (see emitMatmul).
struct MatmulAddToLinalg : OpRewritePattern<MatmulAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulAddOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> r = emitMatmul(
        rewriter, op, op.getLhs(), op.getRhs(), op.getTransposeLhs(),
        op.getTransposeRhs(), op.getType(), op.getAlpha().convertToDouble(),
        op.getAddend(), op.getBeta().convertToDouble());
    if (failed(r))
      return failure();
    rewriter.replaceOp(op, *r);
    return success();
  }
};

/// gpt.iota => linalg.generic { index_cast(linalg.index dim) }
struct IotaToGeneric : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    int64_t dim = op.getDim();
    Value r = parallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value idx = linalg::IndexOp::create(b, l, dim);
          Value i64 = arith::IndexCastOp::create(b, l, b.getI64Type(), idx);
          Type elt = type.getElementType();
          if (isa<FloatType>(elt))
            return Value(arith::SIToFPOp::create(b, l, elt, i64));
          if (elt.isInteger(64))
            return i64;
          return Value(arith::TruncIOp::create(b, l, elt, i64));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// gpt.constant => arith.constant
struct ConstantToArith : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// gpt.cumsum => scf.for over the scanned dimension carrying the running
/// sum of the slices.
struct CumsumToLoop : OpRewritePattern<CumsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    int64_t dim = op.getDim(), rank = type.getRank();
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape[dim] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, type.getElementType());
    Value acc0 = filled(rewriter, loc, sliceType, 0.0);
    Value out0 = emptyLike(rewriter, loc, type);
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub =
        arith::ConstantIndexOp::create(rewriter, loc, type.getDimSize(dim));
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{acc0, out0},
        [&](OpBuilder &b, Location l, Value iv, ValueRange iter) {
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[dim] = iv;
          SmallVector<OpFoldResult> sizes;
          for (int64_t s : sliceShape)
            sizes.push_back(b.getIndexAttr(s));
          SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
          Value slice = tensor::ExtractSliceOp::create(
              b, l, sliceType, op.getInput(), offsets, sizes, strides);
          // acc += slice, in place (the loop carries acc's buffer).
          AffineMap id = b.getMultiDimIdentityMap(rank);
          SmallVector<utils::IteratorType> par(rank,
                                               utils::IteratorType::parallel);
          Value sum =
              linalg::GenericOp::create(
                  b, l, TypeRange{sliceType}, ValueRange{slice},
                  ValueRange{iter[0]}, ArrayRef<AffineMap>{id, id}, par,
                  [&](OpBuilder &bb, Location ll, ValueRange a) {
                    Value r =
                        isa<FloatType>(a[0].getType())
                            ? Value(arith::AddFOp::create(bb, ll, a[0], a[1]))
                            : Value(arith::AddIOp::create(bb, ll, a[0], a[1]));
                    linalg::YieldOp::create(bb, ll, r);
                  })
                  .getResult(0);
          Value out = tensor::InsertSliceOp::create(b, l, sum, iter[1], offsets,
                                                    sizes, strides);
          scf::YieldOp::create(b, l, ValueRange{sum, out});
        });
    rewriter.replaceOp(op, loop.getResult(1));
    return success();
  }
};

} // namespace

void populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceToGeneric, MatmulToLinalg, MatmulAddToLinalg,
               IotaToGeneric, ConstantToArith, CumsumToLoop>(
      patterns.getContext());
}

} // namespace gptc::lowering
