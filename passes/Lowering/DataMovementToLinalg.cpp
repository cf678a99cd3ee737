//===- DataMovementToLinalg.cpp - gpt gathers and shape ops -> linalg/tensor
//===//
//
// gpt.embedding / gather_last / scatter_last => linalg.generic reading the
//     index operand and extracting from the table (parallel kernels)
// gpt.embedding_grad => scf.for over positions adding rows (a serial
//     scatter-add; rows may repeat). CUDA: EmbeddingGradSorted.cpp, the
//     same additions in the same order per element, so the same bits

// gpt.broadcast      => linalg.generic with constant-0 input dims
// gpt.transpose      => linalg.transpose
// gpt.reshape        => tensor.collapse_shape / expand_shape (views)
// gpt.slice / split  => tensor.extract_slice
// gpt.pad / concat   => tensor.insert_slice into zeros / an empty tensor
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Lowering/LowerToLinalg.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

Value toIndex(OpBuilder &b, Location l, Value v) {
  return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
}

/// The static offsets/sizes/unit strides of a slice.
struct SliceBox {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SliceBox(OpBuilder &b, ArrayRef<int64_t> offs, ArrayRef<int64_t> shape) {
    for (auto [o, s] : llvm::zip_equal(offs, shape)) {
      offsets.push_back(b.getIndexAttr(o));
      sizes.push_back(b.getIndexAttr(s));
      strides.push_back(b.getIndexAttr(1));
    }
  }
};

/// gpt.embedding => linalg.generic over [ids..., D] extracting table rows.
/// A table widened by gpt.cast (a bf16-stored parameter read as f32, or
/// through f32 as f64) is read as stored and each extracted element
/// widened: the same values, without a pass over the whole table.
struct EmbeddingToGeneric : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType outType = op.getResult().getType();
    int64_t rank = outType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> idExprs;
    for (int64_t i = 0; i < rank - 1; ++i)
      idExprs.push_back(getAffineDimExpr(i, ctx));
    AffineMap idMap = AffineMap::get(rank, 0, idExprs, ctx);
    Value table = op.getTable();
    SmallVector<Type> widenings; // element types, outermost cast first
    while (auto cast = table.getDefiningOp<CastOp>()) {
      auto from = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getInput()));
      auto to = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getResult()));
      if (!from || !to || from.getWidth() >= to.getWidth())
        break;
      widenings.push_back(to);
      table = cast.getInput();
    }
    Value r = parallelGeneric(
        rewriter, op.getLoc(), outType, ValueRange{op.getIds()}, {idMap},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row = toIndex(b, l, args[0]);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          Value x =
              tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
          for (Type type : llvm::reverse(widenings))
            x = arith::ExtFOp::create(b, l, type, x);
          return x;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// gpt.gather_last => linalg.generic over the index shape.
struct GatherLastToGeneric : OpRewritePattern<GatherLastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherLastOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType outType = op.getResult().getType();
    int64_t rank = outType.getRank();
    Value input = op.getInput();
    Value r = parallelGeneric(
        rewriter, op.getLoc(), outType, ValueRange{op.getIndex()}, {},
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> idx;
          for (int64_t i = 0; i < rank; ++i)
            idx.push_back(linalg::IndexOp::create(b, l, i));
          idx.push_back(toIndex(b, l, args[0]));
          return Value(tensor::ExtractOp::create(b, l, input, idx));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// gpt.scatter_last => linalg.generic over the result: g where the last
/// index equals index[...], else 0.
struct ScatterLastToGeneric : OpRewritePattern<ScatterLastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterLastOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType outType = op.getResult().getType();
    int64_t rank = outType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> lead;
    for (int64_t i = 0; i < rank - 1; ++i)
      lead.push_back(getAffineDimExpr(i, ctx));
    AffineMap leadMap = AffineMap::get(rank, 0, lead, ctx);
    Value r = parallelGeneric(
        rewriter, op.getLoc(), outType, ValueRange{op.getGrad(), op.getIndex()},
        {leadMap, leadMap}, [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = linalg::IndexOp::create(b, l, rank - 1);
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, v,
                                            toIndex(b, l, args[1]));
          Value zero = scalarConstant(b, l, args[0].getType(), 0.0);
          return Value(arith::SelectOp::create(b, l, hit, args[0], zero));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// gpt.embedding_grad => zeros, then scf.for over positions adding each
/// gradient row into the table row its id names.
struct EmbeddingGradToLoop : OpRewritePattern<EmbeddingGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getResult().getType();
    int64_t dim = outType.getDimSize(1);
    auto flatGradType =
        RankedTensorType::get({op.getIds().getType().getNumElements(), dim},
                              outType.getElementType());
    auto flatIdsType =
        RankedTensorType::get({op.getIds().getType().getNumElements()},
                              op.getIds().getType().getElementType());
    Value grad = reshapeTensor(rewriter, loc, op.getGrad(), flatGradType);
    Value ids = reshapeTensor(rewriter, loc, op.getIds(), flatIdsType);
    Value zeros = filled(rewriter, loc, outType, 0.0);
    auto rowType = RankedTensorType::get({1, dim}, outType.getElementType());
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc,
                                              flatIdsType.getDimSize(0));
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value n, ValueRange iter) {
          Value id = toIndex(b, l, tensor::ExtractOp::create(b, l, ids, n));
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                             b.getIndexAttr(dim)};
          SmallVector<OpFoldResult> strides = {b.getIndexAttr(1),
                                               b.getIndexAttr(1)};
          SmallVector<OpFoldResult> gOffsets = {n, b.getIndexAttr(0)};
          SmallVector<OpFoldResult> tOffsets = {id, b.getIndexAttr(0)};
          Value gRow = tensor::ExtractSliceOp::create(b, l, rowType, grad,
                                                      gOffsets, sizes, strides);
          Value tRow = tensor::ExtractSliceOp::create(b, l, rowType, iter[0],
                                                      tOffsets, sizes, strides);
          Value sum = parallelGeneric(
              b, l, rowType, ValueRange{tRow, gRow}, {},
              [&](OpBuilder &bb, Location ll, ValueRange a) {
                return Value(arith::AddFOp::create(bb, ll, a[0], a[1]));
              });
          Value out = tensor::InsertSliceOp::create(b, l, sum, iter[0],
                                                    tOffsets, sizes, strides);
          scf::YieldOp::create(b, l, out);
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// gpt.broadcast => linalg.generic reading size-1 dims at index 0.
struct BroadcastToGeneric : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType in = op.getInput().getType();
    RankedTensorType out = op.getResult().getType();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < in.getRank(); ++i)
      exprs.push_back(in.getDimSize(i) == out.getDimSize(i)
                          ? rewriter.getAffineDimExpr(i)
                          : rewriter.getAffineConstantExpr(0));
    AffineMap map =
        AffineMap::get(out.getRank(), 0, exprs, rewriter.getContext());
    Value r = parallelGeneric(
        rewriter, op.getLoc(), out, ValueRange{op.getInput()}, {map},
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// gpt.transpose => linalg.transpose
struct TransposeToLinalg : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Value init = emptyLike(rewriter, op.getLoc(), op.getResult().getType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getInput(),
                                         init, op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

/// gpt.reshape => collapse/expand views
struct ReshapeToTensor : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), op.getInput(),
                                         op.getResult().getType()));
    return success();
  }
};

/// gpt.slice => tensor.extract_slice
struct SliceToTensor : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType out = op.getResult().getType();
    SliceBox box(rewriter, op.getOffsets(), out.getShape());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, out, op.getInput(), box.offsets, box.sizes, box.strides);
    return success();
  }
};

/// gpt.split => one tensor.extract_slice per part
struct SplitToTensor : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    int64_t dim = op.getDim();
    SmallVector<Value> parts;
    int64_t offset = 0;
    for (Value r : op.getResults()) {
      auto t = cast<RankedTensorType>(r.getType());
      SmallVector<int64_t> offs(t.getRank(), 0);
      offs[dim] = offset;
      SliceBox box(rewriter, offs, t.getShape());
      parts.push_back(tensor::ExtractSliceOp::create(rewriter, op.getLoc(), t,
                                                     op.getInput(), box.offsets,
                                                     box.sizes, box.strides));
      offset += t.getDimSize(dim);
    }
    rewriter.replaceOp(op, parts);
    return success();
  }
};

/// gpt.pad => tensor.insert_slice into zeros
struct PadToTensor : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Value zeros = filled(rewriter, op.getLoc(), op.getResult().getType(), 0.0);
    SliceBox box(rewriter, op.getOffsets(), op.getInput().getType().getShape());
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, op.getInput(), zeros, box.offsets, box.sizes, box.strides);
    return success();
  }
};

/// gpt.concat => insert_slice of each input into an empty tensor
struct ConcatToTensor : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType out = op.getResult().getType();
    Value acc = emptyLike(rewriter, op.getLoc(), out);
    int64_t offset = 0, dim = op.getDim();
    for (Value in : op.getInputs()) {
      auto t = cast<RankedTensorType>(in.getType());
      SmallVector<int64_t> offs(t.getRank(), 0);
      offs[dim] = offset;
      SliceBox box(rewriter, offs, t.getShape());
      acc = tensor::InsertSliceOp::create(rewriter, op.getLoc(), in, acc,
                                          box.offsets, box.sizes, box.strides);
      offset += t.getDimSize(dim);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void populateDataMovementToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingToGeneric, GatherLastToGeneric, ScatterLastToGeneric,
               BroadcastToGeneric, TransposeToLinalg, ReshapeToTensor,
               SliceToTensor, SplitToTensor, PadToTensor, ConcatToTensor>(
      patterns.getContext());
  patterns.add<EmbeddingGradToLoop>(patterns.getContext());
}

} // namespace gptc::lowering
