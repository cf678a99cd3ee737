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
    // The warp-level ops of the tensor-core attention kernel
    // (AttentionTensorCores.h).
    target.addLegalDialect<gpu::GPUDialect, nvgpu::NVGPUDialect>();
    target.addLegalOp<gpt::WarpMmaOp>();
    target.addIllegalDialect<gpt::GPTDialect>();
    // The barriers of kernels shaped for a GPU (gptc-workgroup-tiles).
    target.addLegalOp<gpt::BlockBarrierOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
