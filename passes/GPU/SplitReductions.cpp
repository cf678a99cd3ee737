//===- SplitReductions.cpp - The gptc-split-reductions pass ---------------===//
//
// A reduction with few results (the gradient of a scalar parameter: one sum
// over every activation; the Frobenius norms of Newton-Schulz: one per
// matrix) is one thread per result on the GPU, each summing millions of
// terms. This pass splits such a reduction in two, deterministically:
//
//   out[] += x[t, d]        (t < 65536, d < 768)
//     =>
//   part[s] = 0;  part[s] += x[u * 1024 + s, d]  (s < 1024 parallel; u, d)
//   out[] += part[s]                              (s < 1024, in order)
//
// The parts interleave: partial s takes every 1024th element from s on, so
// the threads of a warp (consecutive s) read consecutive elements of the
// split dimension (coalesced when it is the inputs' innermost; a part of
// 64 contiguous elements a thread put the lanes 256 bytes apart).
// Every partial sums a fixed set in a fixed order and the partials are
// combined in a fixed order: the same bits on every run, whatever the
// device's scheduling (no atomics). The second reduction is split again
// while it is still long. See the pass description in passes/GPU/GPUPasses.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "gptc-split-reductions"

namespace gptc {
#define GEN_PASS_DEF_SPLITREDUCTIONSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// How output `i` of a reduction combines: `combiner` (addf, maxnumf, ...)
/// takes the output's block argument and one other value, and yields the
/// new output; `identity` is its neutral element.
struct Combiner {
  Operation *op;
  TypedAttr identity;
};

/// The combiner of every output, or nothing when one is not a plain
/// `out = op(out, term)` with a known neutral element.
std::optional<SmallVector<Combiner>> combiners(linalg::GenericOp op) {
  SmallVector<Combiner> result;
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument arg = op.getMatchingBlockArgument(&init);
    Operation *combiner =
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs())
            .getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 ||
        combiner->getNumResults() != 1 || !arg.hasOneUse() ||
        arg.getUses().begin()->getOwner() != combiner ||
        combiner->getOperand(0) == combiner->getOperand(1))
      return std::nullopt;
    std::optional<TypedAttr> identity = arith::getNeutralElement(combiner);
    if (!identity)
      return std::nullopt;
    result.push_back({combiner, *identity});
  }
  return result;
}

/// Which reduction dimension to split and into how many parts.
struct Split {
  unsigned dim;
  int64_t parts, chunk;
};

struct SplitReductionsPass
    : gptc::impl::SplitReductionsPassBase<SplitReductionsPass> {
  using SplitReductionsPassBase::SplitReductionsPassBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> worklist;
    getOperation().walk([&](linalg::GenericOp op) { worklist.push_back(op); });
    while (!worklist.empty()) {
      linalg::GenericOp op = worklist.pop_back_val();
      if (!choose(op))
        continue;
      op = collapseReductionRun(op);
      if (std::optional<Split> split = choose(op))
        worklist.push_back(apply(op, *split));
    }
  }

  /// `op` with its trailing run of reduction loops collapsed into one (a
  /// scalar's gradient over [B, T, D]: one loop of B * T * D), when every
  /// input indexes the run as its trailing dimensions, in order, the
  /// outputs do not index it and the body reads no loop index: the split
  /// then interleaves the parts over the flat elements, so that a warp
  /// reads consecutive ones (split on the tokens alone, a warp's lanes
  /// were a row apart).
  linalg::GenericOp collapseReductionRun(linalg::GenericOp op) const {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    const int64_t rank = static_cast<int64_t>(iterators.size());
    int64_t first = rank;
    while (first > 0 && linalg::isReductionIterator(iterators[first - 1]))
      --first;
    if (rank - first < 2 || !op.getBody()->getOps<linalg::IndexOp>().empty())
      return op;
    MLIRContext *ctx = op.getContext();
    auto runDim = [&](AffineExpr e) {
      auto d = dyn_cast<AffineDimExpr>(e);
      return d && static_cast<int64_t>(d.getPosition()) >= first;
    };
    for (OpOperand *in : op.getDpsInputOperands()) {
      ArrayRef<AffineExpr> results = op.getMatchingIndexingMap(in).getResults();
      int64_t n = static_cast<int64_t>(results.size());
      if (n < rank - first)
        return op;
      for (int64_t i = 0; i < n; ++i) {
        bool tail = i >= n - (rank - first);
        if (tail != runDim(results[i]) ||
            (tail && results[i] != getAffineDimExpr(
                                       first + i - (n - (rank - first)), ctx)))
          return op;
      }
    }
    for (OpOperand &out : op.getDpsInitsMutable())
      if (llvm::any_of(op.getMatchingIndexingMap(&out).getResults(), runDim))
        return op;
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      int64_t n = map.getNumResults(), keep = n - (rank - first);
      SmallVector<ReassociationIndices> groups;
      SmallVector<AffineExpr> results;
      for (int64_t i = 0; i < keep; ++i) {
        groups.push_back({i});
        results.push_back(map.getResult(i));
      }
      ReassociationIndices run;
      for (int64_t i = keep; i < n; ++i)
        run.push_back(i);
      groups.push_back(run);
      results.push_back(getAffineDimExpr(first, ctx));
      inputs.push_back(
          tensor::CollapseShapeOp::create(b, loc, in->get(), groups));
      maps.push_back(AffineMap::get(first + 1, 0, results, ctx));
    }
    for (OpOperand &out : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&out);
      maps.push_back(AffineMap::get(first + 1, 0, map.getResults(), ctx));
    }
    SmallVector<utils::IteratorType> newIterators(iterators.begin(),
                                                  iterators.begin() + first);
    newIterators.push_back(utils::IteratorType::reduction);
    auto collapsed =
        linalg::GenericOp::create(b, loc, op.getResultTypes(), inputs,
                                  op.getDpsInits(), maps, newIterators);
    collapsed.getRegion().takeBody(op.getRegion());
    op.replaceAllUsesWith(collapsed.getResults());
    op.erase();
    return collapsed;
  }

  /// A split for `op` when it has too few results to fill the device and
  /// enough terms per result to be worth a second kernel.
  std::optional<Split> choose(linalg::GenericOp op) const {
    if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 ||
        !combiners(op))
      return std::nullopt;
    // One combination kernel serves every output: they share a shape.
    for (Value init : op.getDpsInits())
      if (init.getType() != op.getDpsInits()[0].getType())
        return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return std::nullopt;
    int64_t results = 1, terms = 1;
    std::optional<unsigned> longest;
    for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray())) {
      if (!linalg::isReductionIterator(type)) {
        results *= ranges[d];
        continue;
      }
      terms *= ranges[d];
      if (!longest || ranges[d] > ranges[*longest])
        longest = d;
    }
    if (results >= minResults || results == 0)
      return std::nullopt;
    // The inputs must index the split loop directly (they are expanded).
    AffineExpr dim = getAffineDimExpr(*longest, op.getContext());
    for (OpOperand *in : op.getDpsInputOperands())
      if (llvm::count_if(
              op.getMatchingIndexingMap(in).getResults(),
              [&](AffineExpr r) { return r.isFunctionOfDim(*longest); }) > 1 ||
          llvm::any_of(op.getMatchingIndexingMap(in).getResults(),
                       [&](AffineExpr r) {
                         return r != dim && r.isFunctionOfDim(*longest);
                       }))
        return std::nullopt;
    // The most parts of the longest reduction dimension (a divisor of its
    // extent) that keeps at least min-terms terms per part and results x
    // parts within the thread budget.
    const int64_t extent = ranges[*longest];
    const int64_t maxParts =
        std::min<int64_t>(threads / results, terms / minTerms);
    for (int64_t parts = std::min(extent, maxParts); parts >= kMinParts;
         --parts)
      if (extent % parts == 0)
        return Split{*longest, parts, extent / parts};
    return std::nullopt;
  }

  /// Replaces `op` by the partial reduction and the combination of the
  /// partials; returns the latter (it may be long enough to split again).
  linalg::GenericOp apply(linalg::GenericOp op, const Split &split) const {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    OpBuilder b(op);
    SmallVector<Combiner> combine = *combiners(op);
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    const unsigned rank = iterators.size();

    // New loops: the parallel ones, then `part` (parallel), then the
    // reduction ones with split.dim in its place counting within a chunk.
    SmallVector<unsigned> position(rank);
    SmallVector<utils::IteratorType> newIterators;
    for (unsigned d = 0; d < rank; ++d)
      if (!linalg::isReductionIterator(iterators[d])) {
        position[d] = newIterators.size();
        newIterators.push_back(iterators[d]);
      }
    const unsigned part = newIterators.size();
    newIterators.push_back(utils::IteratorType::parallel);
    for (unsigned d = 0; d < rank; ++d)
      if (linalg::isReductionIterator(iterators[d])) {
        position[d] = newIterators.size();
        newIterators.push_back(iterators[d]);
      }
    const unsigned newRank = newIterators.size();
    // Old loop d as a loop of the new ones (split.dim: its chunk loop; the
    // inputs it indexes are expanded to (part, chunk) there).
    SmallVector<AffineExpr> oldDims;
    for (unsigned d = 0; d < rank; ++d)
      oldDims.push_back(getAffineDimExpr(position[d], ctx));
    auto substitute = [&](AffineMap map, bool withPart) {
      SmallVector<AffineExpr> results;
      for (AffineExpr r : map.getResults()) {
        results.push_back(r.replaceDims(oldDims));
        if (r == getAffineDimExpr(split.dim, ctx))
          results.push_back(getAffineDimExpr(part, ctx));
      }
      if (withPart)
        results.push_back(getAffineDimExpr(part, ctx));
      return AffineMap::get(newRank, 0, results, ctx);
    };
    SmallVector<Value> inputs;
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      std::optional<unsigned> at =
          map.getResultPosition(getAffineDimExpr(split.dim, ctx));
      if (!at) {
        inputs.push_back(in->get());
        continue;
      }
      auto type = cast<RankedTensorType>(in->get().getType());
      SmallVector<int64_t> shape;
      SmallVector<ReassociationIndices> groups;
      for (auto [i, size] : llvm::enumerate(type.getShape())) {
        groups.emplace_back();
        groups.back().push_back(shape.size());
        shape.push_back(i == *at ? split.chunk : size);
        if (i == *at) {
          groups.back().push_back(shape.size());
          shape.push_back(split.parts);
        }
      }
      inputs.push_back(tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, type.getElementType()),
          in->get(), groups));
    }

    // Partials: the output's shape plus the parts, at the identity.
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands())
      maps.push_back(substitute(op.getMatchingIndexingMap(in), false));
    SmallVector<Value> partialInits;
    SmallVector<Type> partialTypes;
    for (auto [init, c] : llvm::zip_equal(op.getDpsInitsMutable(), combine)) {
      maps.push_back(substitute(op.getMatchingIndexingMap(&init), true));
      auto type = cast<RankedTensorType>(init.get().getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.push_back(split.parts);
      auto partialType = RankedTensorType::get(shape, type.getElementType());
      Value empty =
          tensor::EmptyOp::create(b, loc, shape, type.getElementType());
      Value identity = arith::ConstantOp::create(b, loc, c.identity);
      partialInits.push_back(
          linalg::FillOp::create(b, loc, identity, empty).getResult(0));
      partialTypes.push_back(partialType);
    }
    auto partial = linalg::GenericOp::create(b, loc, partialTypes, inputs,
                                             partialInits, maps, newIterators);
    IRMapping mapping;
    op.getRegion().cloneInto(&partial.getRegion(), mapping);
    // linalg.index of an old loop: its expression in the new ones.
    partial.getBody()->walk([&](linalg::IndexOp index) {
      OpBuilder ib(index);
      unsigned d = index.getDim();
      Value v = linalg::IndexOp::create(ib, loc, position[d]);
      if (d == split.dim) {
        Value p = linalg::IndexOp::create(ib, loc, part);
        Value parts = arith::ConstantIndexOp::create(ib, loc, split.parts);
        v = arith::AddIOp::create(ib, loc,
                                  arith::MulIOp::create(ib, loc, v, parts), p);
      }
      index.replaceAllUsesWith(v);
      index.erase();
    });

    // out = combine(out, partial[..., s]) for s in order.
    SmallVector<AffineMap> combineMaps;
    SmallVector<utils::IteratorType> combineIterators;
    SmallVector<Type> resultTypes;
    for (auto [i, init] : llvm::enumerate(op.getDpsInits())) {
      unsigned outRank = cast<RankedTensorType>(init.getType()).getRank();
      if (i == 0) {
        combineIterators.assign(outRank, utils::IteratorType::parallel);
        combineIterators.push_back(utils::IteratorType::reduction);
      }
      resultTypes.push_back(init.getType());
    }
    const unsigned outRank = combineIterators.size() - 1;
    for (size_t i = 0; i < partialTypes.size(); ++i)
      combineMaps.push_back(
          AffineMap::getMultiDimIdentityMap(outRank + 1, ctx));
    for (size_t i = 0; i < partialTypes.size(); ++i)
      combineMaps.push_back(AffineMap::get(
          outRank + 1, 0,
          AffineMap::getMultiDimIdentityMap(outRank, ctx).getResults(), ctx));
    auto combined = linalg::GenericOp::create(
        b, loc, resultTypes, partial.getResults(), op.getDpsInits(),
        combineMaps, combineIterators,
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          SmallVector<Value> outs;
          const size_t n = combine.size();
          for (size_t i = 0; i < n; ++i) {
            Operation *c = combine[i].op;
            Block *body = op.getBody();
            BlockArgument outArg = body->getArgument(op.getNumDpsInputs() + i);
            IRMapping m;
            for (Value operand : c->getOperands())
              m.map(operand, operand == outArg ? args[n + i] : args[i]);
            outs.push_back(nb.clone(*c, m)->getResult(0));
          }
          linalg::YieldOp::create(nb, nloc, outs);
        });
    op.replaceAllUsesWith(combined.getResults());
    op.erase();
    return combined;
  }

  /// Fewer parts than this are not worth a kernel.
  static constexpr int64_t kMinParts = 8;
};

} // namespace
