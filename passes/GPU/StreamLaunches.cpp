//===- StreamLaunches.cpp - Kernel launches enqueued, not waited for ------===//
//
// func.func @step(...) {                func.func @step(...) {
//                                         %s = gpu.wait async
//   gpu.launch_func @k::@k ...      =>    %t = gpu.launch_func async [%s]
//   @k::@k ... gpu.launch_func @l::@l ...            %u = gpu.launch_func async
//   [%s] @l::@l ...
// }                                     }
//
// A synchronous gpu.launch_func lowers to a launch followed by a stream
// synchronisation: the host waits for every kernel before it launches the
// next, ~2,300 times in an R15 step. Every GPU operation of a step goes to
// the device's one stream in program order (mgpuStreamCreate returns it;
// the GEMM and collective callbacks enqueue on it), and the host reads no
// device memory inside a step, so the launches need no wait: the runtime
// synchronises once, when it reads the loss.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace gptc {
#define GEN_PASS_DEF_STREAMLAUNCHESPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

struct StreamLaunchesPass
    : public gptc::impl::StreamLaunchesPassBase<StreamLaunchesPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    fn.walk([&](gpu::LaunchFuncOp launch) {
      if (!launch.getAsyncToken())
        launches.push_back(launch);
    });
    if (launches.empty())
      return;
    // The stream: one token at the function's entry, which dominates every
    // launch in it, however deep in loops.
    OpBuilder b(&fn.getBody().front(), fn.getBody().front().begin());
    Type tokenType = gpu::AsyncTokenType::get(&getContext());
    Value stream = gpu::WaitOp::create(b, fn.getLoc(), tokenType, ValueRange())
                       .getAsyncToken();
    for (gpu::LaunchFuncOp launch : launches) {
      b.setInsertionPoint(launch);
      std::optional<gpu::KernelDim3> cluster;
      if (launch.hasClusterSize())
        cluster = launch.getClusterSizeOperandValues();
      auto async = gpu::LaunchFuncOp::create(
          b, launch.getLoc(), launch.getKernelAttr(),
          launch.getGridSizeOperandValues(), launch.getBlockSizeOperandValues(),
          launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
          tokenType, ValueRange{stream}, cluster);
      // Attributes the launch carries besides its operands' (none today;
      // kept so that a later pass's marks survive).
      for (NamedAttribute attr : launch->getDiscardableAttrs())
        async->setAttr(attr.getName(), attr.getValue());
      launch.erase();
    }
  }
};

} // namespace
