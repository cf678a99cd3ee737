//===- AttentionRegisterTiles.cpp - CPU flash-attention micro-kernels -----===//
//
// See AttentionRegisterTiles.h. Both kernels are the micro-kernel of a
// GEMM: per step of the reduction, kVectorsPerRow vector loads of the
// shared operand and kGroupRows broadcasts of the group's own feed
// kGroupRows x kVectorsPerRow vector fmas into accumulators carried by the
// reduction loop (scf.for iter_args, registers after LLVM). Columns past
// the last whole register tile take the scalar loop, in the same order.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/AttentionRegisterTiles.h"

using namespace mlir;

namespace gptc::lowering {

void groupTimesTile(KernelEmitter &e, Value s, int64_t width, Value xs,
                    int64_t rows, Value tile, Value count, int64_t D) {
  Value zero = e.fc(0.0);
  Value rowStart[kGroupRows];
  for (int64_t k = 0; k < rows; ++k)
    rowStart[k] = e.idx(k * width);
  Value whole = e.mul(e.div(count, e.idx(kTileLanes)), e.idx(kTileLanes));
  e.loop(e.idx(0), whole, e.idx(kTileLanes), {}, [&](Value c0, ValueRange) {
    SmallVector<Value> at;
    for (int64_t j = 0; j < kVectorsPerRow; ++j)
      at.push_back(e.add(c0, e.idx(j * kVectorLanes)));
    SmallVector<Value> init(rows * kVectorsPerRow, e.splat(zero, kVectorLanes));
    SmallVector<Value> sums =
        e.loop(e.idx(0), e.idx(D), e.idx(1), init, [&](Value d, ValueRange a) {
          SmallVector<Value> t, next;
          for (Value c : at)
            t.push_back(e.vload(tile, {d, c}, kVectorLanes));
          for (int64_t k = 0; k < rows; ++k) {
            Value x = e.splat(e.load(xs, {e.idx(k), d}), kVectorLanes);
            for (int64_t j = 0; j < kVectorsPerRow; ++j)
              next.push_back(e.fma(x, t[j], a[k * kVectorsPerRow + j]));
          }
          return next;
        });
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t j = 0; j < kVectorsPerRow; ++j)
        e.vstore(sums[k * kVectorsPerRow + j], s, {e.add(rowStart[k], at[j])});
    return SmallVector<Value>{};
  });
  e.loop(whole, count, [&](Value c) {
    SmallVector<Value> init(rows, zero);
    SmallVector<Value> sums =
        e.loop(e.idx(0), e.idx(D), e.idx(1), init, [&](Value d, ValueRange a) {
          Value t = e.load(tile, {d, c});
          SmallVector<Value> next;
          for (int64_t k = 0; k < rows; ++k)
            next.push_back(e.fma(e.load(xs, {e.idx(k), d}), t, a[k]));
          return next;
        });
    for (int64_t k = 0; k < rows; ++k)
      e.store(sums[k], s, {e.add(rowStart[k], c)});
  });
  e.loop(count, e.idx(width), [&](Value c) {
    for (int64_t k = 0; k < rows; ++k)
      e.store(zero, s, {e.add(rowStart[k], c)});
  });
}

void accumulateRowGroup(KernelEmitter &e, Value acc, ArrayRef<Value> slots,
                        Value w, int64_t width, Value count, Value src, Value b,
                        Value h, Value first, int64_t D) {
  const int64_t rows = slots.size();
  e.loop(e.idx(0), e.idx(D), e.idx(kTileLanes), {}, [&](Value d0, ValueRange) {
    SmallVector<Value> at, init;
    for (int64_t j = 0; j < kVectorsPerRow; ++j)
      at.push_back(e.add(d0, e.idx(j * kVectorLanes)));
    for (int64_t k = 0; k < rows; ++k)
      for (Value d : at)
        init.push_back(e.vload(acc, {slots[k], d}, kVectorLanes));
    SmallVector<Value> sums =
        e.loop(e.idx(0), count, e.idx(1), init, [&](Value c, ValueRange a) {
          Value row = e.add(first, c);
          SmallVector<Value> v, next;
          for (Value d : at)
            v.push_back(e.vload(src, {b, h, row, d}, kVectorLanes));
          for (int64_t k = 0; k < rows; ++k) {
            Value x =
                e.splat(e.load(w, {e.add(e.idx(k * width), c)}), kVectorLanes);
            for (int64_t j = 0; j < kVectorsPerRow; ++j)
              next.push_back(e.fma(x, v[j], a[k * kVectorsPerRow + j]));
          }
          return next;
        });
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t j = 0; j < kVectorsPerRow; ++j)
        e.vstore(sums[k * kVectorsPerRow + j], acc, {slots[k], at[j]});
    return SmallVector<Value>{};
  });
}

} // namespace gptc::lowering
