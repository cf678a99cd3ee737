//===- SplitK.cpp - The gptc-split-k pass ---------------------------------===//
//
// A weight gradient Xᵀ·dY has a small output and a long sum (R15's 768 x
// 768 projections: 65,536 tokens). A GEMM library computes one output tile
// per multiprocessor, so 18 tiles keep 18 of an H100's 132 busy. This pass
// splits the sum into parts that one batched GEMM computes side by side,
// and sums the parts in a kernel of its own:
//
//   out = init + Aᵀ B          (A: k x m, B: k x n, k = 65536)
//     =>
//   partials[s] = A[s]ᵀ B[s]   (batch_matmul; A[s] = rows s*c .. s*c+c-1)
//   out = trunc(init + Σ_s partials[s])   (s in order, f32)
//
// The parts are summed in a fixed order, so every run gives the same bits.
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#define DEBUG_TYPE "gptc-split-k"

namespace gptc {
#define GEN_PASS_DEF_SPLITKPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
namespace lowering = gptc::lowering;

namespace {

/// The maps of out(m, n) += A(k, m) B(k, n) over loops (m, n, k).
bool isTransposedAMatmul(linalg::MatmulOp op) {
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](AffineExpr x, AffineExpr y) {
    return AffineMap::get(3, 0, {x, y}, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps.size() == 3 && maps[0] == map(d(2), d(0)) &&
         maps[1] == map(d(2), d(1)) && maps[2] == map(d(0), d(1));
}

/// `init` (m x n) in `wide`: the same fill of a constant, or a widening.
Value widenedInit(OpBuilder &b, Location loc, Value init, FloatType wide) {
  auto type = cast<RankedTensorType>(init.getType());
  if (type.getElementType() == wide)
    return init;
  auto wideType = RankedTensorType::get(type.getShape(), wide);
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    if (auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr())
      return lowering::filled(b, loc, wideType, f.getValueAsDouble());
  }
  return lowering::parallelGeneric(
      b, loc, wideType, init, {},
      [&](OpBuilder &nb, Location nloc, ValueRange x) {
        return arith::ExtFOp::create(nb, nloc, wide, x[0]).getResult();
      });
}

struct SplitKPass : gptc::impl::SplitKPassBase<SplitKPass> {
  using SplitKPassBase::SplitKPassBase;

  void runOnOperation() override {
    if (multiprocessors < 1 || waves < 1 || tileM < 1 || tileN < 1 ||
        minChunk < 1) {
      getOperation().emitError("gptc-split-k: multiprocessors, waves, "
                               "tile-m, tile-n and min-chunk must be >= 1");
      return signalPassFailure();
    }
    SmallVector<linalg::MatmulOp> gemms;
    getOperation().walk([&](linalg::MatmulOp op) { gemms.push_back(op); });
    for (linalg::MatmulOp op : gemms)
      if (int64_t parts = choose(op); parts > 1)
        apply(op, parts);
  }

  /// The number of parts for `op`: 1 to leave it alone.
  int64_t choose(linalg::MatmulOp op) const {
    if (!op.hasPureTensorSemantics() || !isTransposedAMatmul(op))
      return 1;
    auto a = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    auto b = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    auto out = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    if (!a.hasStaticShape() || !b.hasStaticShape() || !out.hasStaticShape() ||
        !isa<FloatType>(out.getElementType()) ||
        a.getElementType() != b.getElementType())
      return 1;
    const int64_t k = a.getDimSize(0), m = out.getDimSize(0),
                  n = out.getDimSize(1);
    const int64_t tiles =
        llvm::divideCeil(m, tileM) * llvm::divideCeil(n, tileN);
    int64_t parts = 1;
    while (tiles * parts < waves * multiprocessors && k % (2 * parts) == 0 &&
           k / (2 * parts) >= minChunk)
      parts *= 2;
    return parts;
  }

  void apply(linalg::MatmulOp op, int64_t parts) const {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    OpBuilder b(op);
    Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1];
    Value init = op.getDpsInits()[0];
    auto outType = cast<RankedTensorType>(init.getType());
    auto outElt = cast<FloatType>(outType.getElementType());
    // Partials in f32 at least: a bf16 GEMM accumulates in f32 and rounds
    // once, after the parts are summed.
    FloatType wide = outElt.getWidth() >= 32 ? outElt : b.getF32Type();
    const int64_t m = outType.getDimSize(0), n = outType.getDimSize(1);

    // A (k, m) -> (parts, k / parts, m); B likewise.
    auto split = [&](Value x) {
      auto t = cast<RankedTensorType>(x.getType());
      int64_t k = t.getDimSize(0);
      auto type = RankedTensorType::get({parts, k / parts, t.getDimSize(1)},
                                        t.getElementType());
      return tensor::ExpandShapeOp::create(
                 b, loc, type, x, ArrayRef<ReassociationIndices>{{0, 1}, {2}})
          .getResult();
    };
    Value a3 = split(a), b3 = split(bm);
    auto partialType = RankedTensorType::get({parts, m, n}, wide);
    Value zeros = lowering::filled(b, loc, partialType, 0.0);
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto batched = linalg::BatchMatmulOp::create(
        b, loc, TypeRange{partialType}, ValueRange{a3, b3}, ValueRange{zeros});
    batched->setAttr("indexing_maps",
                     b.getAffineMapArrayAttr(
                         {AffineMap::get(4, 0, {d(0), d(3), d(1)}, ctx),
                          AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx),
                          AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)}));

    // out = init + Σ_s partials[s], in order of s.
    Value acc = widenedInit(b, loc, init, wide);
    auto sum = linalg::GenericOp::create(
        b, loc, TypeRange{acc.getType()}, ValueRange{batched->getResult(0)},
        ValueRange{acc},
        ArrayRef<AffineMap>{AffineMap::get(3, 0, {d(2), d(0), d(1)}, ctx),
                            AffineMap::get(3, 0, {d(0), d(1)}, ctx)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                      utils::IteratorType::parallel,
                                      utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(
              nb, nloc,
              arith::AddFOp::create(nb, nloc, args[1], args[0]).getResult());
        });
    Value result = sum.getResult(0);
    if (wide != outElt)
      result = lowering::parallelGeneric(
          b, loc, outType, result, {},
          [&](OpBuilder &nb, Location nloc, ValueRange x) {
            return arith::TruncFOp::create(nb, nloc, outElt, x[0]).getResult();
          });
    op->replaceAllUsesWith(ValueRange{result});
    op->erase();
  }
};

} // namespace
