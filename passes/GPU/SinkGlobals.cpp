//===- SinkGlobals.cpp - memref.get_global into the kernels that use it ---===//
//
// %g = memref.get_global @table      gpu.launch ... {
// gpu.launch ... {               =>    %g = memref.get_global @table
//   ... %g ...                         ... %g ...
//
// A host global's address is not a device address: each kernel that uses
// a global gets its own get_global, and gpu-kernel-outlining then copies
// the global into the kernel's gpu.module. Uses outside the kernels keep
// the host's.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace gptc {
#define GEN_PASS_DEF_SINKGLOBALSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct SinkGlobalsPass
    : public gptc::impl::SinkGlobalsPassBase<SinkGlobalsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::LaunchOp launch) {
      Region &body = launch.getBody();
      llvm::SetVector<Operation *> globals;
      body.walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (auto get = v.getDefiningOp<memref::GetGlobalOp>())
            if (!body.isAncestor(get->getParentRegion()))
              globals.insert(get);
      });
      OpBuilder b(&body.front(), body.front().begin());
      for (Operation *get : globals) {
        Operation *copy = b.clone(*get);
        get->getResult(0).replaceUsesWithIf(
            copy->getResult(0), [&](OpOperand &use) {
              return body.isAncestor(use.getOwner()->getParentRegion());
            });
      }
    });
  }
};

} // namespace
