//===- RegisterAccumulators.cpp - The gptc-register-accumulators pass -----===//
//
// scf.for %k = %lb to %ub step %s {
//   %a = memref.load %acc[%i, %j]       (indices defined outside the loop)
//   %x = ...
//   %v = arith.addf %a, %x               (or maximumf / minimumf / mulf)
//   memref.store %v, %acc[%i, %j]
// }
//   =>
// %a0 = memref.load %acc[%i, %j]
// %r = scf.for %k = %lb to %ub step %s iter_args(%a = %a0) {
//   %x = ...
//   %v = arith.addf %a, %x fastmath<reassoc>
//   scf.yield %v
// }
// memref.store %r, %acc[%i, %j]
//
// (fastmath<reassoc> only with the reassociate option, the CPU's.)
//
// See the pass description in passes/Codegen/CodegenPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "gptc-register-accumulators"

namespace gptc {
#define GEN_PASS_DEF_REGISTERACCUMULATORSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// The accumulation of one loop: load, combining op, store.
struct Accumulation {
  memref::LoadOp load;
  Operation *combine;
  memref::StoreOp store;
};

bool isCombiner(Operation *op) {
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
             arith::MinimumFOp>(op);
}

/// The single read-modify-write of one loop-invariant element in `loop`'s
/// body, whose memref the loop touches nowhere else.
std::optional<Accumulation> findAccumulation(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return std::nullopt;
  std::optional<Accumulation> found;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store)
      continue;
    Operation *combine = store.getValueToStore().getDefiningOp();
    if (found || !combine || !isCombiner(combine) ||
        combine->getBlock() != loop.getBody())
      return std::nullopt;
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
      return std::nullopt;
    found = Accumulation{load, combine, store};
  }
  if (!found)
    return std::nullopt;
  // Nothing else in the loop (nested regions included) touches the memref.
  Value acc = found->store.getMemRef();
  bool other = false;
  loop.getBody()->walk([&](Operation *op) {
    if (op == found->load || op == found->store)
      return;
    if (llvm::is_contained(op->getOperands(), acc))
      other = true;
  });
  if (other)
    return std::nullopt;
  return found;
}

void registerAccumulator(scf::ForOp loop, Accumulation a, bool reassociate,
                         RewriterBase &rewriter) {
  Location loc = loop.getLoc();
  Value acc = a.load.getMemRef();
  SmallVector<Value> indices(a.load.getIndices());
  rewriter.setInsertionPoint(loop);
  Value init = memref::LoadOp::create(rewriter, loc, acc, indices);
  auto newLoop = scf::ForOp::create(rewriter, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(),
                                    ValueRange{init});
  Block *body = newLoop.getBody();
  // Move the old body in front of the new loop's terminator (if any).
  if (!body->empty())
    rewriter.eraseOp(&body->back());
  Block *old = loop.getBody();
  rewriter.eraseOp(old->getTerminator());
  rewriter.mergeBlocks(
      old, body, {newLoop.getInductionVar(), newLoop.getRegionIterArgs()[0]});
  rewriter.replaceOp(a.load, newLoop.getRegionIterArgs()[0]);
  rewriter.setInsertionPointToEnd(body);
  scf::YieldOp::create(rewriter, loc, a.combine->getResult(0));
  rewriter.eraseOp(a.store);
  // The sum may be formed in any order (vector lanes): reassociation.
  auto fm = dyn_cast<arith::ArithFastMathInterface>(a.combine);
  if (reassociate && fm)
    a.combine->setAttr(
        fm.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(rewriter.getContext(),
                                      fm.getFastMathFlagsAttr().getValue() |
                                          arith::FastMathFlags::reassoc));
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, loc, newLoop.getResult(0), acc, indices);
  rewriter.eraseOp(loop);
}

struct RegisterAccumulatorsPass
    : gptc::impl::RegisterAccumulatorsPassBase<RegisterAccumulatorsPass> {
  using RegisterAccumulatorsPassBase::RegisterAccumulatorsPassBase;
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, Accumulation>> work;
    getOperation().walk([&](scf::ForOp loop) {
      if (std::optional<Accumulation> a = findAccumulation(loop))
        work.push_back({loop, *a});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[loop, a] : work)
      registerAccumulator(loop, a, reassociate, rewriter);
  }
};

} // namespace
