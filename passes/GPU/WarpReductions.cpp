//===- WarpReductions.cpp - The gptc-warp-reductions pass -----------------===//
//
// scf.parallel (%i) = (0) to (4096) step (1) {        // a thread per row
//   scf.for %k = 0 to 768 step 1 {
//     %a = memref.load %acc[%i]
//     %x = memref.load %in[%i, %k]                      // k: the last index
//     %v = arith.addf %a, term(%x)
//     memref.store %v, %acc[%i]
//   }
// }
//   =>
// scf.parallel (%i, %lane) = (0, 0) to (4096, 32) step (1, 1) {  // a warp
//   %p = scf.for %k = %lane to 768 step 32 iter_args(%s = -0.0) {
//     %x = memref.load %in[%i, %k]                      // coalesced
//     scf.yield arith.addf %s, term(%x)
//   }
//   %t = %p + shuffle.xor(%p, 16), ... 8, 4, 2, 1       // butterfly
//   scf.if %lane == 0 { %acc[%i] = %acc[%i] + %t }
// }
//
// See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/Accumulation.h"
#include "passes/Lowering/KernelEmitter.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "gptc-warp-reductions"

namespace gptc {
#define GEN_PASS_DEF_WARPREDUCTIONSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;
using gptc::codegen::Accumulation;

namespace {

constexpr int64_t kWarp = 32;

/// `v` is the loop's induction variable, or it plus a value from outside.
bool isInductionOffset(Value v, scf::ForOp loop) {
  if (v == loop.getInductionVar())
    return true;
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value k = loop.getInductionVar();
  return (add.getLhs() == k && loop.isDefinedOutsideOfLoop(add.getRhs())) ||
         (add.getRhs() == k && loop.isDefinedOutsideOfLoop(add.getLhs()));
}

/// Whether a warp's lanes, taking consecutive k, read consecutive elements
/// in every load of the loop: k (plus an invariant) is the last index of a
/// buffer whose last dimension is contiguous, and no other index varies in
/// the loop. A loop whose loads walk another dimension (a column sum) is
/// already coalesced across a thread per column.
bool loadsAlongRows(scf::ForOp loop) {
  bool along = true, usesK = false;
  loop.getBody()->walk([&](memref::LoadOp load) {
    ValueRange idx = load.getIndices();
    for (auto [d, i] : llvm::enumerate(idx)) {
      if (loop.isDefinedOutsideOfLoop(i))
        continue;
      if (d + 1 != idx.size() || !isInductionOffset(i, loop)) {
        along = false;
        continue;
      }
      usesK = true;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(load.getMemRefType().getStridesAndOffset(strides, offset)) ||
          strides.back() != 1)
        along = false;
    }
  });
  return along && usesK;
}

/// The loop of a nest the pass rewrites: the body's last op before the
/// terminator, constant bounds and step 1, at least a warp of terms, f32
/// accumulations (RMSNorm's backward sums two per row), no other store and
/// no nested region; the ops before it in the nest's body are pure or
/// loads. The nest has constant bounds.
SmallVector<Accumulation> rowReduction(scf::ParallelOp nest, scf::ForOp &loop) {
  Block *body = nest.getBody();
  if (nest.getNumResults() != 0 || body->getOperations().size() < 2)
    return {};
  loop = dyn_cast<scf::ForOp>(*std::prev(body->getTerminator()->getIterator()));
  if (!loop)
    return {};
  for (Value v : llvm::concat<Value>(nest.getLowerBound(), nest.getUpperBound(),
                                     nest.getStep()))
    if (!getConstantIntValue(v))
      return {};
  for (Operation &op : body->without_terminator())
    if (&op != loop.getOperation() && !isMemoryEffectFree(&op) &&
        !isa<memref::LoadOp>(op))
      return {};
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step != 1 || *ub - *lb < kWarp)
    return {};
  for (Operation &op : loop.getBody()->without_terminator())
    if (op.getNumRegions() != 0)
      return {};
  SmallVector<Accumulation> accs = gptc::codegen::findAccumulations(loop);
  if (accs.empty() || !loadsAlongRows(loop) ||
      llvm::any_of(accs, [](const Accumulation &a) {
        return !a.combine->getResult(0).getType().isF32();
      }))
    return {};
  return accs;
}

/// The combiner's neutral element: -0.0 for a sum (-0.0 + x is x for every
/// x; +0.0 + -0.0 is not).
TypedAttr neutralOf(Operation *combine, OpBuilder &b) {
  if (isa<arith::AddFOp>(combine))
    return b.getF32FloatAttr(-0.0);
  return *arith::getNeutralElement(combine);
}

void spreadOverLanes(scf::ParallelOp nest, scf::ForOp loop,
                     MutableArrayRef<Accumulation> accs, OpBuilder &b) {
  Location loc = nest.getLoc();
  b.setInsertionPoint(nest);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  SmallVector<Value> lbs(nest.getLowerBound()), ubs(nest.getUpperBound()),
      steps(nest.getStep());
  lbs.push_back(c(0));
  ubs.push_back(c(kWarp));
  steps.push_back(c(1));
  auto lanes = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
  Block *body = lanes.getBody();
  Value lane = body->getArguments().back();
  IRMapping map;
  for (auto [from, to] : llvm::zip(nest.getBody()->getArguments(),
                                   body->getArguments().drop_back()))
    map.map(from, to);
  b.setInsertionPointToStart(body);
  for (Operation &op : nest.getBody()->without_terminator())
    if (&op != loop.getOperation())
      b.clone(op, map);
  Value first = arith::AddIOp::create(
      b, loc, map.lookupOrDefault(loop.getLowerBound()), lane);
  SmallVector<Value> inits;
  llvm::SmallPtrSet<Operation *, 8> own;
  for (Accumulation &acc : accs) {
    inits.push_back(
        arith::ConstantOp::create(b, loc, neutralOf(acc.combine, b)));
    own.insert(acc.load);
    own.insert(acc.store);
  }
  auto partial = scf::ForOp::create(b, loc, first,
                                    map.lookupOrDefault(loop.getUpperBound()),
                                    c(kWarp), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(partial.getBody());
    map.map(loop.getInductionVar(), partial.getInductionVar());
    for (auto [acc, arg] : llvm::zip(accs, partial.getRegionIterArgs()))
      map.map(acc.load.getResult(), arg);
    for (Operation &op : loop.getBody()->without_terminator())
      if (!own.contains(&op))
        b.clone(op, map);
    SmallVector<Value> next;
    for (Accumulation &acc : accs)
      next.push_back(map.lookup(acc.combine->getResult(0)));
    scf::YieldOp::create(b, loc, next);
  }
  // A butterfly over the warp: every lane ends with the same totals.
  auto combine = [&](const Accumulation &acc, Value x, Value y) {
    Operation *op = b.clone(*acc.combine);
    op->setOperands({x, y});
    return op->getResult(0);
  };
  SmallVector<Value> totals(partial.getResults());
  for (int32_t offset = kWarp / 2; offset >= 1; offset /= 2)
    for (auto [acc, total] : llvm::zip(accs, totals)) {
      Value other = gpu::ShuffleOp::create(b, loc, total, offset, kWarp,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      total = combine(acc, total, other);
    }
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0));
  auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  once->setAttr(gptc::lowering::kWarpLeaderAttr, b.getUnitAttr());
  b.setInsertionPointToStart(once.thenBlock());
  for (auto [acc, total] : llvm::zip(accs, totals)) {
    SmallVector<Value> at;
    for (Value i : acc.store.getIndices())
      at.push_back(map.lookupOrDefault(i));
    Value mem = map.lookupOrDefault(acc.store.getMemRef());
    Value old = memref::LoadOp::create(b, loc, mem, at);
    memref::StoreOp::create(b, loc, combine(acc, old, total), mem, at);
  }
  nest.erase();
}

struct WarpReductionsPass
    : gptc::impl::WarpReductionsPassBase<WarpReductionsPass> {
  void runOnOperation() override {
    SmallVector<
        std::tuple<scf::ParallelOp, scf::ForOp, SmallVector<Accumulation>>>
        work;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ParallelOp nest) {
      scf::ForOp loop;
      SmallVector<Accumulation> accs = rowReduction(nest, loop);
      if (!accs.empty())
        work.push_back({nest, loop, std::move(accs)});
      return WalkResult::skip();
    });
    OpBuilder b(&getContext());
    for (auto &[nest, loop, accs] : work)
      spreadOverLanes(nest, loop, accs, b);
  }
};

} // namespace
