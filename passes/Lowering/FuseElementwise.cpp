//===- FuseElementwise.cpp - Fuse elementwise linalg.generic chains -------===//
//
// generic(a) -> generic(b)   =>   one generic computing b(a(x))
//
// Upstream's elementwise fusion with a control function that keeps named
// contractions (linalg.matmul / batch_matmul) intact, so that
// gptc-gemm-to-blas still finds them, and never duplicates a producer that
// has other users.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-fuse-elementwise"

namespace gptc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

bool shouldFuse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  Operation *consumer = fused->getOwner();
  return isa_and_nonnull<linalg::GenericOp>(producer) &&
         isa<linalg::GenericOp>(consumer) && producer->hasOneUse();
}

struct FuseElementwisePass
    : gptc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
