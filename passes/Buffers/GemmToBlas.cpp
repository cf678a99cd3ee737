//===- GemmToBlas.cpp - linalg GEMMs on memrefs -> runtime GEMM calls -----===//
//
// linalg.matmul / linalg.batch_matmul / a scaled contraction (a
// linalg.generic whose body is out + alpha a b), on memrefs, transposes as
// indexing maps
//   => func.call @gptc_gemm_<type>(trans_a, trans_b, m, n, k, a..., b...,
//                                  alpha, beta, c..., d..., batch)
// (runtime/gptrt.h: D = alpha op(A) op(B) + beta C; <type> f32, f64, bf16,
// or bf16_f32 for bf16 A and B with an f32 D). D is the GEMM's output
// buffer. What initialised it right before the GEMM becomes the epilogue:
//   - a linalg.fill of zero: beta = 0 (copies of a zero buffer become such
//     fills first);
//   - a scaled copy (linalg.generic out = s in): beta = s, C = its input;
//   - a memref.copy: C = its source;
// otherwise C = D and beta = 1.
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
  return op->getBlock() == z.fill->getBlock() && z.fill->isBeforeInBlock(op) &&
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
    rewriter.replaceOpWithNewOp<linalg::FillOp>(copy, z->fill.getInputs()[0],
                                                copy.getTarget());
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

/// The runtime GEMM for operands of `operand` and a result of `result`.
func::FuncOp getOrDeclareGemm(ModuleOp module, Type operand, Type result,
                              Type scalarType) {
  std::string name;
  if (operand.isBF16() && result.isF32())
    name = "gptc_gemm_bf16_f32";
  else if (result.isF32())
    name = "gptc_gemm_f32";
  else if (result.isF64())
    name = "gptc_gemm_f64";
  else
    name = "gptc_gemm_bf16";
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  Type i64 = b.getI64Type();
  SmallVector<Type> args(5, i64); // trans_a, trans_b, m, n, k
  args.append(4, i64);            // a
  args.append(4, i64);            // b
  args.append(2, scalarType);     // alpha, beta
  args.append(4, i64);            // c
  args.append(4, i64);            // d
  args.push_back(i64);            // batch
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, {}));
  fn.setPrivate();
  return fn;
}

/// The float constant `v` is, if any.
std::optional<double> constantValue(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  if (!f)
    return std::nullopt;
  return f.getValueAsDouble();
}

/// What `v` widens (arith.extf) or rounds (arith.truncf), else `v`: a bf16
/// GEMM's epilogue is written in f32 between the two.
Value throughCast(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    return trunc.getIn();
  return v;
}

/// `x` when `mul` is `x * constant` or `constant * x`, with the constant.
std::optional<std::pair<Value, double>> scaledBy(Operation *mul) {
  auto m = dyn_cast_or_null<arith::MulFOp>(mul);
  if (!m)
    return std::nullopt;
  if (std::optional<double> s = constantValue(m.getRhs()))
    return std::make_pair(m.getLhs(), *s);
  if (std::optional<double> s = constantValue(m.getLhs()))
    return std::make_pair(m.getRhs(), *s);
  return std::nullopt;
}

/// A GEMM in linalg: operands, transposes and alpha.
struct GemmForm {
  Value a, b, out;
  bool ta = false, tb = false, batched = false;
  double alpha = 1.0;
};

/// Whether `maps` are (op(A), op(B), C) maps of a (batch) matmul, setting
/// the transposes: A (m, k) or (k, m), B (k, n) or (n, k), C (m, n), with
/// a leading batch dimension in all three when batched.
bool matmulMaps(ArrayRef<AffineMap> maps, bool batched, GemmForm &f) {
  MLIRContext *ctx = maps[0].getContext();
  unsigned lead = batched ? 1 : 0, n = lead + 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr dm = d(lead), dn = d(lead + 1), dk = d(lead + 2);
  auto is = [&](AffineMap map, AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> r;
    if (batched)
      r.push_back(d(0));
    r.append({x, y});
    return map == AffineMap::get(n, 0, r, ctx);
  };
  if (maps.size() != 3 || !is(maps[2], dm, dn))
    return false;
  if (!is(maps[0], dm, dk) && !(f.ta = is(maps[0], dk, dm)))
    return false;
  return is(maps[1], dk, dn) || (f.tb = is(maps[1], dn, dk));
}

/// A linalg.generic that is a scaled contraction: matmul maps and
/// iterators, body yield(out + (a * b) * alpha) in any operand order.
std::optional<GemmForm> scaledContraction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  unsigned loops = op.getNumLoops();
  if (loops != 3 && loops != 4)
    return std::nullopt;
  SmallVector<utils::IteratorType> it = op.getIteratorTypesArray();
  for (unsigned i = 0; i < loops; ++i)
    if ((it[i] == utils::IteratorType::reduction) != (i == loops - 1))
      return std::nullopt;
  GemmForm f;
  f.batched = loops == 4;
  if (!matmulMaps(op.getIndexingMapsArray(), f.batched, f))
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = throughCast(yield.getValues()[0]).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value out = body.getArgument(2);
  Value lhs = throughCast(add.getLhs()), rhs = throughCast(add.getRhs());
  if (lhs != out && rhs != out)
    return std::nullopt;
  Value term = lhs == out ? add.getRhs() : add.getLhs();
  std::optional<std::pair<Value, double>> scaled =
      scaledBy(term.getDefiningOp());
  if (!scaled)
    return std::nullopt;
  auto prod = scaled->first.getDefiningOp<arith::MulFOp>();
  Value x = body.getArgument(0), y = body.getArgument(1);
  if (!prod)
    return std::nullopt;
  Value p = throughCast(prod.getLhs()), q = throughCast(prod.getRhs());
  if (!((p == x && q == y) || (p == y && q == x)))
    return std::nullopt;
  f.alpha = scaled->second;
  return f;
}

std::optional<GemmForm> gemmForm(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics())
    return std::nullopt;
  std::optional<GemmForm> f;
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    f = GemmForm();
    f->batched = isa<linalg::BatchMatmulOp>(op);
    if (!matmulMaps(linalgOp.getIndexingMapsArray(), f->batched, *f))
      return std::nullopt;
  } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    f = scaledContraction(generic);
  }
  if (f) {
    f->a = linalgOp.getDpsInputs()[0];
    f->b = linalgOp.getDpsInputs()[1];
    f->out = linalgOp.getDpsInits()[0];
  }
  return f;
}

/// A linalg.generic `out = in * s` (or `s * in`) over identity maps: its
/// input and s.
std::optional<std::pair<Value, double>> scaledCopy(Operation *op) {
  auto g = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 1 ||
      g.getNumDpsInits() != 1 || g.getNumParallelLoops() != g.getNumLoops() ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  std::optional<std::pair<Value, double>> scaled =
      scaledBy(throughCast(yield.getValues()[0]).getDefiningOp());
  if (!scaled || throughCast(scaled->first) != body.getArgument(0))
    return std::nullopt;
  return std::make_pair(g.getDpsInputs()[0], scaled->second);
}

/// The epilogue of a GEMM writing `d`: beta and the C buffer. Folds (and
/// erases) what initialised `d` for it.
std::pair<double, Value> epilogue(Operation *gemm, Value d,
                                  PatternRewriter &rewriter) {
  // A zero fill right before the GEMM (then erased), or an earlier one
  // when nothing wrote D since (copies of zero buffers are fills by now).
  Operation *prev = gemm->getPrevNode();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(prev)) {
    if (fill.getDpsInits()[0] == d && isZeroFill(fill)) {
      rewriter.eraseOp(fill);
      return {0.0, d};
    }
  } else if (std::optional<ZeroBuffer> z = zeroBuffer(d)) {
    // D was zero-filled earlier and only read since: this GEMM is the
    // first to write it. The fill stays only for readers in between.
    if (z->until == gemm) {
      bool readBetween = llvm::any_of(d.getUsers(), [&](Operation *u) {
        return z->fill->isBeforeInBlock(u) && u->isBeforeInBlock(gemm);
      });
      if (!readBetween)
        rewriter.eraseOp(z->fill);
      return {0.0, d};
    }
  }
  if (auto copy = dyn_cast_or_null<memref::CopyOp>(prev)) {
    if (copy.getTarget() == d && copy.getSource().getType() == d.getType()) {
      Value source = copy.getSource();
      rewriter.eraseOp(copy);
      return {1.0, source};
    }
  }
  if (std::optional<std::pair<Value, double>> sc = scaledCopy(prev)) {
    auto g = cast<linalg::GenericOp>(prev);
    if (g.getDpsInits()[0] == d && sc->first.getType() == d.getType()) {
      rewriter.eraseOp(g);
      return {sc->second, sc->first};
    }
  }
  return {1.0, d};
}

/// A GEMM in linalg on memrefs => call @gptc_gemm_*.
struct GemmToCall : RewritePattern {
  GemmToCall(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<GemmForm> f = gemmForm(op);
    if (!f)
      return failure();
    Location loc = op->getLoc();
    auto dType = cast<MemRefType>(f->out.getType());
    // The runtime has f32, f64 and bf16 GEMMs with one element type for A,
    // B and D, and one of bf16 A and B with an f32 D; on static shapes.
    Type elt = dType.getElementType();
    if (!(elt.isF32() || elt.isF64() || elt.isBF16()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Type operandElt = cast<MemRefType>(f->a.getType()).getElementType();
    if (operandElt != elt && !(operandElt.isBF16() && elt.isF32()))
      return rewriter.notifyMatchFailure(op, "unsupported element types");
    for (Value v : {f->a, f->b, f->out}) {
      auto t = cast<MemRefType>(v.getType());
      Type want = v == f->out ? elt : operandElt;
      if (t.getElementType() != want || !t.hasStaticShape())
        return rewriter.notifyMatchFailure(
            op, "operands must share the element type and be static");
    }
    bool batched = f->batched;
    auto aType = cast<MemRefType>(f->a.getType());
    int64_t m = dType.getDimSize(dType.getRank() - 2);
    int64_t n = dType.getDimSize(dType.getRank() - 1);
    int64_t k =
        aType.getDimSize(f->ta ? aType.getRank() - 2 : aType.getRank() - 1);
    int64_t batch = batched ? dType.getDimSize(0) : 1;

    auto [beta, c] = epilogue(op, f->out, rewriter);
    Type scalarType =
        elt.isF64() ? Type(rewriter.getF64Type()) : Type(rewriter.getF32Type());
    auto module = op->getParentOfType<ModuleOp>();
    func::FuncOp callee = getOrDeclareGemm(module, operandElt, elt, scalarType);
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, v, 64).getResult();
    };
    auto scalar = [&](double v) {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getFloatAttr(scalarType, v))
          .getResult();
    };
    MatrixArgs ma = matrixArgs(rewriter, loc, f->a, batched);
    MatrixArgs mb = matrixArgs(rewriter, loc, f->b, batched);
    MatrixArgs mc = matrixArgs(rewriter, loc, c, batched);
    MatrixArgs md =
        c == f->out ? mc : matrixArgs(rewriter, loc, f->out, batched);
    SmallVector<Value> args = {
        cst(f->ta),     cst(f->tb),       cst(m),         cst(n),
        cst(k),         ma.addr,          ma.rowStride,   ma.colStride,
        ma.batchStride, mb.addr,          mb.rowStride,   mb.colStride,
        mb.batchStride, scalar(f->alpha), scalar(beta),   mc.addr,
        mc.rowStride,   mc.colStride,     mc.batchStride, md.addr,
        md.rowStride,   md.colStride,     md.batchStride, cst(batch)};
    rewriter.replaceOpWithNewOp<func::CallOp>(op, callee, args);
    return success();
  }
};

struct GemmToBlasPass : gptc::impl::GemmToBlasPassBase<GemmToBlasPass> {
  void runOnOperation() override {
    replaceZeroCopiesWithFills(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<GemmToCall>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Every GEMM must have become a call.
    WalkResult r = getOperation().walk([](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          (isa<linalg::GenericOp>(op) && gemmForm(op))) {
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
