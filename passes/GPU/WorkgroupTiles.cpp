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
// or, when a launch's tiles take more than the 48 KiB of static shared
// memory a block may have, views of its dynamic shared memory:
//
// gpu.launch ... dynamic_shared_memory_size %bytes {
//   %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<...>>
//   %t = memref.view %base[%offset][] : ... to memref<64x64xf32, ...>
//   ... uses of %t ...
// }
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/KernelEmitter.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "gptc-workgroup-tiles"

namespace gptc {
#define GEN_PASS_DEF_WORKGROUPTILESPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Static shared memory a block may have without opting in: CUDA C++
/// Programming Guide, "Shared Memory" (compute capability 7.x and later:
/// "allocations above 48 KB per block ... must use dynamic shared
/// memory").
constexpr int64_t kStaticSharedBytes = 48 * 1024;
/// Each tile's offset in the dynamic shared memory is a multiple of 16
/// bytes (cp.async of 16 bytes and ldmatrix rows need it), the alignment
/// MLIR's lowering gives the dynamic shared array.
constexpr int64_t kTileAlignment = 16;

int64_t tileBytes(MemRefType type) {
  return type.getNumElements() *
         static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
}

struct WorkgroupTilesPass
    : gptc::impl::WorkgroupTilesPassBase<WorkgroupTilesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    llvm::MapVector<gpu::LaunchOp, SmallVector<memref::AllocaOp>> tiles;
    bool failed = false;
    getOperation().walk([&](memref::AllocaOp alloca) {
      if (!alloca->hasAttr(gptc::lowering::kWorkgroupTileAttr))
        return;
      auto launch = alloca->getParentOfType<gpu::LaunchOp>();
      if (!launch)
        return;
      MemRefType type = alloca.getType();
      // A tile read by ldmatrix is created in workgroup memory already
      // (the op requires it).
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          (type.getMemorySpace() && type.getMemorySpace() != workgroup)) {
        alloca.emitError("a workgroup tile must be a statically shaped "
                         "alloca of the identity layout in the default or "
                         "workgroup memory space");
        failed = true;
        return;
      }
      tiles[launch].push_back(alloca);
    });
    if (failed)
      return signalPassFailure();
    for (auto &[launch, allocas] : tiles) {
      int64_t total = 0;
      for (memref::AllocaOp alloca : allocas)
        total =
            llvm::alignTo(total, kTileAlignment) + tileBytes(alloca.getType());
      if (total <= kStaticSharedBytes) {
        attribute(launch, allocas, workgroup);
        continue;
      }
      // The launch's dynamic shared memory is the tiles' alone: bytes it
      // already asks for would be given to the tiles.
      if (launch.getDynamicSharedMemorySize()) {
        launch.emitError() << "gptc-workgroup-tiles: the launch's tiles "
                              "take "
                           << total
                           << " bytes, more than static shared memory's "
                           << kStaticSharedBytes
                           << ", but the launch already has dynamic shared "
                              "memory of its own";
        return signalPassFailure();
      }
      viewDynamic(launch, allocas, workgroup, total);
    }
  }

  /// Each tile a workgroup attribution of its launch: static shared
  /// memory.
  void attribute(gpu::LaunchOp launch, ArrayRef<memref::AllocaOp> allocas,
                 gpu::AddressSpaceAttr workgroup) {
    for (memref::AllocaOp alloca : allocas) {
      MemRefType type = alloca.getType();
      auto shared = MemRefType::get(type.getShape(), type.getElementType(),
                                    MemRefLayoutAttrInterface(), workgroup);
      BlockArgument arg =
          launch.addWorkgroupAttribution(shared, alloca.getLoc());
      alloca.getResult().replaceAllUsesWith(arg);
      alloca.erase();
    }
  }

  /// Over 48 KiB: each tile a view of the launch's dynamic shared memory
  /// at its 16-byte-aligned offset, and the launch asks for `total`
  /// bytes (the runtime opts the kernel in above 48 KiB).
  void viewDynamic(gpu::LaunchOp launch, ArrayRef<memref::AllocaOp> allocas,
                   gpu::AddressSpaceAttr workgroup, int64_t total) {
    OpBuilder b(launch);
    launch.getDynamicSharedMemorySizeMutable().assign(arith::ConstantOp::create(
        b, launch.getLoc(), b.getI32IntegerAttr(total)));
    b.setInsertionPointToStart(&launch.getBody().front());
    auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                     MemRefLayoutAttrInterface(), workgroup);
    Value base =
        gpu::DynamicSharedMemoryOp::create(b, launch.getLoc(), bytesType);
    int64_t offset = 0;
    SmallVector<Value> views;
    for (memref::AllocaOp alloca : allocas) {
      MemRefType type = alloca.getType();
      offset = llvm::alignTo(offset, kTileAlignment);
      auto shared = MemRefType::get(type.getShape(), type.getElementType(),
                                    MemRefLayoutAttrInterface(), workgroup);
      Value at = arith::ConstantIndexOp::create(b, alloca.getLoc(), offset);
      views.push_back(memref::ViewOp::create(b, alloca.getLoc(), shared, base,
                                             at, ValueRange{}));
      offset += tileBytes(type);
    }
    // The allocas go only now: the builder inserts before the body's first
    // op, which may be one of them.
    for (auto [i, view] : llvm::enumerate(views)) {
      memref::AllocaOp alloca = allocas[i];
      alloca.getResult().replaceAllUsesWith(view);
      alloca.erase();
    }
  }
};

} // namespace
