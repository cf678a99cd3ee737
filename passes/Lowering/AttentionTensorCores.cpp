//===- AttentionTensorCores.cpp - Tensor-core flash attention -------------===//
//
// See AttentionTensorCores.h. The fragments follow the PTX ISA's layouts
// for mma.m16n8k16 (lane = 4 g + t):
//   A (16 x 16, row):  a0 a1 (row g, k 2t, 2t+1), a2 a3 (row g + 8, same k),
//                      a4 a5 (row g, k 8 + 2t, +1), a6 a7 (row g + 8, ...)
//   B (16 x 8, col):   b0 b1 (k 2t, 2t+1, column g), b2 b3 (k 8 + 2t, +1)
//   C (16 x 8):        c0 c1 (row g, columns 2t, 2t+1), c2 c3 (row g + 8)
// so the scores of two neighbouring 8-key column tiles, rounded to bf16,
// are the A operand of the product with V as they stand (FlashAttention-2
// keeps P in registers the same way), and every row's statistics are
// shared by the four lanes of a quad (two butterfly shuffles).
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/AttentionTensorCores.h"
#include "passes/Lowering/KernelEmitter.h"

#include "dialects/GPT/GPTDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>
#include <map>

using namespace mlir;

namespace gptc::lowering {
namespace {

using arith::CmpFPredicate;
using arith::CmpIPredicate;

constexpr int64_t kWarps = 4;
constexpr int64_t kThreads = 32 * kWarps;
/// Query rows per block (16 per warp) and keys per staged tile.
constexpr int64_t kQueryRows = 16 * kWarps;
/// Keys per staged tile: 64, or 32 for head dimensions over 64 (two
/// buffers of K and V then stay within 48 KiB of static shared memory).
int64_t keyColsFor(int64_t D) { return D > 64 ? 32 : 64; }
/// Shared rows are padded by 8 bf16 (16 bytes): the eight row addresses of
/// an ldmatrix then fall in different banks.
constexpr int64_t kPad = 8;
/// bf16 elements per vectorised global load (16 bytes).
constexpr int64_t kChunk = 8;
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Scores are kept in base 2 (FlashAttention's exp2 form): s log2(e) with the
/// softmax scale folded in, so that exp(x) = 2^(x log2 e) is one ex2 and the
/// scale one multiply (or the FMA that also subtracts the row's statistic).
constexpr double kLog2e = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

/// A 16x8 f32 accumulator: c0..c3 of this lane.
using Acc = std::array<Value, 4>;

/// The lane's coordinates in its warp and block.
struct Lane {
  Value thread, lane, warp, g, t;
};

/// Thread `thread` of a block as a lane of its warp (g = lane / 4,
/// t = lane mod 4: the fragments' row and column pair).
Lane laneOf(KernelEmitter &e, Value thread) {
  Lane at;
  at.thread = thread;
  at.lane = e.rem(thread, e.idx(32));
  at.warp = e.div(thread, e.idx(32));
  at.g = e.div(at.lane, e.idx(4));
  at.t = e.rem(at.lane, e.idx(4));
  return at;
}

class TensorCoreEmitter {
public:
  TensorCoreEmitter(KernelEmitter &e, const AttentionProblem &p, Lane at,
                    int64_t threads = kThreads)
      : e(e), b(e.builder()), loc(e.location()), p(p), at(at),
        threads(threads) {}

  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }

  /// A shared tile of `rows` x (D + pad) bf16 in workgroup memory.
  Value sharedTile(int64_t rows) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get({rows, p.D + kPad}, b.getBF16Type(),
                                MemRefLayoutAttrInterface(), space);
    auto alloca = memref::AllocaOp::create(b, loc, type);
    alloca->setAttr(kWorkgroupTileAttr, b.getUnitAttr());
    return alloca;
  }

  /// tile[at + r][:] = src[batch, head, min(first + r, T - 1)][:] for
  /// r < rows, 16 bytes per load and store (aligned: D is a multiple of 16,
  /// the arena's buffers of 64 bytes, the padded shared rows of 16),
  /// consecutive threads along a row. The caller places the barrier.
  /// Rows past the sequence repeat its last row (finite values, which the
  /// mask or the final store leaves out).
  void stage(Value tile, Value tileRow, Value src, Value batch, Value head,
             Value first, int64_t rows) {
    const int64_t perRow = p.D / kChunk;
    const int64_t chunks = rows * perRow;
    auto vec = VectorType::get({kChunk}, b.getBF16Type());
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
      Value chunk = vector::LoadOp::create(
          b, loc, vec, src, ValueRange{batch, head, row, c},
          /*nontemporal=*/false, llvm::MaybeAlign(kChunk * 2));
      vector::StoreOp::create(
          b, loc, chunk, tile, ValueRange{e.add(tileRow, r), c},
          /*nontemporal=*/false, llvm::MaybeAlign(kChunk * 2));
    }
  }

  void barrier() { gpt::BlockBarrierOp::create(b, loc); }

  /// The 32-bit registers of an ldmatrix result (vector<Nx2xbf16>).
  SmallVector<Value> registers(Value fragment) {
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

  /// ldmatrix of `tiles` 8x8 matrices of `tile` at this lane's row and
  /// column (each lane gives one row address), transposed or not.
  SmallVector<Value> ldmatrix(Value tile, Value row, Value col, int64_t tiles,
                              bool transpose) {
    auto type = VectorType::get({tiles, 2}, b.getBF16Type());
    Value fragment =
        nvgpu::LdMatrixOp::create(b, loc, type, tile, ValueRange{row, col},
                                  transpose, static_cast<uint32_t>(tiles));
    return registers(fragment);
  }

  /// Two f32 values rounded to bf16 and packed into one register (the
  /// first in the low half).
  Value pack(Value lo, Value hi) {
    Type bf16 = b.getBF16Type();
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, bf16),
        ValueRange{arith::TruncFOp::create(b, loc, bf16, lo),
                   arith::TruncFOp::create(b, loc, bf16, hi)});
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, 0);
  }

  /// c + a b by one mma.sync.m16n8k16 (bf16 operands, f32 accumulator).
  Acc mma(ArrayRef<Value> a, ArrayRef<Value> bReg, const Acc &c) {
    auto d = gpt::WarpMmaOp::create(b, loc, a[0], a[1], a[2], a[3], bReg[0],
                                    bReg[1], c[0], c[1], c[2], c[3]);
    return {d.getD0(), d.getD1(), d.getD2(), d.getD3()};
  }

  /// x combined with the values of the lanes 1 and 2 apart (the quad).
  Value quad(Value x, bool sum) {
    for (int64_t offset : {1, 2}) {
      Value other = gpu::ShuffleOp::create(b, loc, x, i32(offset), i32(32),
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      x = sum ? e.fadd(x, other) : e.fmax(x, other);
    }
    return x;
  }

  Acc zeros() {
    Value z = e.fc(0.0);
    return {z, z, z, z};
  }

  KernelEmitter &e;
  OpBuilder &b;
  Location loc;
  const AttentionProblem &p;
  Lane at;
  int64_t threads; ///< of the block, which stage() shares the work among
};

} // namespace

bool tensorCoreAttentionFits(const AttentionProblem &p) {
  return p.D % 16 == 0 && p.D <= 128 && p.D > 0;
}

namespace {

/// What every tensor-core kernel over a tile of 64 queries starts from:
/// this lane's two query rows (g and g + 8 of its warp's 16), their key
/// bounds (rows clamped to the sequence), the tile's key range, and the
/// double-buffered K and V tiles.
struct QueryTile {
  int64_t keyCols; ///< keys per staged tile
  Value batch, head, i0;
  Value rows[2], rowLo[2], rowHi[2];
  Value begin, end;
  /// The largest first key and the smallest last key of the tile's rows
  /// (the bounds never decrease along the queries): a key tile inside
  /// [maxLo, minHi] needs no mask.
  Value maxLo, minHi;
  Value kt, vt;
};

/// One kernel of (batch, head, 64-query tile) blocks of 128 threads;
/// `body` emits a thread's work. K and V tiles of `keyCols` keys, in
/// buffers of at least `bufferRows` rows together.
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
                qt.rowLo[h] = e.load(lo, {qt.batch, clamped});
                qt.rowHi[h] = e.load(hi, {qt.batch, clamped});
              }
              Value last = e.min(e.add(qt.i0, e.idx(kQueryRows)), e.idx(p.T));
              qt.begin = e.load(lo, {qt.batch, qt.i0});
              qt.end = e.add(e.load(hi, {qt.batch, e.sub(last, e.idx(1))}),
                             e.idx(1));
              qt.maxLo = e.load(lo, {qt.batch, e.sub(last, e.idx(1))});
              qt.minHi = e.load(hi, {qt.batch, qt.i0});
              body(e, tc, qt);
            });
      });
}

/// a b^T for this warp's 16 rows of `a` (aOf(ks): the A fragment of
/// columns 16 ks .. 16 ks + 15) and the keyCols rows of `tile` from row
/// `first` (each row of the tile a column of the product: ldmatrix without
/// transpose).
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

/// The A fragment of this warp's 16 rows and columns 16 ks .. 16 ks + 15
/// of a 64-row tile (ldmatrix.x4).
SmallVector<Value> rowFragment(KernelEmitter &e, TensorCoreEmitter &tc,
                               Value tile, int64_t ks) {
  Value row = e.add(e.mul(tc.at.warp, e.idx(16)), e.rem(tc.at.lane, e.idx(16)));
  Value col =
      e.add(e.idx(16 * ks), e.mul(e.div(tc.at.lane, e.idx(16)), e.idx(8)));
  return tc.ldmatrix(tile, row, col, 4, /*transpose=*/false);
}

/// The A fragments (16 rows of this lane's warp) of the 64 rows of `src`
/// from the tile's first query, staged through `through` (>= 64 rows).
SmallVector<SmallVector<Value>> rowFragments(KernelEmitter &e,
                                             TensorCoreEmitter &tc,
                                             const QueryTile &qt, Value src,
                                             Value through) {
  tc.stage(through, e.idx(0), src, qt.batch, qt.head, qt.i0, kQueryRows);
  tc.barrier();
  SmallVector<SmallVector<Value>> fragments;
  for (int64_t ks = 0; ks < tc.p.D / 16; ++ks)
    fragments.push_back(rowFragment(e, tc, through, ks));
  return fragments;
}

/// acc[dn] += w tile for the keyCols x keyCols weights `w` (accumulator
/// registers, rounded to bf16 as A operands) and the keyCols rows of `tile`
/// from row `first` (B's rows: ldmatrix transposed). `paired`: two column
/// tiles a load (x4), else one (x2: two registers fewer live, for the
/// dK/dV kernel whose two accumulators fill the register file).
void accumulateTimesTile(KernelEmitter &e, TensorCoreEmitter &tc,
                         ArrayRef<Acc> w, Value tile, Value first,
                         MutableArrayRef<Acc> acc, bool paired = true) {
  // One ldmatrix.x4.trans gives the B fragments of two column tiles:
  // lanes 0-15 address the 16 rows at columns 8 dn, lanes 16-31 at 8 dn + 8.
  const int64_t dTiles = acc.size();
  if (!paired) {
    Value row = e.add(first, e.rem(tc.at.lane, e.idx(16)));
    for (int64_t ks = 0; ks < int64_t(w.size()) / 2; ++ks) {
      const Acc &left = w[2 * ks], &right = w[2 * ks + 1];
      SmallVector<Value> a = {
          tc.pack(left[0], left[1]), tc.pack(left[2], left[3]),
          tc.pack(right[0], right[1]), tc.pack(right[2], right[3])};
      for (int64_t dn = 0; dn < dTiles; ++dn) {
        SmallVector<Value> bReg =
            tc.ldmatrix(tile, e.add(e.idx(16 * ks), row), e.idx(8 * dn), 2,
                        /*transpose=*/true);
        acc[dn] = tc.mma(a, bReg, acc[dn]);
      }
    }
    return;
  }
  Value row = e.add(first, e.rem(tc.at.lane, e.idx(16)));
  Value colOffset =
      e.mul(e.div(tc.at.lane, e.idx(16)), e.idx(dTiles > 1 ? 8 : 0));
  for (int64_t ks = 0; ks < int64_t(w.size()) / 2; ++ks) {
    const Acc &left = w[2 * ks], &right = w[2 * ks + 1];
    SmallVector<Value> a = {
        tc.pack(left[0], left[1]), tc.pack(left[2], left[3]),
        tc.pack(right[0], right[1]), tc.pack(right[2], right[3])};
    for (int64_t dn = 0; dn < dTiles; dn += 2) {
      const bool pair = dn + 1 < dTiles;
      SmallVector<Value> bReg = tc.ldmatrix(tile, e.add(e.idx(16 * ks), row),
                                            e.add(e.idx(8 * dn), colOffset),
                                            pair ? 4 : 2, /*transpose=*/true);
      acc[dn] = tc.mma(a, {bReg[0], bReg[1]}, acc[dn]);
      if (pair)
        acc[dn + 1] = tc.mma(a, {bReg[2], bReg[3]}, acc[dn + 1]);
    }
  }
}

/// Whether key j0 + (column of accumulator element i of key tile n) is
/// allowed for this lane's row i / 2.
Value allowedAt(KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt,
                Value j0, int64_t n, int64_t i) {
  int64_t h = i / 2;
  Value key = e.add(j0, e.add(e.idx(8 * n + i % 2), e.mul(tc.at.t, e.idx(2))));
  return e.both(e.cmp(CmpIPredicate::sge, key, qt.rowLo[h]),
                e.cmp(CmpIPredicate::sle, key, qt.rowHi[h]));
}

/// The tiles of `tile` positions a mask edge crosses, per loop over the
/// positions that meet a block of `span` partners: a causal or window edge
/// touches at most (span - 1 + tile - 1) / tile + 1 of them at any
/// alignment (documents, known at run time, add more).
int64_t edgeTiles(const AttentionProblem &p, int64_t span, int64_t tile) {
  const int64_t perEdge = (span - 1 + tile - 1) / tile + 1;
  return (p.mask.getCausal() ? perEdge : 0) +
         (p.mask.hasWindow() ? perEdge : 0);
}

/// value(n, i, masked) for every accumulator element of `tiles` 8-column
/// tiles, masked = false when `interior` (uniform over the block, so the
/// warp does not diverge) says no element needs the mask: an scf.if
/// marked for the cost model with the iterations expected to take the
/// masked region (kEdgeTilesAttr).
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

/// value(n, i) for every accumulator element of the tile's `tiles` key
/// tiles, `fill` where the key is not allowed, the mask evaluated on the
/// key tiles a mask edge crosses only (edgeMasked).
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

/// The loop over the tile's key range, keyCols keys at a time, K and V
/// staged into the buffer of the iteration (then one barrier); body(j0,
/// first row of the buffer, whether every row sees every key of the tile,
/// carried) returns the next carried values.
SmallVector<Value> forKeyTiles(
    KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt, Value k,
    Value v, ValueRange init,
    llvm::function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)>
        body) {
  const int64_t keyCols = qt.keyCols;
  SmallVector<Value> results = e.loop(
      qt.begin, qt.end, e.idx(qt.keyCols), init,
      [&](Value j0, ValueRange carried) {
        Value buffer =
            e.mul(e.rem(e.div(e.sub(j0, qt.begin), e.idx(keyCols)), e.idx(2)),
                  e.idx(keyCols));
        tc.stage(qt.kt, buffer, k, qt.batch, qt.head, j0, keyCols);
        tc.stage(qt.vt, buffer, v, qt.batch, qt.head, j0, keyCols);
        tc.barrier();
        Value lastKey = e.add(j0, e.idx(keyCols - 1));
        Value interior = e.both(e.cmp(CmpIPredicate::sge, j0, qt.maxLo),
                                e.cmp(CmpIPredicate::sle, lastKey, qt.minHi));
        return body(j0, buffer, interior, carried);
      });
  markAttentionSpan(e, tc.p, kQueryRows);
  return results;
}

/// body() for this lane's rows that are inside the sequence.
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

/// body() in the first lane of each quad (a row's value, which the four
/// lanes of its quad hold alike, written once).
void ifFirstOfQuad(KernelEmitter &e, TensorCoreEmitter &tc,
                   llvm::function_ref<void()> body) {
  OpBuilder &b = e.builder();
  auto first = scf::IfOp::create(
      b, e.location(), e.cmp(CmpIPredicate::eq, tc.at.t, e.idx(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(first.thenBlock());
  body();
}

} // namespace

void emitTensorCoreAttentionForward(OpBuilder &b, Location loc,
                                    const AttentionProblem &p, Value lo,
                                    Value hi, Value q, Value k, Value v,
                                    AttentionOutput result) {
  const int64_t dTiles = p.D / 8;
  // The K buffers have room for Q's 64 rows, staged through them.
  queryTileKernel(
      b, loc, p, lo, hi, keyColsFor(p.D), kQueryRows,
      [&](KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt) {
        // Q's A fragments, staged through the K buffers (2 x keyCols >= 64
        // rows); a barrier before K overwrites them.
        SmallVector<SmallVector<Value>> qa = rowFragments(e, tc, qt, q, qt.kt);
        tc.barrier();
        // Carried: m (2 rows), l (2 rows, this lane's partial sums), acc.
        Value ninf = e.fc(-kInf);
        SmallVector<Value> init = {ninf, ninf, e.fc(0.0), e.fc(0.0)};
        for (int64_t i = 0; i < dTiles * 4; ++i)
          init.push_back(e.fc(0.0));
        SmallVector<Value> state = forKeyTiles(
            e, tc, qt, k, v, init,
            [&](Value j0, Value buffer, Value interior, ValueRange carried) {
              SmallVector<Acc> raw = timesRowsOf(
                  e, tc, qt.keyCols, [&](int64_t ks) { return qa[ks]; }, qt.kt,
                  buffer);
              // Scale (to base 2) and mask; the rows' maxima over the tile.
              Value scale = e.fc(p.scale * kLog2e);
              SmallVector<Acc> s =
                  maskedTile(e, tc, qt, j0, interior, raw.size(), ninf,
                             [&](int64_t n, int64_t i) {
                               return e.fmul(raw[n][i], scale);
                             });
              Value tileMax[2] = {ninf, ninf};
              for (int64_t n = 0; n < int64_t(s.size()); ++n)
                for (int64_t i = 0; i < 4; ++i)
                  tileMax[i / 2] = e.fmax(tileMax[i / 2], s[n][i]);
              // Online softmax per row: m, alpha, p = exp(s - m), l.
              SmallVector<Value> next;
              Value alpha[2], mSafe[2];
              for (int64_t h = 0; h < 2; ++h) {
                Value mNew = e.fmax(carried[h], tc.quad(tileMax[h], false));
                mSafe[h] = e.select(e.fcmp(CmpFPredicate::OEQ, mNew, ninf),
                                    e.fc(0.0), mNew);
                alpha[h] = e.exp2(e.fsub(carried[h], mSafe[h]));
                next.push_back(mNew);
              }
              Value rowSum[2] = {e.fc(0.0), e.fc(0.0)};
              for (Acc &tileScores : s)
                for (int64_t i = 0; i < 4; ++i) {
                  tileScores[i] = e.exp2(e.fsub(tileScores[i], mSafe[i / 2]));
                  rowSum[i / 2] = e.fadd(rowSum[i / 2], tileScores[i]);
                }
              for (int64_t h = 0; h < 2; ++h)
                next.push_back(
                    e.fadd(e.fmul(carried[2 + h], alpha[h]), rowSum[h]));
              SmallVector<Acc> acc(dTiles);
              for (int64_t dn = 0; dn < dTiles; ++dn)
                for (int64_t i = 0; i < 4; ++i)
                  acc[dn][i] = e.fmul(carried[4 + 4 * dn + i], alpha[i / 2]);
              // O += P V: P in bf16 from the scores' registers.
              accumulateTimesTile(e, tc, s, qt.vt, buffer, acc);
              for (const Acc &a : acc)
                next.append(a.begin(), a.end());
              return next;
            });
        // out = acc / l; lse = (m + log2(l)) ln 2 (m in base 2; -inf for a
        // row without keys).
        for (int64_t h = 0; h < 2; ++h) {
          Value l = tc.quad(state[2 + h], /*sum=*/true);
          Value inv = e.select(e.fcmp(CmpFPredicate::OGT, l, e.fc(0.0)),
                               e.fdiv(e.fc(1.0), l), e.fc(0.0));
          ifRowInside(e, qt, h, p, [&] {
            for (int64_t dn = 0; dn < dTiles; ++dn)
              for (int64_t c = 0; c < 2; ++c) {
                Value d = e.add(e.idx(8 * dn + c), e.mul(tc.at.t, e.idx(2)));
                e.store(e.fmul(state[4 + 4 * dn + 2 * h + c], inv), result.out,
                        {qt.batch, qt.head, qt.rows[h], d});
              }
            ifFirstOfQuad(e, tc, [&] {
              e.store(e.fmul(e.fadd(state[h], e.log2(l)), e.fc(kLn2)),
                      result.lse, {qt.batch, qt.head, qt.rows[h]});
            });
          });
        }
      });
}

void emitTensorCoreQueryGrad(OpBuilder &b, Location loc,
                             const AttentionProblem &p, Value lo, Value hi,
                             Value q, Value k, Value v, AttentionOutput forward,
                             Value dout, Value dq, Value delta) {
  const int64_t dTiles = p.D / 8;
  // Registers: dO's A fragments, dQ's accumulator, S and dP; Q stays in
  // shared memory (its fragments loaded per use), and the key tiles are
  // 16 wide over head_dim 64, so that head_dim 128 needs no local memory.
  const int64_t keyCols = p.D > 64 ? 16 : 64;
  queryTileKernel(
      b, loc, p, lo, hi, keyCols, 0,
      [&](KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt) {
        Value qTile = tc.sharedTile(kQueryRows);
        SmallVector<SmallVector<Value>> da =
            rowFragments(e, tc, qt, dout, qTile);
        tc.barrier();
        tc.stage(qTile, e.idx(0), q, qt.batch, qt.head, qt.i0, kQueryRows);
        tc.barrier();
        // Per row: the forward's lse, and delta = rowsum(dO * O) over this
        // lane's columns of the accumulator layout, summed over the quad.
        // lse in base 2, negated: P = 2^(s scale log2 e - lse log2 e) is
        // one FMA and one ex2.
        Value lse[2], rowDelta[2];
        for (int64_t h = 0; h < 2; ++h) {
          Value row = e.min(qt.rows[h], e.idx(p.T - 1));
          lse[h] = e.fmul(e.load(forward.lse, {qt.batch, qt.head, row}),
                          e.fc(-kLog2e));
          Value sum = e.fc(0.0);
          for (int64_t dn = 0; dn < dTiles; ++dn)
            for (int64_t c = 0; c < 2; ++c) {
              Value d = e.add(e.idx(8 * dn + c), e.mul(tc.at.t, e.idx(2)));
              Value g = arith::ExtFOp::create(
                  e.builder(), e.location(), e.floatType(),
                  e.load(dout, {qt.batch, qt.head, row, d}));
              sum = e.fma(g, e.load(forward.out, {qt.batch, qt.head, row, d}),
                          sum);
            }
          rowDelta[h] = tc.quad(sum, /*sum=*/true);
          ifRowInside(e, qt, h, p, [&] {
            ifFirstOfQuad(e, tc, [&] {
              e.store(rowDelta[h], delta, {qt.batch, qt.head, qt.rows[h]});
            });
          });
        }
        SmallVector<Value> init(dTiles * 4, e.fc(0.0));
        SmallVector<Value> state = forKeyTiles(
            e, tc, qt, k, v, init,
            [&](Value j0, Value buffer, Value interior, ValueRange carried) {
              // P = exp(scale q k^T - lse) where allowed; dP = dO V^T;
              // dS = P (dP - delta) scale.
              SmallVector<Acc> s = timesRowsOf(
                  e, tc, qt.keyCols,
                  [&](int64_t ks) { return rowFragment(e, tc, qTile, ks); },
                  qt.kt, buffer);
              SmallVector<Acc> dp = timesRowsOf(
                  e, tc, qt.keyCols, [&](int64_t ks) { return da[ks]; }, qt.vt,
                  buffer);
              Value scale = e.fc(p.scale), scale2 = e.fc(p.scale * kLog2e);
              SmallVector<Acc> probs = maskedTile(
                  e, tc, qt, j0, interior, s.size(), e.fc(0.0),
                  [&](int64_t n, int64_t i) {
                    return e.exp2(e.fma(s[n][i], scale2, lse[i / 2]));
                  });
              for (int64_t n = 0; n < int64_t(s.size()); ++n)
                for (int64_t i = 0; i < 4; ++i) {
                  Value pr = probs[n][i];
                  s[n][i] = e.fmul(
                      e.fmul(pr, e.fsub(dp[n][i], rowDelta[i / 2])), scale);
                }
              // dQ += dS K: dS in bf16 from its registers, K's rows as B's.
              SmallVector<Acc> acc(dTiles);
              for (int64_t dn = 0; dn < dTiles; ++dn)
                for (int64_t i = 0; i < 4; ++i)
                  acc[dn][i] = carried[4 * dn + i];
              accumulateTimesTile(e, tc, s, qt.kt, buffer, acc);
              SmallVector<Value> next;
              for (const Acc &a : acc)
                next.append(a.begin(), a.end());
              return next;
            });
        for (int64_t h = 0; h < 2; ++h)
          ifRowInside(e, qt, h, p, [&] {
            for (int64_t dn = 0; dn < dTiles; ++dn)
              for (int64_t c = 0; c < 2; ++c) {
                Value d = e.add(e.idx(8 * dn + c), e.mul(tc.at.t, e.idx(2)));
                e.store(state[4 * dn + 2 * h + c], dq,
                        {qt.batch, qt.head, qt.rows[h], d});
              }
          });
      });
}

void emitTensorCoreKeyValueGrad(OpBuilder &b, Location loc,
                                const AttentionProblem &p, Value lo, Value hi,
                                Value q, Value k, Value v, Value dout,
                                Value lse, Value delta, Value dk, Value dv) {
  const int64_t dTiles = p.D / 8;
  // A warp per 16 keys; K and V stay in shared memory (their A fragments
  // loaded per use), Q and dO are staged 16 queries at a time into two
  // buffers each (a lane's scores, their masks and the queries' lse and
  // delta stay few registers beside dK's and dV's accumulators). Over
  // head_dim 64: 2 warps (32 keys) a block, so that the four tiles stay
  // within 48 KiB.
  const int64_t warps = p.D > 64 ? 2 : 4, threads = 32 * warps;
  const int64_t keyRows = 16 * warps, queryCols = 16;
  const int64_t tiles = (p.T + keyRows - 1) / keyRows;
  Type f32 = b.getF32Type();
  parallelKernel(
      b, loc, f32, p.B * p.H * tiles, [&](KernelEmitter &outer, Value w) {
        Value tile = outer.rem(w, outer.idx(tiles));
        Value bh = outer.div(w, outer.idx(tiles));
        Value batch = outer.div(bh, outer.idx(p.H));
        Value head = outer.rem(bh, outer.idx(p.H));
        parallelKernel(
            outer.builder(), loc, f32, threads,
            [&](KernelEmitter &e, Value thread) {
              Lane at = laneOf(e, thread);
              TensorCoreEmitter tc(e, p, at, threads);
              Value kTile = tc.sharedTile(keyRows),
                    vTile = tc.sharedTile(keyRows);
              Value qBuf = tc.sharedTile(2 * queryCols);
              Value dBuf = tc.sharedTile(2 * queryCols);
              Value j0 = e.mul(tile, e.idx(keyRows));
              Value warpKey = e.add(j0, e.mul(at.warp, e.idx(16)));
              Value keys[2] = {e.add(warpKey, at.g),
                               e.add(warpKey, e.add(at.g, e.idx(8)))};
              Value jLast =
                  e.sub(e.min(e.add(j0, e.idx(keyRows)), e.idx(p.T)), e.idx(1));
              // The queries that see a key of the block: hi >= j0 and lo <=
              // jLast, one range since both bounds are non-decreasing
              // (bisection).
              Value qBegin = firstRowWhere(e, p.T, [&](Value i) {
                return e.cmp(CmpIPredicate::sge, e.load(hi, {batch, i}), j0);
              });
              Value qEnd = firstRowWhere(e, p.T, [&](Value i) {
                return e.cmp(CmpIPredicate::sgt, e.load(lo, {batch, i}), jLast);
              });
              // The block's K and V (read after the first tile's barrier).
              tc.stage(kTile, e.idx(0), k, batch, head, j0, keyRows);
              tc.stage(vTile, e.idx(0), v, batch, head, j0, keyRows);
              SmallVector<Value> init(2 * dTiles * 4, e.fc(0.0));
              SmallVector<Value> state = e.loop(
                  qBegin, qEnd, e.idx(queryCols), init,
                  [&](Value i0, ValueRange carried) {
                    Value buffer =
                        e.mul(e.rem(e.div(e.sub(i0, qBegin), e.idx(queryCols)),
                                    e.idx(2)),
                              e.idx(queryCols));
                    tc.stage(qBuf, buffer, q, batch, head, i0, queryCols);
                    tc.stage(dBuf, buffer, dout, batch, head, i0, queryCols);
                    tc.barrier();
                    // S^T = K Q^T and dP^T = V dO^T (this warp's 16 keys by the
                    // tile's queries); P^T = exp(scale S^T - lse) where
                    // allowed; dS^T = P^T (dP^T - delta) scale.
                    SmallVector<Acc> s = timesRowsOf(
                        e, tc, queryCols,
                        [&](int64_t ks) {
                          return rowFragment(e, tc, kTile, ks);
                        },
                        qBuf, buffer);
                    SmallVector<Acc> dp = timesRowsOf(
                        e, tc, queryCols,
                        [&](int64_t ks) {
                          return rowFragment(e, tc, vTile, ks);
                        },
                        dBuf, buffer);
                    // Per query column of this lane (8 n + 2 t + c): lse
                    // (base 2, negated) and delta, read once for both of
                    // the lane's keys; on the query tiles a mask edge
                    // crosses, its bounds too.
                    SmallVector<std::array<Value, 2>> colLse(s.size()),
                        colDelta(s.size());
                    auto queryOf = [&](int64_t n, int64_t c) {
                      return e.add(
                          i0, e.add(e.idx(8 * n + c), e.mul(at.t, e.idx(2))));
                    };
                    for (int64_t n = 0; n < int64_t(s.size()); ++n)
                      for (int64_t c = 0; c < 2; ++c) {
                        Value row = e.min(queryOf(n, c), e.idx(p.T - 1));
                        colLse[n][c] = e.fmul(e.load(lse, {batch, head, row}),
                                              e.fc(-kLog2e));
                        colDelta[n][c] = e.load(delta, {batch, head, row});
                      }
                    // Every query of the tile sees every key of the block
                    // (both bounds never decrease along the queries).
                    Value lastQuery = e.add(i0, e.idx(queryCols - 1));
                    Value interior = e.both(
                        e.cmp(CmpIPredicate::slt, lastQuery, e.idx(p.T)),
                        e.both(e.cmp(CmpIPredicate::sle,
                                     e.load(lo, {batch, e.min(lastQuery,
                                                              e.idx(p.T - 1))}),
                                     j0),
                               e.cmp(CmpIPredicate::sge,
                                     e.load(hi, {batch, i0}), jLast)));
                    Value scale = e.fc(p.scale),
                          scale2 = e.fc(p.scale * kLog2e);
                    // On an edge tile, each query column's bounds, read
                    // once (inside the masked region, so that nothing of
                    // them stays live across it).
                    std::map<std::pair<int64_t, int64_t>, std::array<Value, 3>>
                        bounds;
                    SmallVector<Acc> probs = edgeMasked(
                        e, interior, s.size(), edgeTiles(p, keyRows, queryCols),
                        [&](int64_t n, int64_t i, bool masked) {
                          Value pr =
                              e.exp2(e.fma(s[n][i], scale2, colLse[n][i % 2]));
                          if (!masked)
                            return pr;
                          auto [it, fresh] = bounds.try_emplace({n, i % 2});
                          if (fresh) {
                            Value query = queryOf(n, i % 2);
                            Value row = e.min(query, e.idx(p.T - 1));
                            it->second = {
                                e.cmp(CmpIPredicate::slt, query, e.idx(p.T)),
                                e.load(lo, {batch, row}),
                                e.load(hi, {batch, row})};
                          }
                          auto [inside, first, last] = it->second;
                          Value key = keys[i / 2];
                          Value ok = e.both(
                              inside,
                              e.both(e.cmp(CmpIPredicate::sge, key, first),
                                     e.cmp(CmpIPredicate::sle, key, last)));
                          return e.select(ok, pr, e.fc(0.0));
                        });
                    for (int64_t n = 0; n < int64_t(s.size()); ++n)
                      for (int64_t i = 0; i < 4; ++i) {
                        Value pr = probs[n][i];
                        dp[n][i] = e.fmul(
                            e.fmul(pr, e.fsub(dp[n][i], colDelta[n][i % 2])),
                            scale);
                        s[n][i] = pr;
                      }
                    // dK += dS^T Q and dV += P^T dO (bf16 weights from their
                    // registers; Q's and dO's rows as B's rows).
                    SmallVector<Acc> dkAcc(dTiles), dvAcc(dTiles);
                    for (int64_t dn = 0; dn < dTiles; ++dn)
                      for (int64_t i = 0; i < 4; ++i) {
                        dkAcc[dn][i] = carried[4 * dn + i];
                        dvAcc[dn][i] = carried[4 * (dTiles + dn) + i];
                      }
                    accumulateTimesTile(e, tc, dp, qBuf, buffer, dkAcc,
                                        /*paired=*/false);
                    accumulateTimesTile(e, tc, s, dBuf, buffer, dvAcc,
                                        /*paired=*/false);
                    SmallVector<Value> next;
                    for (const Acc &a : dkAcc)
                      next.append(a.begin(), a.end());
                    for (const Acc &a : dvAcc)
                      next.append(a.begin(), a.end());
                    return next;
                  });
              markAttentionSpan(e, p, keyRows);
              for (int64_t h = 0; h < 2; ++h) {
                OpBuilder &ob = e.builder();
                auto inside = scf::IfOp::create(
                    ob, loc, e.cmp(CmpIPredicate::slt, keys[h], e.idx(p.T)),
                    false);
                OpBuilder::InsertionGuard guard(ob);
                ob.setInsertionPointToStart(inside.thenBlock());
                for (int64_t dn = 0; dn < dTiles; ++dn)
                  for (int64_t c = 0; c < 2; ++c) {
                    Value d = e.add(e.idx(8 * dn + c), e.mul(at.t, e.idx(2)));
                    e.store(state[4 * dn + 2 * h + c], dk,
                            {batch, head, keys[h], d});
                    e.store(state[4 * (dTiles + dn) + 2 * h + c], dv,
                            {batch, head, keys[h], d});
                  }
              }
            });
      });
}

} // namespace gptc::lowering
