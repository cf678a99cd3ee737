//===- LowerToLinalg.cpp - The gptc-lower-to-linalg pass ------------------===//
//
// Every gpt primitive becomes linalg (one linalg op = one future kernel) or
// tensor data movement; GEMMs become linalg.matmul / batch_matmul for
// gptc-gemm-to-blas to turn into library calls after bufferization. The
// fused ops become their own kernels (FusedToLinalg.cpp); any gpt op left
// over is an error.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/LowerToLinalg.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "gptc-lower-to-linalg"

namespace gptc {
#define GEN_PASS_DEF_LOWERTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct LowerToLinalgPass
    : gptc::impl::LowerToLinalgPassBase<LowerToLinalgPass> {
  using LowerToLinalgPassBase::LowerToLinalgPassBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    gptc::lowering::populateElementwiseToLinalgPatterns(patterns);
    gptc::lowering::populateReductionToLinalgPatterns(patterns);
    if (sortedEmbeddingGrad)
      gptc::lowering::lowerEmbeddingGradsSorted(getOperation());
    gptc::lowering::populateDataMovementToLinalgPatterns(patterns);
    gptc::lowering::populateFusedToLinalgPatterns(patterns, gpuKernels,
                                                  tensorCores);
    gptc::lowering::populateRotaryToLinalgPatterns(patterns);

    ConversionTarget target(*ctx);
    target.addLegalDialect<
        arith::ArithDialect, bufferization::BufferizationDialect,
        linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect,
        scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect,
        func::FuncDialect>();
    // The warp- and block-level ops of kernels shaped for a GPU: the
    // tensor-core attention kernels' (passes/GPU/AttentionTensorCores.h:
    // ldmatrix and cp.async in nvgpu, cp.async's groups in gptgpu) and
    // every shared tile's barriers (gptgpu, lowered by gptc-lower-warp-mma
    // and gptc-lower-block-barriers).
    target.addLegalDialect<gpu::GPUDialect, nvgpu::NVGPUDialect,
                           gptgpu::GPTGPUDialect>();
    target.addIllegalDialect<gpt::GPTDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
