//===- ExternDynamicShared.cpp - The gptc-extern-dynamic-shared pass ------===//
//
// gpu.module @k {
//   gpu.func @f(...) kernel {
//     %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<w>>
//     ...
//   =>
// gpu.module @k {
//   memref.global "public" @gptc_dynamic_shared
//       : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 16}
//   gpu.func @f(...) kernel {
//     %g = memref.get_global @gptc_dynamic_shared : memref<0xi8, ...>
//     %base = memref.cast %g : memref<0xi8, ...> to memref<?xi8, ...>
//     ...
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace gptc {
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGlobalName = "gptc_dynamic_shared";
/// cp.async of 16 bytes and ldmatrix rows need 16-byte alignment (CUDA's
/// dynamic shared memory is aligned to at least that).
constexpr int64_t kAlignment = 16;

struct ExternDynamicSharedPass
    : gptc::impl::ExternDynamicSharedPassBase<ExternDynamicSharedPass> {
  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      SmallVector<gpu::DynamicSharedMemoryOp> uses;
      module.walk([&](gpu::DynamicSharedMemoryOp op) { uses.push_back(op); });
      if (uses.empty())
        continue;
      auto space = cast<MemRefType>(uses.front().getType()).getMemorySpace();
      auto arrayType = MemRefType::get({0}, IntegerType::get(&getContext(), 8),
                                       MemRefLayoutAttrInterface(), space);
      if (module.lookupSymbol(kGlobalName)) {
        module.emitError() << "gptc-extern-dynamic-shared: @" << kGlobalName
                           << " is already defined";
        return signalPassFailure();
      }
      OpBuilder b(module.getBodyRegion());
      memref::GlobalOp::create(
          b, module.getLoc(), kGlobalName, b.getStringAttr("public"), arrayType,
          /*initial_value=*/Attribute(),
          /*constant=*/false, b.getI64IntegerAttr(kAlignment));
      for (gpu::DynamicSharedMemoryOp op : uses) {
        b.setInsertionPoint(op);
        Value global =
            memref::GetGlobalOp::create(b, op.getLoc(), arrayType, kGlobalName);
        Value base =
            memref::CastOp::create(b, op.getLoc(), op.getType(), global);
        op.replaceAllUsesWith(base);
        op.erase();
      }
    }
  }
};

} // namespace
