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
// the block size. A tensor-core kernel of 4 warps (the flash-attention
// forward and dQ kernels) is budgeted 3 resident blocks instead
// (.minnctapersm 3: at most 168 registers a thread, 3 x 128 x 168 = 64,512
// of an SM's 65,536): its K/V tiles arrive by cp.async, with no staging
// registers, and it fits without spills at head_dim 128, where one block's
// budget let ptxas take 198-203. Each workgroup attribution is aligned to 16
// bytes (llvm.align), so that 16-byte shared loads and stores (the tensor-core
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

/// Resident blocks an SM that a 4-warp tensor-core kernel's registers are
/// budgeted for.
constexpr int32_t kTensorCoreResidentBlocks = 3;
constexpr int64_t kTensorCoreThreads = 128;

/// A kernel of 4 warps whose products are on tensor cores.
bool isTensorCoreBlock(gpu::GPUFuncOp func) {
  std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize();
  if (!block)
    return false;
  int64_t threads = 1;
  for (int32_t n : *block)
    threads *= n;
  if (threads != kTensorCoreThreads)
    return false;
  return func.walk([](NVVM::MmaOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

struct SharedTileRegistersPass
    : gptc::impl::SharedTileRegistersPassBase<SharedTileRegistersPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      bool dynamicShared = func.walk([](gpu::DynamicSharedMemoryOp) {
                                 return WalkResult::interrupt();
                               })
                               .wasInterrupted();
      if (func.getNumWorkgroupAttributions() == 0 && !dynamicShared)
        return;
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(isTensorCoreBlock(func)
                                            ? kTensorCoreResidentBlocks
                                            : 1));
      // 16-byte alignment: a thread's 16-byte shared accesses (the
      // tensor-core attention's staged tiles) need it.
      for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
        func.setWorkgroupAttributionAttr(
            i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(16));
    });
  }
};

} // namespace
