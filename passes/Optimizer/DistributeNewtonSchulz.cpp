//===- DistributeNewtonSchulz.cpp - gptc-distribute-newton-schulz ---------===//
//
// optim.newton_schulz %x : tensor<KxRxCxf32>        (K matrices)
//   =>  (ranks = N, K' = ceil(K / N) * N, J = K' / N)
// %stack = concat(slices of %x, round-robin, padded) : tensor<K'xRxCxf32>
// %mine  = comm.shard %stack world_size = N          : tensor<JxRxCxf32>
// %u     = optim.newton_schulz %mine                  (same settings)
// %all   = comm.all_gather %u world_size = N         : tensor<K'xRxCxf32>
// %r     = concat(slices of %all, back in order)     : tensor<KxRxCxf32>
//
// Position p = r * J + j of the stack holds matrix i = j * N + r (the last
// matrix where i >= K), so rank r orthogonalises matrices r, r + N, ... A
// single matrix ([R, C], or a stack of one) has nothing to split: every
// rank computes it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Step/TrainingShape.h"

#include "dialects/Optim/OptimDialect.h"

#define DEBUG_TYPE "gptc-distribute-newton-schulz"

namespace gptc {
#define GEN_PASS_DEF_DISTRIBUTENEWTONSCHULZPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// Matrix `i` of the stack `x` ([K, R, C]) as a [1, R, C] tensor.
Value matrixOf(OpBuilder &b, Location loc, Value x, int64_t i) {
  auto type = cast<RankedTensorType>(x.getType());
  auto one = RankedTensorType::get({1, type.getDimSize(1), type.getDimSize(2)},
                                   type.getElementType());
  return gpt::SliceOp::create(b, loc, one, x,
                              b.getDenseI64ArrayAttr({i, 0, 0}));
}

/// The stack of `x`'s matrices at `order` ([order.size(), R, C]).
Value stackOf(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> order) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> parts;
  for (int64_t i : order)
    parts.push_back(matrixOf(b, loc, x, i));
  auto stacked = RankedTensorType::get(
      {int64_t(order.size()), type.getDimSize(1), type.getDimSize(2)},
      type.getElementType());
  return gpt::ConcatOp::create(b, loc, stacked, parts, 0);
}

void distribute(optim::NewtonSchulzOp op, int64_t ranks) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto stackType = cast<RankedTensorType>(x.getType());
  int64_t k = stackType.getDimSize(0);
  int64_t per = (k + ranks - 1) / ranks; // J
  // Stack position p = r * J + j <- matrix j * N + r (the last one past K);
  // `where[i]` is the position of matrix i.
  SmallVector<int64_t> order, where(k);
  for (int64_t r = 0; r < ranks; ++r)
    for (int64_t j = 0; j < per; ++j) {
      int64_t i = j * ranks + r;
      if (i < k)
        where[i] = int64_t(order.size());
      order.push_back(std::min(i, k - 1));
    }
  Value stack = stackOf(b, loc, x, order);
  auto stackedType = cast<RankedTensorType>(stack.getType());
  auto mineType = RankedTensorType::get(
      {per, stackType.getDimSize(1), stackType.getDimSize(2)},
      stackType.getElementType());
  Value mine = comm::ShardOp::create(b, loc, mineType, stack,
                                     b.getI64IntegerAttr(ranks));
  auto ns = optim::NewtonSchulzOp::create(
      b, loc, mineType, mine, op.getStepsAttr(), op.getCoefficientsAttr(),
      op.getEpsAttr(), op.getFormAttr(), op.getTransposeAttr(),
      op.getNormalizeAttr(), op.getComputeDtypeAttr());
  Value all = comm::AllGatherOp::create(b, loc, stackedType, ns.getResult(),
                                        b.getI64IntegerAttr(ranks));
  Value result = stackOf(b, loc, all, where);
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}

struct DistributeNewtonSchulzPass
    : gptc::impl::DistributeNewtonSchulzPassBase<DistributeNewtonSchulzPass> {
  using DistributeNewtonSchulzPassBase::DistributeNewtonSchulzPassBase;

  void runOnOperation() override {
    auto module = getOperation()->getParentOfType<ModuleOp>();
    FailureOr<int64_t> worldSize =
        module ? gptc::trainingCount(module, gptc::kRanksAttr, ranks,
                                     "gptc-distribute-newton-schulz", "ranks")
               : FailureOr<int64_t>(ranks == 0 ? 1 : int64_t(ranks));
    if (failed(worldSize) || *worldSize < 1) {
      if (succeeded(worldSize))
        getOperation().emitError("gptc-distribute-newton-schulz: ranks must "
                                 "be at least 1");
      return signalPassFailure();
    }
    if (*worldSize == 1)
      return;
    SmallVector<optim::NewtonSchulzOp> ops;
    getOperation().walk([&](optim::NewtonSchulzOp op) {
      auto type = cast<RankedTensorType>(op.getInput().getType());
      if (type.hasStaticShape() && type.getRank() == 3 &&
          type.getDimSize(0) > 1)
        ops.push_back(op);
    });
    for (optim::NewtonSchulzOp op : ops)
      distribute(op, *worldSize);
  }
};

} // namespace
