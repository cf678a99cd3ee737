//===- SharedTileRegisters.cpp - The gptc-shared-tile-registers pass ------===//
//
// gpu.func @attention(...) workgroup(%kt : memref<128x32xf32, 3>)
//     kernel attributes {known_block_size = array<i32: 128, 1, 1>}
//   =>
// gpu.func @attention(...) workgroup(%kt : memref<128x32xf32, 3>)
//     kernel attributes {known_block_size = ..., nvvm.minctasm = 1 : i32}
//
// A kernel that stages shared tiles (the flash-attention kernels) keeps a
// query or key row's state per thread: many live registers. Given only
// .maxntid, ptxas budgets registers for several resident blocks per SM,
// more than the kernel's shared memory allows anyway, and spills the rest
// (96 registers and 60 spill bytes for the dQ kernel at head_dim 128 on
// sm_90). .minnctapersm 1 (nvvm.minctasm) lifts that budget to what one
// block of the kernel's size can have; ptxas still fits the registers to
// the block size. Each workgroup attribution is aligned to 16 bytes
// (llvm.align), so that 16-byte shared loads and stores (the tensor-core
// attention's staged tiles) may be vector instructions. See the pass
// description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace gptc {
#define GEN_PASS_DEF_SHAREDTILEREGISTERSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct SharedTileRegistersPass
    : gptc::impl::SharedTileRegistersPassBase<SharedTileRegistersPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func.getNumWorkgroupAttributions() == 0)
        return;
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(1));
      // 16-byte alignment: a thread's 16-byte shared accesses (the
      // tensor-core attention's staged tiles) need it.
      for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
        func.setWorkgroupAttributionAttr(
            i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(16));
    });
  }
};

} // namespace
