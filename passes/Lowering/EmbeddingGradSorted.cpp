//===- EmbeddingGradSorted.cpp - gpt.embedding_grad by sorted positions ---===//
//
// gpt.embedding_grad on a GPU, as PyTorch's CUDA embedding backward does it:
// the positions sorted by token once per set of ids, then a segmented sum.
//
//   keys[i]   = ids[i] * N + i  (i < N),  INT64_MAX up to P = 2^L >= N
//   scf.for %s = 0 to L(L+1)/2 {           // host loop, one launch a stage
//     bitonic stage s over the P / 2 pairs  // in place, keys distinct
//   }
//   starts[v] = lower_bound(keys[0..N), v * N)          for v in [0, V]
//   out[v, d] = 0 + g[p0, d] + g[p1, d] + ...           p0 < p1 < ... the
//               positions of token v: keys[starts[v] .. starts[v + 1]),
//               a work item per row and 4 columns
//
// Every element sums its positions in position order starting from zero,
// as the CPU's row loop (EmbeddingGradToLoop) does: the same bits. No two
// work items write one element, no atomics. The sort and the starts are
// shared by every embedding_grad of a block that reads the same ids (the
// token embedding and the value embeddings: one sort a step).
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/KernelEmitter.h"
#include "passes/Lowering/LinalgBuilders.h"
#include "passes/Lowering/LowerToLinalg.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

/// The positions of a set of ids grouped by token: `keys` sorted, and
/// `starts[v]` the first index of token v's keys (V + 1 entries).
struct SortedPositions {
  Value keys, starts;
  int64_t positions;
};

/// A buffer of a tensor's elements as a flat memref (read only).
Value flatBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto t = cast<RankedTensorType>(tensor.getType());
  auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(flat.getShape(), t.getElementType()),
      reshapeTensor(b, loc, tensor, flat), b.getUnitAttr());
}

Value toIndex(OpBuilder &b, Location l, Value v) {
  return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
}

/// Bitonic stage `stage` (0-based, over all (k, j) pairs in order) on the
/// `pairs` pairs of `keys`: blocks of 2^k sorted up or down by distance
/// 2^j, k = 1..L, j = k-1..0.
void emitBitonicStage(OpBuilder &b, Location loc, Value keys, int64_t pairs,
                      int64_t log2Size, Value stage) {
  Type i64 = b.getI64Type();
  parallelKernel(b, loc, i64, pairs, [&](KernelEmitter &e, Value t) {
    OpBuilder &kb = e.builder();
    Location l = e.location();
    auto shl = [&](Value x, Value y) {
      return Value(arith::ShLIOp::create(kb, l, x, y));
    };
    auto shr = [&](Value x, Value y) {
      return Value(arith::ShRUIOp::create(kb, l, x, y));
    };
    // k: the largest c in [1, L] with c (c - 1) / 2 <= stage.
    Value c1 = e.idx(1);
    SmallVector<Value> k =
        e.loop(e.idx(1), e.idx(log2Size + 1), c1, ValueRange{c1},
               [&](Value c, ValueRange carried) -> SmallVector<Value> {
                 Value first = e.div(e.mul(c, e.sub(c, c1)), e.idx(2));
                 Value reached = e.cmp(arith::CmpIPredicate::sle, first, stage);
                 return {e.select(reached, c, carried[0])};
               });
    Value firstOfK = e.div(e.mul(k[0], e.sub(k[0], c1)), e.idx(2));
    Value j = e.sub(e.sub(k[0], c1), e.sub(stage, firstOfK));
    Value distance = shl(c1, j);
    Value lo = arith::OrIOp::create(
        kb, l, shl(shr(t, j), e.add(j, c1)),
        arith::AndIOp::create(kb, l, t, e.sub(distance, c1)));
    Value hi = arith::OrIOp::create(kb, l, lo, distance);
    Value block = arith::AndIOp::create(kb, l, lo, shl(c1, k[0]));
    Value up = e.cmp(arith::CmpIPredicate::eq, block, e.idx(0));
    // Both stored, without a branch: the smaller first where the block
    // sorts up, the larger where it sorts down.
    Value a = e.load(keys, lo), z = e.load(keys, hi);
    Value least = arith::MinSIOp::create(kb, l, a, z);
    Value most = arith::MaxSIOp::create(kb, l, a, z);
    e.store(e.select(up, least, most), keys, lo);
    e.store(e.select(up, most, least), keys, hi);
  });
}

/// Sorts the positions of `ids` by token (see the file comment).
SortedPositions sortPositions(OpBuilder &b, Location loc, Value ids,
                              int64_t rows) {
  Value flatIds = flatBuffer(b, loc, ids);
  const int64_t n = cast<MemRefType>(flatIds.getType()).getNumElements();
  const int64_t size = std::max<int64_t>(2, llvm::PowerOf2Ceil(n));
  const int64_t log2Size = llvm::Log2_64(size);
  Type i64 = b.getI64Type();
  Value keys = memref::AllocOp::create(b, loc, MemRefType::get({size}, i64));
  parallelKernel(b, loc, i64, size, [&](KernelEmitter &e, Value i) {
    OpBuilder &kb = e.builder();
    Location l = e.location();
    Value inside = e.cmp(arith::CmpIPredicate::slt, i, e.idx(n));
    Value at = e.min(i, e.idx(n - 1));
    Value key = e.add(e.mul(toIndex(kb, l, e.load(flatIds, at)), e.idx(n)), i);
    Value last = e.idx(std::numeric_limits<int64_t>::max());
    Value v =
        arith::IndexCastOp::create(kb, l, i64, e.select(inside, key, last));
    e.store(v, keys, i);
  });
  const int64_t stages = log2Size * (log2Size + 1) / 2;
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value cStages = arith::ConstantIndexOp::create(b, loc, stages);
  scf::ForOp::create(b, loc, c0, cStages, c1, ValueRange{},
                     [&](OpBuilder &fb, Location l, Value s, ValueRange) {
                       emitBitonicStage(fb, l, keys, size / 2, log2Size, s);
                       scf::YieldOp::create(fb, l);
                     });

  // starts[v]: the first key >= v * N, by bisection over [0, N).
  Type i32 = b.getI32Type();
  Value starts =
      memref::AllocOp::create(b, loc, MemRefType::get({rows + 1}, i32));
  const int64_t probes = llvm::Log2_64(llvm::PowerOf2Ceil(n + 1)) + 1;
  parallelKernel(b, loc, i32, rows + 1, [&](KernelEmitter &e, Value v) {
    OpBuilder &kb = e.builder();
    Location l = e.location();
    Value target = e.mul(v, e.idx(n));
    SmallVector<Value> range = e.loop(
        e.idx(0), e.idx(probes), e.idx(1), ValueRange{e.idx(0), e.idx(n)},
        [&](Value, ValueRange lh) -> SmallVector<Value> {
          Value open = e.cmp(arith::CmpIPredicate::slt, lh[0], lh[1]);
          Value mid = e.div(e.add(lh[0], lh[1]), e.idx(2));
          Value key = toIndex(kb, l, e.load(keys, e.min(mid, e.idx(n - 1))));
          Value below =
              e.both(open, e.cmp(arith::CmpIPredicate::slt, key, target));
          Value above =
              e.both(open, e.cmp(arith::CmpIPredicate::sge, key, target));
          return {e.select(below, e.add(mid, e.idx(1)), lh[0]),
                  e.select(above, mid, lh[1])};
        });
    e.store(arith::IndexCastOp::create(kb, l, i32, range[0]), starts, v);
  });
  return {keys, starts, n};
}

/// out[v, d] = the sum of g's rows of token v, in position order: a work
/// item per row and `lanes` consecutive columns (4 when they divide the
/// row: one read of the segment's keys for 16 bytes of each row of g).
Value segmentedSum(OpBuilder &b, Location loc, EmbeddingGradOp op,
                   const SortedPositions &sorted) {
  RankedTensorType outType = op.getResult().getType();
  const int64_t rows = outType.getDimSize(0), dim = outType.getDimSize(1);
  const int64_t lanes = dim % 4 == 0 ? 4 : 1, groups = dim / lanes;
  Type elt = outType.getElementType();
  // A work item's columns start at a multiple of 4 of a row of a multiple
  // of 4 elements, in buffers the plan aligns to 64 bytes: one 16-byte
  // (f32) access each.
  const int64_t align = lanes * elt.getIntOrFloatBitWidth() / 8;
  auto gType = RankedTensorType::get({sorted.positions, dim}, elt);
  Value grad = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(gType.getShape(), elt),
      reshapeTensor(b, loc, op.getGrad(), gType), b.getUnitAttr());
  Value out =
      memref::AllocOp::create(b, loc, MemRefType::get({rows, dim}, elt));
  parallelKernel(b, loc, elt, rows * groups, [&](KernelEmitter &e, Value item) {
    OpBuilder &kb = e.builder();
    Location l = e.location();
    Value v = e.div(item, e.idx(groups));
    Value d = e.mul(e.rem(item, e.idx(groups)), e.idx(lanes));
    Value first = toIndex(kb, l, e.load(sorted.starts, v));
    Value end = toIndex(kb, l, e.load(sorted.starts, e.add(v, e.idx(1))));
    Value base = e.mul(v, e.idx(sorted.positions));
    Value zero = lanes == 1 ? e.fc(0.0) : e.splat(e.fc(0.0), lanes);
    SmallVector<Value> sum = e.loop(
        first, end, e.idx(1), ValueRange{zero},
        [&](Value i, ValueRange acc) -> SmallVector<Value> {
          Value position = e.sub(toIndex(kb, l, e.load(sorted.keys, i)), base);
          Value row = lanes == 1 ? e.load(grad, {position, d})
                                 : e.vload(grad, {position, d}, lanes, align);
          return {e.fadd(acc[0], row)};
        });
    // The loop runs N / V times on average over the work items (each
    // position is in one segment): for the cost model.
    cast<scf::ForOp>(sum[0].getDefiningOp())
        ->setAttr(kSegmentsAttr,
                  kb.getDenseI64ArrayAttr({sorted.positions, rows}));
    if (lanes == 1)
      e.store(sum[0], out, {v, d});
    else
      e.vstore(sum[0], out, {v, d}, align);
  });
  return bufferization::ToTensorOp::create(b, loc, outType, out,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

} // namespace

void lowerEmbeddingGradsSorted(func::FuncOp func) {
  // The embedding_grads of each block, grouped by their ids.
  llvm::MapVector<std::pair<Block *, Value>, SmallVector<EmbeddingGradOp>>
      groups;
  func.walk([&](EmbeddingGradOp op) {
    if (op.getResult().getType().hasStaticShape() &&
        op.getIds().getType().hasStaticShape())
      groups[{op->getBlock(), op.getIds()}].push_back(op);
  });
  for (auto &[key, ops] : groups) {
    // The largest table: one sort serves every table of at most its rows.
    int64_t rows = 0;
    for (EmbeddingGradOp op : ops)
      rows = std::max(rows, op.getResult().getType().getDimSize(0));
    // Before the first of them (the walk visits a block in order).
    OpBuilder b(ops.front());
    SortedPositions sorted =
        sortPositions(b, ops.front().getLoc(), key.second, rows);
    for (EmbeddingGradOp op : ops) {
      b.setInsertionPoint(op);
      Value r = segmentedSum(b, op.getLoc(), op, sorted);
      op.getResult().replaceAllUsesWith(r);
      op.erase();
    }
  }
}

} // namespace gptc::lowering
