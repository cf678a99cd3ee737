//===- WorkgroupTiles.cpp - The gptc-workgroup-tiles pass -----------------===//
//
// gpu.launch ... {
//   %t = memref.alloca() {gptc.workgroup_tile} : memref<64x64xf32>
//   ... uses of %t ...
// }
//   =>
// gpu.launch ... workgroup(%t : memref<64x64xf32,
// #gpu.address_space<workgroup>>) {
//   ... uses of %t ...
// }
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/KernelEmitter.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#define DEBUG_TYPE "gptc-workgroup-tiles"

namespace gptc {
#define GEN_PASS_DEF_WORKGROUPTILESPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct WorkgroupTilesPass
    : gptc::impl::WorkgroupTilesPassBase<WorkgroupTilesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    SmallVector<memref::AllocaOp> tiles;
    getOperation().walk([&](memref::AllocaOp alloca) {
      if (alloca->hasAttr(gptc::lowering::kWorkgroupTileAttr) &&
          alloca->getParentOfType<gpu::LaunchOp>())
        tiles.push_back(alloca);
    });
    for (memref::AllocaOp alloca : tiles) {
      MemRefType type = alloca.getType();
      // A tile read by ldmatrix is created in workgroup memory already
      // (the op requires it).
      if (!type.hasStaticShape() ||
          (type.getMemorySpace() && type.getMemorySpace() != workgroup)) {
        alloca.emitError("a workgroup tile must be a statically shaped "
                         "alloca in the default or workgroup memory space");
        return signalPassFailure();
      }
      auto launch = alloca->getParentOfType<gpu::LaunchOp>();
      auto shared = MemRefType::get(type.getShape(), type.getElementType(),
                                    MemRefLayoutAttrInterface(), workgroup);
      BlockArgument arg =
          launch.addWorkgroupAttribution(shared, alloca.getLoc());
      alloca.getResult().replaceAllUsesWith(arg);
      alloca.erase();
    }
  }
};

} // namespace
