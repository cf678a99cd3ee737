//===- WriteSlotsInPlace.cpp - Kernels write arena slots directly ---------===//
//
// %t = bufferization.to_tensor %slot restrict writable   (the slot's old value)
// %e = tensor.empty()
// %r = linalg.generic ... outs(%e) { payload ignores %out }
// bufferization.materialize_in_destination %r in restrict writable %slot
//   =>
// %r = linalg.generic ... outs(%t) ...
//
// so that one-shot bufferization computes the new value straight into the
// slot (in place when the old value is not read afterwards, otherwise via
// its own copy of the old value), and the materialization becomes a copy of
// a buffer onto itself, which canonicalization removes. Without this, every
// parameter, optimizer state and accumulated gradient of a step is computed
// into a temporary and then copied into its slot.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/DenseMap.h"

namespace gptc {
#define GEN_PASS_DEF_WRITESLOTSINPLACEPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Identifies an arena slot: the arena and the constant byte offset of a
/// memref.view, or the memref itself.
std::pair<Value, int64_t> slotKey(Value memref) {
  if (auto view = memref.getDefiningOp<memref::ViewOp>())
    if (auto offset =
            view.getByteShift().getDefiningOp<arith::ConstantIndexOp>())
      return {view.getSource(), offset.value()};
  return {memref, -1};
}

struct WriteSlotsInPlacePass
    : gptc::impl::WriteSlotsInPlacePassBase<WriteSlotsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    DominanceInfo dominance(fn);
    llvm::DenseMap<std::pair<Value, int64_t>, bufferization::ToTensorOp>
        readers;
    fn.walk([&](bufferization::ToTensorOp t) {
      readers[slotKey(t.getBuffer())] = t;
    });
    fn.walk([&](bufferization::MaterializeInDestinationOp m) {
      if (!isa<BaseMemRefType>(m.getDest().getType()) || !m.getWritable())
        return;
      auto result = dyn_cast<OpResult>(m.getSource());
      auto producer =
          result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
      if (!producer)
        return;
      OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
      if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
          producer.payloadUsesValueFromOperand(init))
        return;
      bufferization::ToTensorOp &slot = readers[slotKey(m.getDest())];
      if (!slot) {
        // A slot only written: a fresh view of it, right after the memref.
        OpBuilder b(fn.getContext());
        b.setInsertionPointAfterValue(m.getDest());
        auto type = cast<MemRefType>(m.getDest().getType());
        slot = bufferization::ToTensorOp::create(
            b, m.getLoc(),
            RankedTensorType::get(type.getShape(), type.getElementType()),
            m.getDest(), /*restrict=*/true, /*writable=*/true);
      }
      if (!slot.getWritable() || slot.getType() != init->get().getType() ||
          !dominance.properlyDominates(slot.getOperation(), producer))
        return;
      init->set(slot.getResult());
    });
  }
};

} // namespace
