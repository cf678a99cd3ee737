//===- AttentionTensorCoreTiles.cpp - Tensor-core attention pieces --------===//
//
// See AttentionTensorCoreTiles.h.
//
//===----------------------------------------------------------------------===//

#include "passes/GPU/AttentionTensorCoreTiles.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace gptc::lowering::tensor_cores {

using arith::CmpIPredicate;

Lane laneOf(KernelEmitter &e, Value thread) {
  Lane at;
  at.thread = thread;
  at.lane = e.rem(thread, e.idx(32));
  at.warp = e.div(thread, e.idx(32));
  at.g = e.div(at.lane, e.idx(4));
  at.t = e.rem(at.lane, e.idx(4));
  return at;
}

Value TensorCoreEmitter::i32(int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value TensorCoreEmitter::sharedTile(int64_t rows) {
  return sharedTile(rows, p.D);
}

Value TensorCoreEmitter::sharedTile(int64_t rows, int64_t cols) {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({rows, cols + kPad}, b.getBF16Type(),
                              MemRefLayoutAttrInterface(), space);
  auto alloca = memref::AllocaOp::create(b, loc, type);
  alloca->setAttr(kWorkgroupTileAttr, b.getUnitAttr());
  return alloca;
}

void TensorCoreEmitter::storeFragment(const Acc &c, Value tile, Value row0,
                                      Value col0) {
  Value col = e.add(col0, e.mul(at.t, e.idx(2)));
  for (int64_t h = 0; h < 2; ++h) {
    Value pair = bf16Pair(c[2 * h], c[2 * h + 1]);
    Value row = e.add(row0, e.add(at.g, e.idx(8 * h)));
    vector::StoreOp::create(b, loc, pair, tile, ValueRange{row, col});
  }
}

void TensorCoreEmitter::stage(Value tile, Value tileRow, Value src, Value batch,
                              Value head, Value first, int64_t rows) {
  const int64_t perRow = p.D / kChunk;
  const int64_t chunks = rows * perRow;
  for (int64_t k = 0; k * threads < chunks; ++k) {
    Value x = e.add(at.thread, e.idx(k * threads));
    OpBuilder::InsertionGuard guard(b);
    if ((k + 1) * threads > chunks) {
      auto inside = scf::IfOp::create(
          b, loc, e.cmp(arith::CmpIPredicate::slt, x, e.idx(chunks)), false);
      b.setInsertionPointToStart(inside.thenBlock());
    }
    Value r = e.div(x, e.idx(perRow));
    Value c = e.mul(e.rem(x, e.idx(perRow)), e.idx(kChunk));
    Value row = e.min(e.add(first, r), e.idx(p.T - 1));
    // cp.async.cg: 16 bytes from global to shared, through L2 only, with
    // no register in between.
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tile, ValueRange{e.add(tileRow, r), c}, src,
        ValueRange{batch, head, row, c}, b.getIndexAttr(kChunk),
        /*srcElements=*/Value(), b.getUnitAttr());
  }
}

void TensorCoreEmitter::commit() {
  mlir::gptgpu::AsyncCopyCommitOp::create(b, loc);
}

void TensorCoreEmitter::waitCopies() {
  mlir::gptgpu::AsyncCopyWaitOp::create(b, loc, 0);
}

void TensorCoreEmitter::staged() {
  commit();
  waitCopies();
  barrier();
}

SmallVector<Value> TensorCoreEmitter::registers(Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  SmallVector<Value> regs;
  for (int64_t i = 0; i < type.getDimSize(0); ++i) {
    Value pair = vector::ExtractOp::create(b, loc, fragment, i);
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    regs.push_back(vector::ExtractOp::create(b, loc, word, 0));
  }
  return regs;
}

SmallVector<Value> TensorCoreEmitter::ldmatrix(Value tile, Value row, Value col,
                                               int64_t tiles, bool transpose) {
  auto type = VectorType::get({tiles, 2}, b.getBF16Type());
  Value fragment =
      nvgpu::LdMatrixOp::create(b, loc, type, tile, ValueRange{row, col},
                                transpose, static_cast<uint32_t>(tiles));
  return registers(fragment);
}

Value TensorCoreEmitter::bf16Pair(Value lo, Value hi) {
  Type bf16 = b.getBF16Type();
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, bf16),
      ValueRange{arith::TruncFOp::create(b, loc, bf16, lo),
                 arith::TruncFOp::create(b, loc, bf16, hi)});
}

Value TensorCoreEmitter::pack(Value lo, Value hi) {
  Value pair = bf16Pair(lo, hi);
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, word, 0);
}

Acc TensorCoreEmitter::mma(ArrayRef<Value> a, ArrayRef<Value> bReg,
                           const Acc &c) {
  auto d = gptgpu::WarpMmaOp::create(b, loc, a[0], a[1], a[2], a[3], bReg[0],
                                     bReg[1], c[0], c[1], c[2], c[3]);
  return {d.getD0(), d.getD1(), d.getD2(), d.getD3()};
}

Value TensorCoreEmitter::quad(Value x, bool sum) {
  for (int64_t offset : {1, 2}) {
    Value other = gpu::ShuffleOp::create(b, loc, x, i32(offset), i32(32),
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    x = sum ? e.fadd(x, other) : e.fmax(x, other);
  }
  return x;
}

Acc TensorCoreEmitter::zeros() {
  Value z = e.fc(0.0);
  return {z, z, z, z};
}

void queryTileKernel(
    OpBuilder &b, Location loc, const AttentionProblem &p, Value lo, Value hi,
    int64_t keyCols, int64_t bufferRows,
    llvm::function_ref<void(KernelEmitter &, TensorCoreEmitter &,
                            const QueryTile &)>
        body) {
  const int64_t tiles = (p.T + kQueryRows - 1) / kQueryRows;
  Type f32 = b.getF32Type();
  parallelKernel(
      b, loc, f32, p.B * p.H * tiles, [&](KernelEmitter &outer, Value w) {
        QueryTile qt;
        qt.keyCols = keyCols;
        Value tile = outer.rem(w, outer.idx(tiles));
        Value bh = outer.div(w, outer.idx(tiles));
        qt.batch = outer.div(bh, outer.idx(p.H));
        qt.head = outer.rem(bh, outer.idx(p.H));
        parallelKernel(
            outer.builder(), loc, f32, kThreads,
            [&](KernelEmitter &e, Value thread) {
              Lane at = laneOf(e, thread);
              TensorCoreEmitter tc(e, p, at);
              // Two buffers each of K and V, used in turn: a tile is staged
              // into one while no warp can still read it (all passed the
              // barrier after the other was staged), so one barrier per tile
              // suffices; and the fragments' addresses depend on the buffer,
              // so none is kept live in registers across the loop.
              qt.kt = tc.sharedTile(std::max(2 * keyCols, bufferRows));
              qt.vt = tc.sharedTile(std::max(2 * keyCols, bufferRows));
              qt.i0 = e.mul(tile, e.idx(kQueryRows));
              Value warpRow = e.add(qt.i0, e.mul(at.warp, e.idx(16)));
              qt.rows[0] = e.add(warpRow, at.g);
              qt.rows[1] = e.add(warpRow, e.add(at.g, e.idx(8)));
              for (int64_t h = 0; h < 2; ++h) {
                Value clamped = e.min(qt.rows[h], e.idx(p.T - 1));
                qt.rowLo[h] = e.loadIndex(lo, {qt.batch, clamped});
                qt.rowHi[h] = e.loadIndex(hi, {qt.batch, clamped});
              }
              Value last = e.min(e.add(qt.i0, e.idx(kQueryRows)), e.idx(p.T));
              qt.begin = e.loadIndex(lo, {qt.batch, qt.i0});
              qt.end = e.add(e.loadIndex(hi, {qt.batch, e.sub(last, e.idx(1))}),
                             e.idx(1));
              qt.maxLo = e.loadIndex(lo, {qt.batch, e.sub(last, e.idx(1))});
              qt.minHi = e.loadIndex(hi, {qt.batch, qt.i0});
              body(e, tc, qt);
            });
      });
}

SmallVector<Acc>
timesRowsOf(KernelEmitter &e, TensorCoreEmitter &tc, int64_t cols,
            llvm::function_ref<SmallVector<Value>(int64_t)> aOf, Value tile,
            Value first) {
  const int64_t keyTiles = cols / 8;
  SmallVector<Acc> s(keyTiles, tc.zeros());
  // One ldmatrix.x4 gives the B fragments of two key tiles: lanes 0-15
  // address tile n's 8 rows (k halves 0-7, 8-15), lanes 16-31 tile n + 1's.
  Value row = e.add(first, e.add(e.rem(tc.at.lane, e.idx(8)),
                                 e.mul(e.div(tc.at.lane, e.idx(16)),
                                       e.idx(keyTiles > 1 ? 8 : 0))));
  Value col = e.mul(e.rem(e.div(tc.at.lane, e.idx(8)), e.idx(2)), e.idx(8));
  for (int64_t ks = 0; ks < tc.p.D / 16; ++ks) {
    SmallVector<Value> a = aOf(ks);
    for (int64_t n = 0; n < keyTiles; n += 2) {
      const bool pair = n + 1 < keyTiles;
      SmallVector<Value> bReg = tc.ldmatrix(tile, e.add(e.idx(8 * n), row),
                                            e.add(e.idx(16 * ks), col),
                                            pair ? 4 : 2, /*transpose=*/false);
      s[n] = tc.mma(a, {bReg[0], bReg[1]}, s[n]);
      if (pair)
        s[n + 1] = tc.mma(a, {bReg[2], bReg[3]}, s[n + 1]);
    }
  }
  return s;
}

SmallVector<Value> rowFragment(KernelEmitter &e, TensorCoreEmitter &tc,
                               Value tile, int64_t ks, Value group) {
  Value row = e.add(e.mul(group ? group : tc.at.warp, e.idx(16)),
                    e.rem(tc.at.lane, e.idx(16)));
  Value col =
      e.add(e.idx(16 * ks), e.mul(e.div(tc.at.lane, e.idx(16)), e.idx(8)));
  return tc.ldmatrix(tile, row, col, 4, /*transpose=*/false);
}

SmallVector<SmallVector<Value>> rowFragments(KernelEmitter &e,
                                             TensorCoreEmitter &tc,
                                             const QueryTile &qt, Value src,
                                             Value through) {
  tc.stage(through, e.idx(0), src, qt.batch, qt.head, qt.i0, kQueryRows);
  tc.staged();
  SmallVector<SmallVector<Value>> fragments;
  for (int64_t ks = 0; ks < tc.p.D / 16; ++ks)
    fragments.push_back(rowFragment(e, tc, through, ks));
  return fragments;
}

void accumulateTimesTile(KernelEmitter &e, TensorCoreEmitter &tc,
                         ArrayRef<Acc> w, Value tile, Value first,
                         MutableArrayRef<Acc> acc, bool paired) {
  accumulateFragmentsTimesTile(
      e, tc, int64_t(w.size()) / 2,
      [&](int64_t ks) -> SmallVector<Value> {
        const Acc &left = w[2 * ks], &right = w[2 * ks + 1];
        return {tc.pack(left[0], left[1]), tc.pack(left[2], left[3]),
                tc.pack(right[0], right[1]), tc.pack(right[2], right[3])};
      },
      tile, first, e.idx(0), acc, paired);
}

void accumulateFragmentsTimesTile(
    KernelEmitter &e, TensorCoreEmitter &tc, int64_t steps,
    llvm::function_ref<SmallVector<Value>(int64_t)> aOf, Value tile,
    Value first, Value firstCol, MutableArrayRef<Acc> acc, bool paired) {
  // One ldmatrix.x4.trans gives the B fragments of two column tiles:
  // lanes 0-15 address the 16 rows at columns 8 dn, lanes 16-31 at 8 dn + 8.
  const int64_t dTiles = acc.size();
  Value row = e.add(first, e.rem(tc.at.lane, e.idx(16)));
  Value colOffset;
  if (paired)
    colOffset = e.mul(e.div(tc.at.lane, e.idx(16)), e.idx(dTiles > 1 ? 8 : 0));
  for (int64_t ks = 0; ks < steps; ++ks) {
    SmallVector<Value> a = aOf(ks);
    for (int64_t dn = 0; dn < dTiles; dn += paired ? 2 : 1) {
      const bool pair = paired && dn + 1 < dTiles;
      Value col = e.add(firstCol, e.idx(8 * dn));
      if (paired)
        col = e.add(col, colOffset);
      SmallVector<Value> bReg =
          tc.ldmatrix(tile, e.add(e.idx(16 * ks), row), col, pair ? 4 : 2,
                      /*transpose=*/true);
      acc[dn] = tc.mma(a, {bReg[0], bReg[1]}, acc[dn]);
      if (pair)
        acc[dn + 1] = tc.mma(a, {bReg[2], bReg[3]}, acc[dn + 1]);
    }
  }
}

Value allowedAt(KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt,
                Value j0, int64_t n, int64_t i) {
  int64_t h = i / 2;
  Value key = e.add(j0, e.add(e.idx(8 * n + i % 2), e.mul(tc.at.t, e.idx(2))));
  return e.both(e.cmp(CmpIPredicate::sge, key, qt.rowLo[h]),
                e.cmp(CmpIPredicate::sle, key, qt.rowHi[h]));
}

int64_t edgeTiles(const AttentionProblem &p, int64_t span, int64_t tile) {
  const int64_t perEdge = (span - 1 + tile - 1) / tile + 1;
  return (p.mask.getCausal() ? perEdge : 0) +
         (p.mask.hasWindow() ? perEdge : 0);
}

SmallVector<Acc>
edgeMasked(KernelEmitter &e, Value interior, int64_t tiles, int64_t edges,
           llvm::function_ref<Value(int64_t, int64_t, bool)> value) {
  OpBuilder &b = e.builder();
  Location loc = e.location();
  SmallVector<Type> types(4 * tiles, e.floatType());
  auto branch = scf::IfOp::create(b, loc, types, interior, true);
  branch->setAttr(kEdgeTilesAttr, b.getI64IntegerAttr(edges));
  for (bool whole : {true, false}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(whole ? branch.thenBlock() : branch.elseBlock());
    SmallVector<Value> values;
    for (int64_t n = 0; n < tiles; ++n)
      for (int64_t i = 0; i < 4; ++i)
        values.push_back(value(n, i, !whole));
    scf::YieldOp::create(b, loc, values);
  }
  SmallVector<Acc> out(tiles);
  for (int64_t n = 0; n < tiles; ++n)
    for (int64_t i = 0; i < 4; ++i)
      out[n][i] = branch.getResult(4 * n + i);
  return out;
}

SmallVector<Acc> maskedTile(KernelEmitter &e, TensorCoreEmitter &tc,
                            const QueryTile &qt, Value j0, Value interior,
                            int64_t tiles, Value fill,
                            llvm::function_ref<Value(int64_t, int64_t)> value) {
  return edgeMasked(
      e, interior, tiles, edgeTiles(tc.p, kQueryRows, qt.keyCols),
      [&](int64_t n, int64_t i, bool masked) {
        Value x = value(n, i);
        return masked ? e.select(allowedAt(e, tc, qt, j0, n, i), x, fill) : x;
      });
}

SmallVector<Value> forPrefetchedTiles(
    KernelEmitter &e, TensorCoreEmitter &tc, Value begin, Value end,
    int64_t step, ValueRange init,
    llvm::function_ref<void(Value, Value)> stageInto,
    llvm::function_ref<SmallVector<Value>(Value, Value, ValueRange)> body,
    llvm::function_ref<void()> afterLoop) {
  OpBuilder &b = e.builder();
  stageInto(begin, e.idx(0));
  tc.commit();
  // The buffer's first row (0, step, 0, ...) is carried along, not
  // computed from the position: a signed division and remainder by the
  // step would cost some fifteen 64-bit instructions an iteration.
  SmallVector<Value> initAndBuffer(init.begin(), init.end());
  initAndBuffer.push_back(e.idx(0));
  SmallVector<Value> results = e.loop(
      begin, end, e.idx(step), initAndBuffer,
      [&](Value first, ValueRange carriedAndBuffer) {
        Value buffer = carriedAndBuffer.back();
        ValueRange carried = carriedAndBuffer.drop_back();
        tc.waitCopies();
        tc.barrier();
        Value next = e.add(first, e.idx(step));
        auto more = scf::IfOp::create(
            b, e.location(), e.cmp(CmpIPredicate::slt, next, end), false);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(more.thenBlock());
          stageInto(next, e.sub(e.idx(step), buffer));
          tc.commit();
        }
        SmallVector<Value> out = body(first, buffer, carried);
        out.push_back(e.sub(e.idx(step), buffer));
        return out;
      });
  results.pop_back();
  if (afterLoop)
    afterLoop();
  // Nothing in flight at the end (the prologue's copies of an empty range).
  tc.waitCopies();
  return results;
}

SmallVector<Value> forKeyTiles(
    KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt, Value k,
    Value v, ValueRange init,
    llvm::function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)>
        body) {
  const int64_t keyCols = qt.keyCols;
  SmallVector<Value> results = forPrefetchedTiles(
      e, tc, qt.begin, qt.end, keyCols, init,
      [&](Value j0, Value buffer) {
        tc.stage(qt.kt, buffer, k, qt.batch, qt.head, j0, keyCols);
        tc.stage(qt.vt, buffer, v, qt.batch, qt.head, j0, keyCols);
      },
      [&](Value j0, Value buffer, ValueRange carried) {
        Value lastKey = e.add(j0, e.idx(keyCols - 1));
        Value interior = e.both(e.cmp(CmpIPredicate::sge, j0, qt.maxLo),
                                e.cmp(CmpIPredicate::sle, lastKey, qt.minHi));
        return body(j0, buffer, interior, carried);
      },
      [&] { markAttentionSpan(e, tc.p, kQueryRows); });
  return results;
}

void ifRowInside(KernelEmitter &e, const QueryTile &qt, int64_t h,
                 const AttentionProblem &p, llvm::function_ref<void()> body) {
  OpBuilder &b = e.builder();
  auto inside = scf::IfOp::create(
      b, e.location(), e.cmp(CmpIPredicate::slt, qt.rows[h], e.idx(p.T)),
      false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(inside.thenBlock());
  body();
}

void ifFirstOfQuad(KernelEmitter &e, TensorCoreEmitter &tc,
                   llvm::function_ref<void()> body) {
  OpBuilder &b = e.builder();
  auto first = scf::IfOp::create(
      b, e.location(), e.cmp(CmpIPredicate::eq, tc.at.t, e.idx(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(first.thenBlock());
  body();
}

} // namespace gptc::lowering::tensor_cores
