//===- FuseElementwise.cpp - Fuse elementwise linalg.generic chains -------===//
//
// generic(a) -> generic(b)   =>   one generic computing b(a(x))
//
// Upstream's elementwise fusion with a control function that keeps named
// contractions (linalg.matmul / batch_matmul) intact, so that
// gptc-gemm-to-blas still finds them. Two cases beyond single-use chains:
//
//  - a producer whose other users store it (no kernel reads it), all after
//    the consumer, moves into an all-parallel consumer over the same loops,
//    which then also yields the producer's result: Adam's new
//    m and v are written by the kernel that updates the parameter, instead
//    of being written, then read back by a second kernel;
//  - a generic that reads no tensor (a scalar broadcast to a shape, e.g.
//    a bias correction) is first cloned for each generic user, so that it
//    is recomputed in every kernel instead of stored in a full-size buffer;
//    so is a generic that only broadcasts or widens what it reads (the
//    rotary cos/sin tables broadcast over batch and heads, a bf16 GEMM
//    output widened to f32) when it writes more bytes than it reads: each
//    user then reads the smaller source through its indexing map;
//  - a generic that only rounds one result of a multi-use producer to a
//    narrower float (an update stored as bf16) becomes one more result of
//    the producer;
//  - an expand_shape of a generic that only broadcasts or widens becomes
//    that generic over the expanded shape, so that the cases above fold it
//    into the users of the reshaped value; a consumer of a collapse_shape
//    of a generic nothing else reads is expanded to read it directly;
//  - a producer read only by one consumer, through several of its operands
//    (a rotary reads both halves of its input), is fused into it, its body
//    computed once per operand;
//  - a linalg.transpose becomes a generic, so that its users read its
//    input through the permuted map (a data-moving generic also moves
//    through an expand_shape, when nothing else reads it).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>

#define DEBUG_TYPE "gptc-fuse-elementwise"

namespace gptc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

bool allParallel(linalg::GenericOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

/// A producer read only by `consumer` (through one operand, or several: a
/// rotary reads both halves of its normalized input) is fused into it.
bool shouldFuse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  Operation *consumer = fused->getOwner();
  return isa_and_nonnull<linalg::GenericOp>(producer) &&
         isa<linalg::GenericOp>(consumer) &&
         llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == consumer; });
}

/// True when `producer`, which has other users, can move into `consumer`:
/// both all-parallel over the same loops, every other user a store after
/// the consumer (the fused op takes the consumer's place), and the producer
/// read through one input of the consumer.
bool canMoveIntoConsumer(linalg::GenericOp producer,
                         linalg::GenericOp consumer) {
  if (!allParallel(producer) || !allParallel(consumer) ||
      producer.getNumLoops() != consumer.getNumLoops() ||
      producer->getBlock() != consumer->getBlock())
    return false;
  // One operand of the consumer reads the producer: the fused op then has
  // none (a second one would be left reading the replaced producer).
  if (llvm::count_if(consumer->getOperands(), [&](Value v) {
        return v.getDefiningOp() == producer.getOperation();
      }) != 1)
    return false;
  for (Value init : consumer.getDpsInits())
    if (init.getDefiningOp() == producer.getOperation())
      return false;
  // The other users only store the value (no kernel): a kernel user would
  // chain every same-shaped kernel that shares an operand into one.
  return llvm::all_of(producer->getUsers(), [&](Operation *user) {
    return user == consumer.getOperation() ||
           (!isa<linalg::LinalgOp>(user) &&
            user->getBlock() == consumer->getBlock() &&
            consumer->isBeforeInBlock(user));
  });
}

/// Moves a multi-use producer into its consumer; the fused op yields the
/// producer's results for the other users, and both originals go.
struct FuseMultiUseProducer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() ||
          !canMoveIntoConsumer(producer, consumer) ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      rewriter.setInsertionPoint(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      SmallVector<Value> consumerResults;
      for (Value r : consumer->getResults())
        consumerResults.push_back(fused->replacements.lookup(r));
      for (Value r : producer->getResults())
        if (Value replacement = fused->replacements.lookup(r))
          rewriter.replaceAllUsesExcept(r, replacement, consumer);
      rewriter.replaceOp(consumer, consumerResults);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

/// Bytes of a statically shaped tensor, or nothing.
std::optional<int64_t> bytesOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() *
         ((type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

/// A max or min against a constant (ReLU's max(x, 0)): as cheap to compute
/// again in each user as a widening.
bool isClamp(Operation &op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op))
    return false;
  return llvm::any_of(op.getOperands(),
                      [](Value v) { return matchPattern(v, m_Constant()); });
}

/// Whether `op` only moves data: its body yields one of its inputs or an
/// outside value, through widening conversions and clamps at most, and it
/// writes more bytes than it reads (a broadcast, a widening cast, ReLU of
/// a bf16 GEMM output in f32, which the square after it and the backward
/// both read).
bool onlyBroadcastsOrWidens(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  for (Operation &inner : body.without_terminator())
    if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp>(inner) &&
        !isClamp(inner))
      return false;
  std::optional<int64_t> written = bytesOf(op->getResult(0));
  int64_t read = 0;
  for (Value input : op.getDpsInputs()) {
    std::optional<int64_t> b = bytesOf(input);
    if (!b)
      return false;
    read += *b;
  }
  return written && read < *written;
}

/// Whether `op`'s body yields its inputs as they are (a transpose).
bool onlyMovesData(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  return body.without_terminator().empty() &&
         llvm::all_of(body.getTerminator()->getOperands(), [&](Value v) {
           auto arg = dyn_cast<BlockArgument>(v);
           return arg && arg.getOwner() == &body &&
                  arg.getArgNumber() < op.getNumDpsInputs();
         });
}

/// A generic without inputs (a fill, or a scalar broadcast to a shape), or
/// one that only broadcasts or widens its input, with several generic
/// users: one clone per generic user, which elementwise fusion then folds
/// into that user. The one that reads an input is cloned only for users it
/// fuses into (a clone left as a kernel would be a second copy).
struct CloneDataMovementGeneric : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || !allParallel(op) || op->hasOneUse())
      return failure();
    bool inputless = op.getNumDpsInputs() == 0;
    if (!inputless && !onlyBroadcastsOrWidens(op))
      return failure();
    SmallVector<OpOperand *> genericUses;
    for (OpOperand &use : op->getResult(0).getUses())
      if (isa<linalg::GenericOp>(use.getOwner()) &&
          (inputless || linalg::areElementwiseOpsFusable(&use)))
        genericUses.push_back(&use);
    bool othersRemain = genericUses.size() <
                        static_cast<size_t>(std::distance(op->getUses().begin(),
                                                          op->getUses().end()));
    if (genericUses.empty() || (genericUses.size() == 1 && othersRemain))
      return failure();
    for (OpOperand *use : genericUses) {
      rewriter.setInsertionPoint(use->getOwner());
      Operation *clone = rewriter.clone(*op);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(clone->getResult(0)); });
    }
    return success();
  }
};

/// A generic that only narrows one result of a producer other kernels also
/// read (the f32 -> bf16 rounding of an update stored as bf16): it yields
/// the narrowed value as one more result, computed where the wide one is,
/// and the narrowing kernel goes (the wide result, if nothing else reads
/// it, is then a dead result canonicalization removes). Single-use
/// producers are elementwise fusion's already.
struct NarrowIntoProducer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp narrow,
                                PatternRewriter &rewriter) const override {
    if (narrow.getNumDpsInputs() != 1 || narrow.getNumDpsInits() != 1 ||
        !allParallel(narrow) ||
        !llvm::all_of(narrow.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return failure();
    Block &body = narrow.getRegion().front();
    auto trunc = dyn_cast<arith::TruncFOp>(body.front());
    if (!trunc || trunc.getIn() != body.getArgument(0) ||
        body.getTerminator()->getOperand(0) != trunc.getResult())
      return failure();
    auto wide = dyn_cast<OpResult>(narrow.getDpsInputs()[0]);
    auto producer =
        wide ? dyn_cast<linalg::GenericOp>(wide.getOwner()) : nullptr;
    if (!producer || producer->hasOneUse() || !allParallel(producer) ||
        producer.getNumLoops() != narrow.getNumLoops() ||
        producer->getBlock() != narrow->getBlock() ||
        !producer.getIndexingMapMatchingResult(wide).isIdentity())
      return failure();
    auto type = cast<RankedTensorType>(narrow->getResult(0).getType());
    if (!type.hasStaticShape())
      return failure();
    rewriter.setInsertionPoint(producer);
    Value init = tensor::EmptyOp::create(
        rewriter, narrow.getLoc(), type.getShape(), type.getElementType());
    SmallVector<Value> inits(producer.getDpsInits());
    inits.push_back(init);
    SmallVector<AffineMap> maps = producer.getIndexingMapsArray();
    maps.push_back(narrow.getIndexingMapsArray().back());
    SmallVector<Type> types(producer->getResultTypes());
    types.push_back(type);
    auto fused = linalg::GenericOp::create(rewriter, producer.getLoc(), types,
                                           producer.getDpsInputs(), inits, maps,
                                           producer.getIteratorTypesArray());
    Block &from = producer.getRegion().front();
    Block *to = rewriter.createBlock(&fused.getRegion());
    IRMapping mapping;
    for (BlockArgument arg : from.getArguments())
      mapping.map(arg, to->addArgument(arg.getType(), arg.getLoc()));
    to->addArgument(type.getElementType(), narrow.getLoc());
    rewriter.setInsertionPointToStart(to);
    for (Operation &op : from.without_terminator())
      rewriter.clone(op, mapping);
    SmallVector<Value> yielded;
    for (Value v : from.getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(v));
    // The rounding itself, its attributes (rounding mode, fastmath) kept.
    IRMapping rounding;
    rounding.map(trunc.getIn(), yielded[wide.getResultNumber()]);
    yielded.push_back(rewriter.clone(*trunc, rounding)->getResult(0));
    linalg::YieldOp::create(rewriter, narrow.getLoc(), yielded);
    rewriter.replaceOp(narrow, fused->getResults().back());
    rewriter.replaceOp(producer, fused->getResults().drop_back());
    return success();
  }
};

/// Reshapes between kernels that would fuse without them. An expand_shape
/// of a generic that only broadcasts or widens becomes that generic over
/// the expanded shape (of its expanded inputs), which the
/// patterns above then clone into, and fuse with, each user: a bf16 GEMM
/// output widened to f32 and split into heads (q, k, v) is read as bf16 by
/// the kernels that use it instead of being stored widened. Other reshapes
/// stay (a reshape between two kernels is free).
///
/// A consumer that reads a collapse_shape of a generic that nothing else
/// reads becomes a generic over the expanded shape reading that generic's
/// result directly, so that the two fuse: the rotary (over the halves of a
/// head) and the rounding that transposes the heads for the attention.
bool foldsThroughReshape(OpOperand *operand) {
  Operation *owner = operand->getOwner();
  if (isa<tensor::ExpandShapeOp>(owner)) {
    auto generic = operand->get().getDefiningOp<linalg::GenericOp>();
    return generic && allParallel(generic) && generic->getNumResults() == 1 &&
           (onlyBroadcastsOrWidens(generic) ||
            (generic->hasOneUse() && onlyMovesData(generic)));
  }
  auto consumer = dyn_cast<linalg::GenericOp>(owner);
  auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!consumer || !collapse || !allParallel(consumer) ||
      !collapse->hasOneUse())
    return false;
  auto producer = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  return producer && allParallel(producer) && producer->hasOneUse();
}

/// A linalg.transpose becomes a generic, which elementwise fusion folds
/// into its user (through a reshape too): the user reads the input through
/// the permuted map instead of a transposed copy (the attention's output
/// and its dq, dk in the heads' [B, H, T, D] order, read in [B, T, H, D]).
/// One that is not folded is the same copy kernel as before.
struct GeneralizeTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    return success(succeeded(linalg::generalizeNamedOp(rewriter, op)));
  }
};

struct FuseElementwisePass
    : gptc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CloneDataMovementGeneric, FuseMultiUseProducer,
                 NarrowIntoProducer, GeneralizeTranspose>(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      foldsThroughReshape);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
