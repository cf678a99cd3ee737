//===- WriteSlotsInPlace.cpp - Kernels write arena slots directly ---------===//
//
// %t = bufferization.to_tensor %slot restrict writable   (the slot's old value)
// %e = tensor.empty()
// %r = linalg.generic ... outs(%e) { payload ignores %out }
// bufferization.materialize_in_destination %r in restrict writable %slot
//   =>
// %r = linalg.generic ... outs(%t) ...
//
// (and a zero-filled accumulator, of a GEMM or of the loop that scatters
// the embedding gradient: fill(0, %e) becomes fill(0, %t))
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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "gptc-write-slots-in-place"

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

/// When `use` reads a linalg.fill of a tensor.empty: the fill's init (the
/// fill then fills the slot). A fill shared with other ops (CSE merges
/// equal fills) is first cloned for `use`.
OpOperand *fillInitFor(OpOperand &use) {
  auto fill = use.get().getDefiningOp<linalg::FillOp>();
  if (!fill ||
      !fill.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
    return nullptr;
  if (!fill->hasOneUse()) {
    OpBuilder b(use.getOwner());
    Operation *empty =
        b.clone(*fill.getDpsInitOperand(0)->get().getDefiningOp());
    auto own = cast<linalg::FillOp>(b.clone(*fill));
    own.getDpsInitOperand(0)->set(empty->getResult(0));
    use.set(own->getResult(0));
    fill = own;
  }
  return fill.getDpsInitOperand(0);
}

/// The tensor.empty operand that becomes `value`'s buffer: the init of a
/// linalg op that ignores it; for a GEMM accumulating into a zero fill, or
/// a loop (the embedding gradient's scatter) starting from one, the fill's
/// init (gptc-gemm-to-blas folds such a fill into beta = 0).
OpOperand *emptyInitOf(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return nullptr;
  if (auto loop = dyn_cast<scf::ForOp>(result.getOwner()))
    return fillInitFor(loop.getInitArgsMutable()[result.getResultNumber()]);
  auto op = dyn_cast<linalg::LinalgOp>(result.getOwner());
  if (!op)
    return nullptr;
  OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
  if (init->get().getDefiningOp<tensor::EmptyOp>() &&
      !op.payloadUsesValueFromOperand(init))
    return init;
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return nullptr;
  return fillInitFor(*init);
}

/// Moves the memref.view `slot` of a function argument at a constant
/// offset (and that constant) to the start of the function's body.
void hoistView(func::FuncOp fn, Value slot) {
  auto view = slot.getDefiningOp<memref::ViewOp>();
  if (!view)
    return;
  Block &entry = fn.getBody().front();
  auto arena = dyn_cast<BlockArgument>(view.getSource());
  if (!arena || arena.getOwner() != &entry || !view.getSizes().empty())
    return;
  Operation *offset = view.getByteShift().getDefiningOp();
  if (!offset || !isa<arith::ConstantOp>(offset))
    return;
  offset->moveBefore(&entry, entry.begin());
  view->moveAfter(offset);
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
      OpOperand *init = emptyInitOf(m.getSource());
      if (!init)
        return;
      Operation *producer = init->getOwner();
      bufferization::ToTensorOp &slot = readers[slotKey(m.getDest())];
      if (!slot) {
        // A slot only written: its view moves to the top of the function
        // (it reads only the arena and a constant) and gets a writable
        // tensor there, which then dominates the producer.
        hoistView(fn, m.getDest());
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
