//===- Accumulation.cpp - A loop's read-modify-write of one element -------===//

#include "passes/Codegen/Accumulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace gptc::codegen {
namespace {

/// An associative, commutative combining op of floats.
bool isCombiner(Operation *op) {
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
             arith::MinimumFOp>(op);
}

} // namespace

SmallVector<Accumulation> findAccumulations(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return {};
  SmallVector<Accumulation> found;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store)
      continue;
    Operation *combine = store.getValueToStore().getDefiningOp();
    if (!combine || !isCombiner(combine) ||
        combine->getBlock() != loop.getBody())
      return {};
    memref::LoadOp load;
    for (Value operand : combine->getOperands())
      if (auto l = operand.getDefiningOp<memref::LoadOp>())
        if (l.getMemRef() == store.getMemRef() &&
            l.getIndices() == store.getIndices() &&
            l->getBlock() == loop.getBody())
          load = l;
    if (!load || !load->hasOneUse() ||
        llvm::any_of(
            store.getIndices(),
            [&](Value i) { return !loop.isDefinedOutsideOfLoop(i); }) ||
        !loop.isDefinedOutsideOfLoop(store.getMemRef()))
      return {};
    found.push_back(Accumulation{load, combine, store});
  }
  // Nothing else in the loop (nested regions included) touches an
  // accumulator's memref.
  llvm::SmallPtrSet<Operation *, 8> own;
  llvm::SmallPtrSet<Value, 4> memrefs;
  for (Accumulation &a : found) {
    own.insert(a.load);
    own.insert(a.store);
    if (!memrefs.insert(a.store.getMemRef()).second)
      return {};
  }
  bool other = false;
  loop.getBody()->walk([&](Operation *op) {
    if (own.contains(op))
      return;
    for (Value operand : op->getOperands())
      if (memrefs.contains(operand))
        other = true;
  });
  if (other)
    return {};
  return found;
}

} // namespace gptc::codegen
