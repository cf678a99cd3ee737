//===- ApproximateExp.cpp - The gptc-approximate-exp pass -----------------===//
//
// f32 math.exp => MLIR's polynomial approximation in arith ops (range
// reduction to [-ln2/2, ln2/2], a polynomial, scaling by 2^k through the
// exponent bits), which LLVM vectorises inside kernels instead of calling
// libm's scalar expf per element.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "gptc-approximate-exp"

namespace gptc {
#define GEN_PASS_DEF_APPROXIMATEEXPPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct ApproximateExpPass
    : gptc::impl::ApproximateExpPassBase<ApproximateExpPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name == "math.exp"; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
