//===- LowerBlockBarriers.cpp - The gptc-lower-block-barriers pass --------===//
//
// gptgpu.block_barrier inside a kernel (an scf.parallel nest or a
// gpu.launch) => gpu.barrier. See the pass description in
// passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/GPTGPU/GPTGPUDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "gptc-lower-block-barriers"

namespace gptc {
#define GEN_PASS_DEF_LOWERBLOCKBARRIERSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct LowerBlockBarriersPass
    : gptc::impl::LowerBlockBarriersPassBase<LowerBlockBarriersPass> {
  void runOnOperation() override {
    getOperation().walk([](gptgpu::BlockBarrierOp barrier) {
      if (!barrier->getParentOfType<scf::ParallelOp>() &&
          !barrier->getParentOfType<gpu::LaunchOp>())
        return;
      OpBuilder b(barrier);
      gpu::BarrierOp::create(b, barrier.getLoc());
      barrier.erase();
    });
  }
};

} // namespace
