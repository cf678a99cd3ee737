//===- GemmToBlas.cpp - linalg GEMMs on memrefs -> runtime GEMM calls -----===//
//
// linalg.matmul / linalg.batch_matmul (memrefs, transposes as indexing maps)
//   => func.call @gptc_gemm_<type>(trans_a, trans_b, m, n, k,
//                                  a, a_rs, a_cs, a_bs, b, ..., beta, c, ...)
// (runtime/gptrt.h). A linalg.fill of zero into C right before the GEMM is
// folded into beta = 0; copies of a zero buffer become such fills first.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-gemm-to-blas"

namespace gptc {
#define GEN_PASS_DEF_GEMMTOBLASPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Address, row/column strides and batch stride of one operand.
struct MatrixArgs {
  Value addr, rowStride, colStride, batchStride;
};

MatrixArgs matrixArgs(OpBuilder &b, Location loc, Value memref, bool batched) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value offsetBytes = arith::MulIOp::create(
      b, loc, meta.getOffset(), arith::ConstantIndexOp::create(b, loc, bytes));
  Value addr = arith::AddIOp::create(b, loc, base, offsetBytes);
  auto i64 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v).getResult();
  };
  MatrixArgs args;
  args.addr = i64(addr);
  args.rowStride = i64(meta.getStrides()[rank - 2]);
  args.colStride = i64(meta.getStrides()[rank - 1]);
  args.batchStride =
      batched ? i64(meta.getStrides()[0])
              : arith::ConstantIntOp::create(b, loc, 0, 64).getResult();
  return args;
}

/// Whether operand `map` reads its matrix transposed: the last result is
/// the M (or N) dimension rather than K.
bool isTransposed(AffineMap map, unsigned kDim) {
  unsigned rank = map.getNumResults();
  return map.getResult(rank - 2) == getAffineDimExpr(kDim, map.getContext());
}

/// A linalg.fill of a constant 0.0.
bool isZeroFill(linalg::FillOp fill) {
  auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return f && f.getValueAsDouble() == 0.0;
}

/// A buffer that holds zeros for a while: a memref.alloc zero-filled once
/// by a linalg.fill, all of whose users are in the fill's block; it holds
/// zeros from the fill up to `until`, its first later user that may write
/// it (null: up to its end). Bufferization leaves such a buffer when one
/// zero-filled tensor initialises several GEMMs: each GEMM's C is a copy of
/// it, and the last GEMM may write into the buffer itself.
struct ZeroBuffer {
  linalg::FillOp fill;
  Operation *until = nullptr;
};

/// Whether `use` only reads its buffer: a load, a copy from it or a linalg
/// input.
bool onlyReads(OpOperand &use) {
  if (isa<memref::LoadOp>(use.getOwner()))
    return true;
  if (auto copy = dyn_cast<memref::CopyOp>(use.getOwner()))
    return copy.getSource() == use.get();
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner()))
    return linalgOp.isDpsInput(&use);
  return false;
}

std::optional<ZeroBuffer> zeroBuffer(Value buffer) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  ZeroBuffer z;
  for (Operation *user : buffer.getUsers())
    if (auto fill = dyn_cast<linalg::FillOp>(user))
      if (fill.getDpsInits()[0] == buffer && isZeroFill(fill) &&
          (!z.fill || fill->isBeforeInBlock(z.fill)))
        z.fill = fill;
  if (!z.fill)
    return std::nullopt;
  Block *block = z.fill->getBlock();
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (user->getBlock() != block)
      return std::nullopt;
    if (user == z.fill || onlyReads(use) || isa<memref::DeallocOp>(user))
      continue;
    if (!z.fill->isBeforeInBlock(user))
      return std::nullopt; // written before it is zero-filled
    if (!z.until || user->isBeforeInBlock(z.until))
      z.until = user;
  }
  return z;
}

/// Whether `op` runs while `z`'s buffer holds zeros.
bool whileZero(const ZeroBuffer &z, Operation *op) {
  return op->getBlock() == z.fill->getBlock() &&
         z.fill->isBeforeInBlock(op) &&
         (!z.until || op->isBeforeInBlock(z.until));
}

/// Every copy of a buffer while it holds zeros becomes a zero fill of its
/// target (which the GEMM pattern folds into beta = 0 when a GEMM follows);
/// a zero buffer that nothing else uses any more goes with its fill and
/// dealloc.
void replaceZeroCopiesWithFills(Operation *root) {
  SmallVector<memref::CopyOp> copies;
  root->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  IRRewriter rewriter(root->getContext());
  for (memref::CopyOp copy : copies) {
    Value zeros = copy.getSource();
    std::optional<ZeroBuffer> z = zeroBuffer(zeros);
    if (!z || !whileZero(*z, copy))
      continue;
    rewriter.setInsertionPoint(copy);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(
        copy, z->fill.getInputs()[0], copy.getTarget());
    bool used = llvm::any_of(zeros.getUsers(), [&](Operation *u) {
      return u != z->fill && !isa<memref::DeallocOp>(u);
    });
    if (used)
      continue;
    for (Operation *user : llvm::make_early_inc_range(zeros.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(zeros.getDefiningOp());
  }
}

func::FuncOp getOrDeclareGemm(ModuleOp module, Type elt, Type betaType) {
  std::string name;
  if (elt.isF32())
    name = "gptc_gemm_f32";
  else if (elt.isF64())
    name = "gptc_gemm_f64";
  else
    name = "gptc_gemm_bf16";
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  Type i64 = b.getI64Type();
  SmallVector<Type> args(5, i64);                // trans_a, trans_b, m, n, k
  args.append(4, i64);                           // a
  args.append(4, i64);                           // b
  args.push_back(betaType);                      // beta
  args.append(4, i64);                           // c
  args.push_back(i64);                           // batch
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

/// linalg.matmul / batch_matmul on memrefs => call @gptc_gemm_*.
template <typename GemmOp>
struct GemmToCall : OpRewritePattern<GemmOp> {
  using OpRewritePattern<GemmOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, "needs buffer semantics");
    Location loc = op.getLoc();
    Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    auto cType = cast<MemRefType>(c.getType());
    // The runtime has f32, f64 and bf16 GEMMs with one element type for A,
    // B and C, on static shapes.
    Type elt = cType.getElementType();
    if (!(elt.isF32() || elt.isF64() || elt.isBF16()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    for (Value v : {a, bm, c}) {
      auto t = cast<MemRefType>(v.getType());
      if (t.getElementType() != elt || !t.hasStaticShape())
        return rewriter.notifyMatchFailure(
            op, "operands must share the element type and be static");
    }
    bool batched = cType.getRank() == 3;
    unsigned kDim = batched ? 3 : 2;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool ta = isTransposed(maps[0], kDim);
    // For B the non-transposed layout is (k, n): transposed when the
    // second-to-last result is N.
    unsigned nDim = batched ? 2 : 1;
    bool tb = maps[1].getResult(maps[1].getNumResults() - 2) ==
              getAffineDimExpr(nDim, op.getContext());
    auto aType = cast<MemRefType>(a.getType());
    int64_t m = cType.getDimSize(cType.getRank() - 2);
    int64_t n = cType.getDimSize(cType.getRank() - 1);
    int64_t k = aType.getDimSize(ta ? aType.getRank() - 2
                                    : aType.getRank() - 1);
    int64_t batch = batched ? cType.getDimSize(0) : 1;

    // Fold a zero fill of C into beta = 0: one right before the GEMM (then
    // erased), or an earlier one when nothing wrote C since (copies of zero
    // buffers are fills by now).
    double beta = 1.0;
    Operation *prev = op->getPrevNode();
    if (auto fill = dyn_cast_or_null<linalg::FillOp>(prev)) {
      if (fill.getDpsInits()[0] == c && isZeroFill(fill)) {
        beta = 0.0;
        rewriter.eraseOp(fill);
      }
    } else if (std::optional<ZeroBuffer> z = zeroBuffer(c)) {
      // C was zero-filled earlier and only read since: this GEMM is the
      // first to write it. The fill stays only for readers in between.
      if (z->until == op.getOperation()) {
        beta = 0.0;
        bool readBetween = llvm::any_of(c.getUsers(), [&](Operation *u) {
          return z->fill->isBeforeInBlock(u) && u->isBeforeInBlock(op);
        });
        if (!readBetween)
          rewriter.eraseOp(z->fill);
      }
    }

    Type betaType = elt.isF64() ? Type(rewriter.getF64Type())
                                : Type(rewriter.getF32Type());
    auto module = op->template getParentOfType<ModuleOp>();
    func::FuncOp callee = getOrDeclareGemm(module, elt, betaType);
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, v, 64).getResult();
    };
    MatrixArgs ma = matrixArgs(rewriter, loc, a, batched);
    MatrixArgs mb = matrixArgs(rewriter, loc, bm, batched);
    MatrixArgs mc = matrixArgs(rewriter, loc, c, batched);
    Value betaValue = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(betaType, beta));
    SmallVector<Value> args = {cst(ta), cst(tb), cst(m), cst(n), cst(k),
                               ma.addr, ma.rowStride, ma.colStride,
                               ma.batchStride, mb.addr, mb.rowStride,
                               mb.colStride, mb.batchStride, betaValue,
                               mc.addr, mc.rowStride, mc.colStride,
                               mc.batchStride, cst(batch)};
    rewriter.replaceOpWithNewOp<func::CallOp>(op, callee, args);
    return success();
  }
};

struct GemmToBlasPass : gptc::impl::GemmToBlasPassBase<GemmToBlasPass> {
  void runOnOperation() override {
    replaceZeroCopiesWithFills(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<GemmToCall<linalg::MatmulOp>,
                 GemmToCall<linalg::BatchMatmulOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Every GEMM must have become a call.
    WalkResult r = getOperation().walk([](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
        op->emitOpError("could not be turned into a GEMM library call");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
