//===- ThreadBlocks.cpp - The gptc-thread-blocks pass ---------------------===//
//
// scf.parallel (%i, %j) = (0, 0) to (512, 64) step (1, 1) { body(%i, %j) }
//   =>
// scf.parallel (%b) = (0) to (128) step (1) {          // blocks
//   scf.parallel (%t) = (0) to (256) step (1) {        // threads
//     %n = %b * 256 + %t
//     scf.if (%n < 32768) {          // only when blocks * 256 > work items
//       %i = %n floordiv 64, %j = %n mod 64
//       body(%i, %j)
//     }
//   }
// }
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/KernelEmitter.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#define DEBUG_TYPE "gptc-thread-blocks"

namespace gptc {
#define GEN_PASS_DEF_THREADBLOCKSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// The largest grid x dimension of a CUDA device.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

/// The iteration space of a nest with constant bounds, or nothing.
struct Space {
  SmallVector<int64_t> lower, step, trips;
  int64_t items = 1;
};

std::optional<Space> constantSpace(scf::ParallelOp op) {
  Space s;
  for (auto [lb, ub, st] :
       llvm::zip_equal(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           k = getConstantIntValue(st);
    if (!l || !u || !k || *k <= 0)
      return std::nullopt;
    int64_t trips = *u > *l ? (*u - *l + *k - 1) / *k : 0;
    if (trips > 0 && s.items > kMaxGridX * 1024 / trips)
      return std::nullopt;
    s.lower.push_back(*l);
    s.step.push_back(*k);
    s.trips.push_back(trips);
    s.items *= trips;
  }
  return s;
}

/// A nest whose work items are teams of threads keeps one work item per
/// block: its items share a tile (the flash-attention kernels stage K/V
/// tiles for the block), or each item's body is a nested scf.parallel of
/// at most a block's threads (the cross-entropy's 256 threads a row, which
/// would otherwise run as a sequential loop in one thread per row).
bool runsTeams(scf::ParallelOp op) {
  WalkResult shared = op.walk([](memref::AllocaOp alloca) {
    return alloca->hasAttr(gptc::lowering::kWorkgroupTileAttr)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (shared.wasInterrupted())
    return true;
  WalkResult team = op.getBody()->walk([&](scf::ParallelOp inner) {
    std::optional<Space> s = constantSpace(inner);
    return s && s->items > 0 && s->items <= 1024 ? WalkResult::interrupt()
                                                 : WalkResult::advance();
  });
  return team.wasInterrupted();
}

struct ThreadBlocksPass : gptc::impl::ThreadBlocksPassBase<ThreadBlocksPass> {
  using ThreadBlocksPassBase::ThreadBlocksPassBase;

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize % 32 != 0 || blockSize > 1024) {
      getOperation().emitError("block-size must be a multiple of 32 in "
                               "[32, 1024], not ")
          << static_cast<int64_t>(blockSize.getValue());
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> nests;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ParallelOp op) {
      nests.push_back(op);
      return WalkResult::skip();
    });
    for (scf::ParallelOp op : nests)
      spread(op);
  }

  void spread(scf::ParallelOp op) {
    std::optional<Space> space = constantSpace(op);
    if (!space || space->items == 0 || op.getNumResults() != 0 || runsTeams(op))
      return;
    const int64_t items = space->items;
    const int64_t threads =
        std::min<int64_t>(blockSize, (items + 31) / 32 * 32);
    const int64_t blocks = (items + threads - 1) / threads;
    Location loc = op.getLoc();
    OpBuilder b(op);
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    Value zero = c(0), one = c(1);
    auto grid = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{c(blocks)}, ValueRange{one});
    b.setInsertionPointToStart(grid.getBody());
    auto block = scf::ParallelOp::create(
        b, loc, ValueRange{zero}, ValueRange{c(threads)}, ValueRange{one});
    b.setInsertionPointToStart(block.getBody());
    Value item = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, grid.getInductionVars()[0], c(threads)),
        block.getInductionVars()[0]);
    Block *target = block.getBody();
    Operation *before = target->getTerminator();
    if (blocks * threads != items) {
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            item, c(items));
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      guard->setAttr(gptc::lowering::kWorkItemGuardAttr, b.getUnitAttr());
      target = guard.thenBlock();
      before = target->getTerminator();
      b.setInsertionPointToStart(target);
    }
    // The original induction variables, innermost fastest: consecutive
    // threads take consecutive elements of the innermost dimension.
    SmallVector<Value> ivs(space->trips.size());
    Value rest = item;
    for (int64_t d = int64_t(space->trips.size()) - 1; d >= 0; --d) {
      Value index = rest;
      if (d > 0) {
        index = arith::RemUIOp::create(b, loc, rest, c(space->trips[d]));
        rest = arith::DivUIOp::create(b, loc, rest, c(space->trips[d]));
      }
      if (space->step[d] != 1)
        index = arith::MulIOp::create(b, loc, index, c(space->step[d]));
      if (space->lower[d] != 0)
        index = arith::AddIOp::create(b, loc, index, c(space->lower[d]));
      ivs[d] = index;
    }
    Block *body = op.getBody();
    for (auto [arg, iv] : llvm::zip_equal(body->getArguments(), ivs))
      arg.replaceAllUsesWith(iv);
    body->getTerminator()->erase();
    target->getOperations().splice(before->getIterator(),
                                   body->getOperations());
    op.erase();
  }
};

} // namespace
