//===- UnshareInits.cpp - Every destination its own init tensor -----------===//
//
// %e = tensor.empty() : tensor<64x64xf32>
// %z = linalg.fill ins(%cst) outs(%e)
// %a = linalg.matmul ins(...) outs(%z)
// %b = linalg.matmul ins(...) outs(%z)
//   =>
// %e = tensor.empty()      %z = linalg.fill ins(%cst) outs(%e)
// %a = linalg.matmul ins(...) outs(%z)
// %e1 = tensor.empty()     %z1 = linalg.fill ins(%cst) outs(%e1)
// %b = linalg.matmul ins(...) outs(%z1)
//
// See the pass description in passes/Buffers/BuffersPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace gptc {
#define GEN_PASS_DEF_UNSHAREINITSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// The ops that make an init tensor whose contents do not depend on
/// anything written before: an empty tensor, or a fill of one. Empty when
/// `init` is not such a value.
SmallVector<Operation *, 2> initProducers(Value init) {
  if (auto empty = init.getDefiningOp<tensor::EmptyOp>())
    return {empty};
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    if (auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      if (empty->hasOneUse() && isa<Value>(fill.value()) &&
          !fill.value().getDefiningOp<tensor::EmptyOp>())
        return {empty, fill};
  return {};
}

struct UnshareInitsPass : gptc::impl::UnshareInitsPassBase<UnshareInitsPass> {
  void runOnOperation() override {
    SmallVector<OpOperand *> shared;
    getOperation().walk([&](DestinationStyleOpInterface op) {
      for (OpOperand &init : op.getDpsInitsMutable()) {
        Value v = init.get();
        if (!isa<RankedTensorType>(v.getType()) || v.hasOneUse())
          continue;
        if (!initProducers(v).empty())
          shared.push_back(&init);
      }
    });
    OpBuilder b(&getContext());
    // From the last destination back: the first keeps the original.
    for (OpOperand *init : llvm::reverse(shared)) {
      Value v = init->get();
      if (v.hasOneUse())
        continue;
      SmallVector<Operation *, 2> producers = initProducers(v);
      b.setInsertionPoint(init->getOwner());
      IRMapping mapping;
      Operation *copy = nullptr;
      for (Operation *producer : producers)
        copy = b.clone(*producer, mapping);
      init->set(copy->getResult(0));
      ++numUnshared;
    }
  }
};

} // namespace
