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

#include "passes/Codegen/Accumulation.h"
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

using gptc::codegen::Accumulation;

void registerAccumulators(scf::ForOp loop, MutableArrayRef<Accumulation> accs,
                          bool reassociate, RewriterBase &rewriter) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  // Where each accumulator lives (its load and store are erased below).
  SmallVector<std::pair<Value, SmallVector<Value>>> places;
  SmallVector<Value> inits;
  for (Accumulation &a : accs) {
    places.push_back(
        {a.store.getMemRef(), SmallVector<Value>(a.store.getIndices())});
    inits.push_back(memref::LoadOp::create(rewriter, loc, a.load.getMemRef(),
                                           a.load.getIndices()));
  }
  auto newLoop =
      scf::ForOp::create(rewriter, loc, loop.getLowerBound(),
                         loop.getUpperBound(), loop.getStep(), inits);
  Block *body = newLoop.getBody();
  // Move the old body in front of the new loop's terminator (if any).
  if (!body->empty())
    rewriter.eraseOp(&body->back());
  Block *old = loop.getBody();
  rewriter.eraseOp(old->getTerminator());
  SmallVector<Value> args = {newLoop.getInductionVar()};
  llvm::append_range(args, newLoop.getRegionIterArgs());
  rewriter.mergeBlocks(old, body, args);
  SmallVector<Value> next;
  for (auto [a, arg] : llvm::zip(accs, newLoop.getRegionIterArgs())) {
    rewriter.replaceOp(a.load, arg);
    next.push_back(a.combine->getResult(0));
    rewriter.eraseOp(a.store);
    // The sum may be formed in any order (vector lanes): reassociation.
    auto fm = dyn_cast<arith::ArithFastMathInterface>(a.combine);
    if (reassociate && fm)
      a.combine->setAttr(
          fm.getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(rewriter.getContext(),
                                        fm.getFastMathFlagsAttr().getValue() |
                                            arith::FastMathFlags::reassoc));
  }
  rewriter.setInsertionPointToEnd(body);
  scf::YieldOp::create(rewriter, loc, next);
  rewriter.setInsertionPointAfter(newLoop);
  for (auto [place, result] : llvm::zip(places, newLoop.getResults()))
    memref::StoreOp::create(rewriter, loc, result, place.first, place.second);
  rewriter.eraseOp(loop);
}

struct RegisterAccumulatorsPass
    : gptc::impl::RegisterAccumulatorsPassBase<RegisterAccumulatorsPass> {
  using RegisterAccumulatorsPassBase::RegisterAccumulatorsPassBase;
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, SmallVector<Accumulation>>> work;
    getOperation().walk([&](scf::ForOp loop) {
      SmallVector<Accumulation> accs = gptc::codegen::findAccumulations(loop);
      // Several accumulations in one loop only where asked (CUDA); the
      // CPU keeps its single-accumulator loops.
      if (accs.size() == 1 || (accs.size() > 1 && allAccumulations))
        work.push_back({loop, std::move(accs)});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[loop, accs] : work)
      registerAccumulators(loop, accs, reassociate, rewriter);
  }
};

} // namespace
