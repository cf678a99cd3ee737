//===- NVGPUToNVVM.cpp - The gptc-nvgpu-to-nvvm pass ----------------------===//
//
// nvgpu.ldmatrix, nvgpu.mma.sync and nvgpu.device_async_copy of one
// gpu.module lowered to NVVM with the index width of the module's data
// layout. Upstream's convert-nvgpu-to-nvvm always lowers with the host's
// 64-bit index: in a module that gptc-kernel-index-width narrowed, its
// address arithmetic would not match the rest of the kernel, which
// convert-gpu-to-nvvm lowers with the module's 32-bit index. See the pass
// description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace gptc {
#define GEN_PASS_DEF_NVGPUTONVVMPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct NVGPUToNVVMPass : gptc::impl::NVGPUToNVVMPassBase<NVGPUToNVVMPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(
        ctx, DataLayout(cast<DataLayoutOpInterface>(module.getOperation())));
    LLVMTypeConverter converter(ctx, options);
    nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    // A device-side async token is nothing in NVVM: an i32 the lowering
    // drops.
    converter.addConversion([&](nvgpu::DeviceAsyncTokenType) -> Type {
      return IntegerType::get(ctx, 32);
    });
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                           memref::MemRefDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
