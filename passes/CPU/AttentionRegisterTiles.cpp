//===- AttentionRegisterTiles.cpp - CPU flash-attention micro-kernels -----===//
//
// See AttentionRegisterTiles.h. Both products are the micro-kernel of a
// GEMM: per step of the reduction, kVectorsPerRow vector loads of the
// shared operand and kGroupRows broadcasts of the group's own feed
// kGroupRows x kVectorsPerRow vector fmas into accumulators carried by the
// reduction loop (scf.for iter_args, registers after LLVM). Columns past
// the last whole register tile take the scalar loop, in the same order.
// The staged tiles are transposed as 8 x 8 blocks of vector shuffles.
//
//===----------------------------------------------------------------------===//

#include "passes/CPU/AttentionRegisterTiles.h"

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

namespace {

/// The columns of the 8 x 8 block whose rows are `rows`, as vectors: three
/// rounds of two-source shuffles (x86: unpck, shufps, perm2f128).
SmallVector<Value> transpose8x8(KernelEmitter &e, ArrayRef<Value> rows) {
  static_assert(kVectorLanes == 8, "an 8 x 8 transpose");
  auto pairs = [&](ArrayRef<Value> in, ArrayRef<int64_t> lo,
                   ArrayRef<int64_t> hi, int64_t stride) {
    // out[i], out[i + stride] from in[i], in[i + stride] for the first
    // `stride` of every 2 * stride inputs.
    SmallVector<Value> out(in.size());
    for (size_t base = 0; base < in.size(); base += 2 * stride)
      for (int64_t i = 0; i < stride; ++i) {
        Value x = in[base + i], y = in[base + i + stride];
        out[base + i] = e.shuffle(x, y, lo);
        out[base + i + stride] = e.shuffle(x, y, hi);
      }
    return out;
  };
  // Rows r0..r7 (r_i[j] = element (i, j)). After round 1, t[2k] / t[2k+1]
  // interleave rows 2k and 2k+1 (elements 0, 1, 4, 5 / 2, 3, 6, 7).
  SmallVector<Value> t =
      pairs(rows, {0, 8, 1, 9, 4, 12, 5, 13}, {2, 10, 3, 11, 6, 14, 7, 15}, 1);
  // Round 2: u[4q + k] holds elements m[k] and m[k] + 4 of rows 4q ..
  // 4q + 3, m = 0, 2, 1, 3 (t[4q + 0/1] pairs with t[4q + 2/3]).
  SmallVector<Value> u =
      pairs(t, {0, 1, 8, 9, 4, 5, 12, 13}, {2, 3, 10, 11, 6, 7, 14, 15}, 2);
  // Round 3 joins the two groups' halves into columns.
  SmallVector<Value> cols(8);
  const int64_t m[4] = {0, 2, 1, 3};
  for (int64_t k = 0; k < 4; ++k) {
    cols[m[k]] = e.shuffle(u[k], u[k + 4], {0, 1, 2, 3, 8, 9, 10, 11});
    cols[m[k] + 4] = e.shuffle(u[k], u[k + 4], {4, 5, 6, 7, 12, 13, 14, 15});
  }
  return cols;
}

} // namespace

void loadTransposedOnCpu(KernelEmitter &e, Value dst, Value src, Value b,
                         Value h, Value first, Value count, int64_t D) {
  const int64_t n = kVectorLanes;
  Value whole = e.idx(0);
  if (cast<MemRefType>(src.getType()).getElementType().isF32() && D % n == 0) {
    whole = e.mul(e.div(count, e.idx(n)), e.idx(n));
    e.loop(e.idx(0), whole, e.idx(n), {}, [&](Value c0, ValueRange) {
      e.loop(e.idx(0), e.idx(D), e.idx(n), {}, [&](Value d0, ValueRange) {
        SmallVector<Value> rows;
        for (int64_t i = 0; i < n; ++i)
          rows.push_back(
              e.vload(src, {b, h, e.add(first, e.add(c0, e.idx(i))), d0}, n));
        SmallVector<Value> cols = transpose8x8(e, rows);
        for (int64_t j = 0; j < n; ++j)
          e.vstore(cols[j], dst, {e.add(d0, e.idx(j)), c0});
        return SmallVector<Value>{};
      });
      return SmallVector<Value>{};
    });
  }
  e.loop(whole, count, [&](Value c) {
    Value row = e.add(first, c);
    e.loop(D,
           [&](Value d) { e.store(e.load(src, {b, h, row, d}), dst, {d, c}); });
  });
}

} // namespace gptc::lowering
