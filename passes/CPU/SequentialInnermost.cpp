//===- SequentialInnermost.cpp - Vectorisable rows for CPU kernels --------===//
//
// scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) { body }
//   =>
// scf.parallel (%i) = (%c0) to (%m) step (%c1) {
//   scf.for %j = %c0 to %n step %c1 { body }
// }
//
// See the pass description in passes/CPU/CPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "gptc-sequential-innermost"

namespace gptc {
#define GEN_PASS_DEF_SEQUENTIALINNERMOSTPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// A top-level parallel loop of two or more dimensions without reductions.
bool isCandidate(scf::ParallelOp loop) {
  return loop.getNumLoops() >= 2 && loop.getNumResults() == 0 &&
         !loop->getParentOfType<scf::ParallelOp>();
}

void makeInnermostSequential(scf::ParallelOp loop, RewriterBase &rewriter) {
  Location loc = loop.getLoc();
  unsigned n = loop.getNumLoops();
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().drop_back(),
      loop.getUpperBound().drop_back(), loop.getStep().drop_back());
  outer->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  rewriter.setInsertionPointToStart(outer.getBody());
  auto inner =
      scf::ForOp::create(rewriter, loc, loop.getLowerBound()[n - 1],
                         loop.getUpperBound()[n - 1], loop.getStep()[n - 1]);
  IRMapping mapping;
  Block *body = loop.getBody();
  for (unsigned d = 0; d + 1 < n; ++d)
    mapping.map(body->getArgument(d), outer.getInductionVars()[d]);
  mapping.map(body->getArgument(n - 1), inner.getInductionVar());
  rewriter.setInsertionPoint(inner.getBody()->getTerminator());
  for (Operation &op : body->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(loop);
}

struct SequentialInnermostPass
    : gptc::impl::SequentialInnermostPassBase<SequentialInnermostPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (isCandidate(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops)
      makeInnermostSequential(loop, rewriter);
  }
};

} // namespace
