//===- AttentionKernels.cpp - Flash-attention loop nests ------------------===//
//
// See AttentionKernels.h. Tiles live in memref.alloca buffers of the work
// item (one query or key tile of one batch and head); the innermost loops
// run along contiguous tile rows so that they vectorise. The tiles loaded
// from K and V (forward, dQ) and from Q and dO (dK/dV) are shared tiles:
// on CUDA, where a work item is a thread block, they are staged in shared
// memory (gptc-workgroup-tiles); the others are per-row state. A Team
// says who works on a tile's rows: the work item itself, four rows at a
// time in register tiles (CPU, AttentionRegisterTiles.h; the rows left
// over, and head dimensions the tiles do not fit, row after row), or one
// thread per row with the shared tiles loaded by all the block's threads
// between barriers (GPU, AttentionTiling::threadPerRow).
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/AttentionKernels.h"
#include "passes/CPU/AttentionRegisterTiles.h"
#include "passes/Lowering/KernelEmitter.h"

#include <limits>

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

using arith::CmpFPredicate;
using arith::CmpIPredicate;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Work item w of B*H*tiles as (b, h, tile).
struct TileItem {
  Value b, h, tile;
};
TileItem decompose(KernelEmitter &e, Value w, int64_t H, int64_t tiles) {
  Value tile = e.rem(w, e.idx(tiles));
  Value bh = e.div(w, e.idx(tiles));
  return {e.div(bh, e.idx(H)), e.rem(bh, e.idx(H)), tile};
}

/// Who works on the rows of a work item's tile (see the file comment).
struct Team {
  int64_t rows; ///< rows per tile (GPU: threads per block)
  Value thread; ///< GPU: this thread's index in the block; else null
  /// Rows worked on together (CPU register tiles); 1 on the GPU.
  int64_t group = 1;
  bool gpu() const { return bool(thread); }
  /// Per-row state is indexed by slot(r): rows slots on the CPU, one (the
  /// thread's own row) on the GPU.
  int64_t slots() const { return gpu() ? 1 : rows; }
  Value slot(KernelEmitter &e, Value r) const { return gpu() ? e.idx(0) : r; }
  /// body(r) for every row r < n (n <= rows): a loop, or the thread's row.
  void forEachRow(KernelEmitter &e, Value n,
                  llvm::function_ref<void(Value)> body) const {
    if (!gpu())
      return e.loop(e.idx(0), n, body);
    OpBuilder &b = e.builder();
    auto mine = scf::IfOp::create(b, e.location(),
                                  e.cmp(CmpIPredicate::slt, thread, n), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(mine.thenBlock());
    body(thread);
  }
  /// body(rows of a group) for groups covering every row r < n: `group`
  /// consecutive rows at a time, then the rest one by one (CPU), or the
  /// thread's row (GPU).
  void forEachRowGroup(KernelEmitter &e, Value n,
                       llvm::function_ref<void(ArrayRef<Value>)> body) const {
    if (group == 1)
      return forEachRow(e, n, [&](Value r) { body(r); });
    Value whole = e.mul(e.div(n, e.idx(group)), e.idx(group));
    e.loop(e.idx(0), whole, e.idx(group), {}, [&](Value r0, ValueRange) {
      SmallVector<Value> rs;
      for (int64_t k = 0; k < group; ++k)
        rs.push_back(e.add(r0, e.idx(k)));
      body(rs);
      return SmallVector<Value>{};
    });
    e.loop(whole, n, [&](Value r) { body(r); });
  }
  /// A row vector of `width` per row of a group (row k from k * width).
  Value groupRows(KernelEmitter &e, int64_t width) const {
    return e.tile({group * width});
  }
  /// The group's rows of Q (or K, V, dO), staged for groupTimesTile.
  Value groupStage(KernelEmitter &e, int64_t D) const {
    return group > 1 ? e.tile({group, D}) : Value();
  }
  /// body(x) for every x < n, shared out among the threads.
  void forEachShared(KernelEmitter &e, Value n,
                     llvm::function_ref<void(Value)> body) const {
    if (!gpu())
      return e.loop(e.idx(0), n, body);
    e.loop(thread, n, e.idx(rows), {}, [&](Value x, ValueRange) {
      body(x);
      return SmallVector<Value>{};
    });
  }
  /// Every thread waits for the others (a block barrier; CPU: nothing).
  void barrier(KernelEmitter &e) const {
    if (gpu())
      gptgpu::BlockBarrierOp::create(e.builder(), e.location());
  }
};

/// dst[d][c] = src[b, h, first + c, d] for c < count (a transposed tile),
/// loaded by the whole team; the team waits until it is complete.
void loadTransposed(KernelEmitter &e, const Team &team, Value dst, Value src,
                    TileItem t, Value first, Value count, int64_t D) {
  if (!team.gpu())
    return loadTransposedOnCpu(e, dst, src, t.b, t.h, first, count, D);
  // Consecutive threads read consecutive elements of a row.
  team.forEachShared(e, e.mul(count, e.idx(D)), [&](Value x) {
    Value c = e.div(x, e.idx(D)), d = e.rem(x, e.idx(D));
    e.store(e.load(src, {t.b, t.h, e.add(first, c), d}), dst, {d, c});
  });
  team.barrier(e);
}

/// Accumulating loops take this many terms per load and store of their
/// accumulator (the accumulators live in memory, the terms in registers).
constexpr int64_t kUnroll = 4;

/// s[c] = sum_d x[d] * tile[d][c] * scale for c < count, where x[d] is
/// `rowAt(d)`; s is cleared over the whole tile first.
void rowTimesTile(KernelEmitter &e, Value s, int64_t width,
                  llvm::function_ref<Value(Value)> rowAt, Value tile,
                  Value count, int64_t D, Value scale) {
  e.loop(width, [&](Value c) { e.store(e.fc(0.0), s, {c}); });
  // Tile rows d0 .. d0+n-1 at once.
  auto rowsAt = [&](Value d0, int64_t n) {
    SmallVector<Value> xs, ds;
    for (int64_t k = 0; k < n; ++k) {
      ds.push_back(e.add(d0, e.idx(k)));
      xs.push_back(scale ? e.fmul(rowAt(ds.back()), scale) : rowAt(ds.back()));
    }
    e.loop(e.idx(0), count, [&](Value c) {
      Value acc = e.load(s, {c});
      for (int64_t k = 0; k < n; ++k)
        acc = e.fma(xs[k], e.load(tile, {ds[k], c}), acc);
      e.store(acc, s, {c});
    });
  };
  int64_t main = D / kUnroll * kUnroll;
  e.loop(e.idx(0), e.idx(main), e.idx(kUnroll), {}, [&](Value d0, ValueRange) {
    rowsAt(d0, kUnroll);
    return SmallVector<Value>{};
  });
  for (int64_t d = main; d < D; ++d)
    rowsAt(e.idx(d), 1);
}

/// base + r for the rows r of a group.
SmallVector<Value> offsetRows(KernelEmitter &e, Value base,
                              ArrayRef<Value> rs) {
  SmallVector<Value> at;
  for (Value r : rs)
    at.push_back(e.add(base, r));
  return at;
}

/// Row k of a group's row vectors (Team::groupRows).
Value groupRow(KernelEmitter &e, Value s, int64_t width, int64_t k) {
  if (k == 0)
    return s;
  return memref::SubViewOp::create(
      e.builder(), e.location(), s, ArrayRef<int64_t>{k * width},
      ArrayRef<int64_t>{width}, ArrayRef<int64_t>{1});
}

/// rowTimesTile for each row k < rows of a group into groupRow(s, k), the
/// rows given by `rowAt(k, d)`; `xs` is the group's Team::groupStage.
void groupRowsTimesTile(KernelEmitter &e, Value s, Value xs, int64_t width,
                        int64_t rows,
                        llvm::function_ref<Value(int64_t, Value)> rowAt,
                        Value tile, Value count, int64_t D, Value scale) {
  if (rows == 1)
    return rowTimesTile(
        e, s, width, [&](Value d) { return rowAt(0, d); }, tile, count, D,
        scale);
  e.loop(D, [&](Value d) {
    for (int64_t k = 0; k < rows; ++k) {
      Value x = rowAt(k, d);
      e.store(scale ? e.fmul(x, scale) : x, xs, {e.idx(k), d});
    }
  });
  groupTimesTile(e, s, width, xs, rows, tile, count, D);
}

/// For c in [0, count): body(c0, n) handles c0 .. c0+n-1, n = kUnroll but
/// for the remainder (n = 1).
void unrolledLoop(KernelEmitter &e, Value count,
                  llvm::function_ref<void(Value, int64_t)> body) {
  Value main = e.mul(e.div(count, e.idx(kUnroll)), e.idx(kUnroll));
  e.loop(e.idx(0), main, e.idx(kUnroll), {}, [&](Value c0, ValueRange) {
    body(c0, kUnroll);
    return SmallVector<Value>{};
  });
  e.loop(main, count, [&](Value c) { body(c, 1); });
}

/// Whether key `j` is allowed for the query whose bounds are lo, hi.
Value allowed(KernelEmitter &e, Value j, Value lo, Value hi) {
  return e.both(e.cmp(CmpIPredicate::sge, j, lo),
                e.cmp(CmpIPredicate::sle, j, hi));
}

/// x rounded to bf16 (to nearest even) and back.
Value roundToBf16(KernelEmitter &e, Value x) {
  OpBuilder &b = e.builder();
  Value narrow = arith::TruncFOp::create(b, e.location(), b.getBF16Type(), x);
  return arith::ExtFOp::create(b, e.location(), x.getType(), narrow);
}

/// Online-softmax step for one query row over one key tile: masks s to
/// -inf outside [lo, hi], turns it into exp(s - m_new) (rounded to bf16
/// with `bf16Weights`; the sum is of the unrounded values) and returns
/// (m_new, alpha = exp(m_old - m_new), sum of the new exps). A row that has
/// seen no allowed key keeps m = -inf, alpha = 1 - safely 0 * anything.
struct SoftmaxStep {
  Value mNew, alpha, sum;
};
SoftmaxStep softmaxStep(KernelEmitter &e, Value s, Value first, Value count,
                        Value lo, Value hi, Value mOld, bool bf16Weights) {
  Value ninf = e.fc(-kInf);
  Value tileMax =
      e.loop(e.idx(0), count, e.idx(1), {ninf}, [&](Value c, ValueRange acc) {
        Value ok = allowed(e, e.add(first, c), lo, hi);
        Value v = e.select(ok, e.load(s, {c}), ninf);
        e.store(v, s, {c});
        return SmallVector<Value>{e.fmax(acc[0], v)};
      })[0];
  Value mNew = e.fmax(mOld, tileMax);
  Value none = e.fcmp(CmpFPredicate::OEQ, mNew, ninf);
  Value mSafe = e.select(none, e.fc(0.0), mNew);
  Value alpha = e.exp(e.fsub(mOld, mSafe));
  Value sum = e.loop(e.idx(0), count, e.idx(1), {e.fc(0.0)},
                     [&](Value c, ValueRange acc) {
                       Value p = e.exp(e.fsub(e.load(s, {c}), mSafe));
                       e.store(bf16Weights ? roundToBf16(e, p) : p, s, {c});
                       return SmallVector<Value>{e.faddAnyOrder(acc[0], p)};
                     })[0];
  return {mNew, alpha, sum};
}

/// The keys of a query tile: [lo(first row), hi(last row) + 1).
std::pair<Value, Value> keyRange(KernelEmitter &e, Value lo, Value hi, Value b,
                                 Value i0, Value rows) {
  Value last = e.sub(e.add(i0, rows), e.idx(1));
  return {e.loadIndex(lo, {b, i0}),
          e.add(e.loadIndex(hi, {b, last}), e.idx(1))};
}

/// Marks the loop just emitted (over tiles the mask selects at run time)
/// with kMaskedSpanAttr, for the cost model.
void markMaskedSpan(KernelEmitter &e, const AttentionProblem &p, int64_t rows) {
  OpBuilder &b = e.builder();
  Operation *loop = &*std::prev(b.getInsertionPoint());
  loop->setAttr(kMaskedSpanAttr,
                b.getDenseI64ArrayAttr(
                    {p.T, rows, static_cast<int64_t>(p.mask.getCausal())}));
}

/// Loops over the tiles of `size` keys of [begin, end): body(first key,
/// count).
void forKeyTiles(KernelEmitter &e, const AttentionProblem &p, int64_t rows,
                 Value begin, Value end, int64_t size,
                 llvm::function_ref<void(Value, Value)> body) {
  e.loop(begin, end, e.idx(size), {}, [&](Value j0, ValueRange) {
    body(j0, e.min(e.idx(size), e.sub(end, j0)));
    return SmallVector<Value>{};
  });
  markMaskedSpan(e, p, rows);
}

/// m = -inf, l = 0 and acc = 0 for every row of a query tile.
void initRowState(KernelEmitter &e, Value m, Value l, Value acc, int64_t rows,
                  int64_t D) {
  e.loop(rows, [&](Value r) {
    e.store(e.fc(-kInf), m, {r});
    e.store(e.fc(0.0), l, {r});
    e.loop(D, [&](Value d) { e.store(e.fc(0.0), acc, {r, d}); });
  });
}

/// Row r (query i) meets one key tile: s becomes exp(s - m_new) (0 where
/// masked), m[r] and l[r] are updated; returns alpha, the factor that
/// rescales what row r accumulated before.
Value updateRowStats(KernelEmitter &e, Value s, Value first, Value count,
                     Value lo, Value hi, TileItem t, Value i, Value m, Value l,
                     Value r, bool bf16Weights) {
  SoftmaxStep st =
      softmaxStep(e, s, first, count, e.loadIndex(lo, {t.b, i}),
                  e.loadIndex(hi, {t.b, i}), e.load(m, {r}), bf16Weights);
  e.store(st.mNew, m, {r});
  e.store(e.fadd(e.fmul(e.load(l, {r}), st.alpha), st.sum), l, {r});
  return st.alpha;
}

/// acc[r][d] += sum over c < count of w[c] * row(c, d): the rows of a
/// tile, read from global memory or from a staged (transposed) tile.
void accumulate(KernelEmitter &e, Value acc, Value r, Value w, Value count,
                int64_t D, llvm::function_ref<Value(Value, Value)> row) {
  unrolledLoop(e, count, [&](Value c0, int64_t n) {
    SmallVector<Value> ws, cs;
    for (int64_t k = 0; k < n; ++k) {
      cs.push_back(e.add(c0, e.idx(k)));
      ws.push_back(e.load(w, {cs.back()}));
    }
    e.loop(D, [&](Value d) {
      Value a = e.load(acc, {r, d});
      for (int64_t k = 0; k < n; ++k)
        a = e.fma(ws[k], row(cs[k], d), a);
      e.store(a, acc, {r, d});
    });
  });
}

/// acc[r][d] += sum over c < count of w[c] * src[b, h, first + c, d].
void accumulateRows(KernelEmitter &e, Value acc, Value r, Value w, Value count,
                    Value first, Value src, TileItem t, int64_t D) {
  accumulate(e, acc, r, w, count, D, [&](Value c, Value d) {
    return e.load(src, {t.b, t.h, e.add(first, c), d});
  });
}

/// accumulateRows for each row of a group: acc[slots[k]] from the weights
/// groupRow(w, k).
void accumulateGroupRows(KernelEmitter &e, Value acc, ArrayRef<Value> slots,
                         Value w, int64_t width, Value count, Value first,
                         Value src, TileItem t, int64_t D) {
  if (slots.size() == 1)
    return accumulateRows(e, acc, slots[0], w, count, first, src, t, D);
  accumulateRowGroup(e, acc, slots, w, width, count, src, t.b, t.h, first, D);
}

/// acc[r][d] += sum over c < count of w[c] * tile[d][c] (a tile staged by
/// loadTransposed: the same rows, read from shared memory on the GPU).
void accumulateTile(KernelEmitter &e, Value acc, Value r, Value w, Value count,
                    Value tile, int64_t D) {
  accumulate(e, acc, r, w, count, D,
             [&](Value c, Value d) { return e.load(tile, {d, c}); });
}

/// One kernel over the (batch, head, tile) work items of tiles of
/// `tileSize` rows along the sequence, in the element type of `like`. On
/// the GPU the work item's body runs in every thread of its team (an inner
/// scf.parallel over the tile's rows, which becomes the thread block).
void tileKernel(
    OpBuilder &b, Location loc, const AttentionProblem &p, Value like,
    int64_t tileSize,
    llvm::function_ref<void(KernelEmitter &, TileItem, const Team &)> body) {
  Type f = cast<MemRefType>(like.getType()).getElementType();
  int64_t tiles = (p.T + tileSize - 1) / tileSize;
  parallelKernel(b, loc, f, p.B * p.H * tiles, [&](KernelEmitter &e, Value w) {
    TileItem t = decompose(e, w, p.H, tiles);
    if (!p.tiling.threadPerRow)
      return body(e, t,
                  Team{tileSize, Value(),
                       registerTilesFit(p.D) ? kGroupRows : int64_t(1)});
    parallelKernel(e.builder(), loc, f, tileSize,
                   [&](KernelEmitter &te, Value thread) {
                     body(te, t, Team{tileSize, thread});
                   });
  });
}

} // namespace

void emitAttentionForward(OpBuilder &b, Location loc, const AttentionProblem &p,
                          Value lo, Value hi, Value q, Value k, Value v,
                          AttentionOutput result) {
  const int64_t Bq = p.tiling.queryRows, Bk = p.tiling.keyCols;
  int64_t D = p.D;
  tileKernel(
      b, loc, p, q, Bq, [&](KernelEmitter &e, TileItem t, const Team &team) {
        Value kt = e.sharedTile({D, Bk}), s = team.groupRows(e, Bk);
        Value xs = team.groupStage(e, D);
        // GPU: V is staged too (every thread of the block reads every row);
        // the CPU's work item reads V's rows in place.
        Value vt = team.gpu() ? e.sharedTile({D, Bk}) : Value();
        int64_t slots = team.slots();
        Value m = e.tile({slots}), l = e.tile({slots}),
              acc = e.tile({slots, D});
        Value scale = e.fc(p.scale);
        Value i0 = e.mul(t.tile, e.idx(Bq));
        Value rows = e.min(e.idx(Bq), e.sub(e.idx(p.T), i0));
        initRowState(e, m, l, acc, slots, D);
        auto [begin, end] = keyRange(e, lo, hi, t.b, i0, rows);
        forKeyTiles(e, p, Bq, begin, end, Bk, [&](Value j0, Value count) {
          loadTransposed(e, team, kt, k, t, j0, count, D);
          if (vt)
            loadTransposed(e, team, vt, v, t, j0, count, D);
          team.forEachRowGroup(e, rows, [&](ArrayRef<Value> rs) {
            int64_t n = rs.size();
            SmallVector<Value> is = offsetRows(e, i0, rs);
            groupRowsTimesTile(
                e, s, xs, Bk, n,
                [&](int64_t g, Value d) {
                  return e.load(q, {t.b, t.h, is[g], d});
                },
                kt, count, D, scale);
            SmallVector<Value> slots;
            for (int64_t g = 0; g < n; ++g) {
              Value i = is[g], at = team.slot(e, rs[g]);
              slots.push_back(at);
              Value alpha =
                  updateRowStats(e, groupRow(e, s, Bk, g), j0, count, lo, hi, t,
                                 i, m, l, at, p.bf16Probabilities);
              e.loop(D, [&](Value d) {
                e.store(e.fmul(e.load(acc, {at, d}), alpha), acc, {at, d});
              });
            }
            if (vt)
              accumulateTile(e, acc, slots[0], s, count, vt, D);
            else
              accumulateGroupRows(e, acc, slots, s, Bk, count, j0, v, t, D);
          });
          team.barrier(e); // before the next tile overwrites kt
        });
        // out = acc / l; lse = m + log(l) (-inf for a row without keys).
        team.forEachRow(e, rows, [&](Value r) {
          Value at = team.slot(e, r);
          Value lr = e.load(l, {at});
          Value inv = e.select(e.fcmp(CmpFPredicate::OGT, lr, e.fc(0.0)),
                               e.fdiv(e.fc(1.0), lr), e.fc(0.0));
          Value i = e.add(i0, r);
          e.loop(D, [&](Value d) {
            e.store(e.fmul(e.load(acc, {at, d}), inv), result.out,
                    {t.b, t.h, i, d});
          });
          e.store(e.fadd(e.load(m, {at}), e.log(lr)), result.lse,
                  {t.b, t.h, i});
        });
      });
}

namespace {

/// Backward, kernel 1: per query tile, delta = rowsum(dO * O) into `delta`
/// ([B, H, T]) and dQ, the probabilities from the forward's lse.
void emitQueryGrad(OpBuilder &b, Location loc, const AttentionProblem &p,
                   Value lo, Value hi, Value q, Value k, Value v,
                   AttentionOutput forward, Value dout, Value dq, Value delta) {
  const int64_t Bq = p.tiling.queryRows, Bk = p.tiling.keyCols;
  int64_t D = p.D;
  tileKernel(
      b, loc, p, q, Bq, [&](KernelEmitter &e, TileItem t, const Team &team) {
        Value kt = e.sharedTile({D, Bk});
        Value vt = team.gpu() ? e.sharedTile({D, Bk}) : e.tile({D, Bk});
        Value s = team.groupRows(e, Bk), dp = team.groupRows(e, Bk);
        Value xs = team.groupStage(e, D);
        int64_t slots = team.slots();
        Value m = e.tile({slots}), l = e.tile({slots}),
              acc = e.tile({slots, D});
        Value scale = e.fc(p.scale);
        Value i0 = e.mul(t.tile, e.idx(Bq));
        Value rows = e.min(e.idx(Bq), e.sub(e.idx(p.T), i0));
        initRowState(e, m, l, acc, slots, D);
        // Row g of a group (queries `is`), of Q or dO.
        auto rowOf = [&](Value src, ArrayRef<Value> is) {
          return [&, src, is](int64_t g, Value d) {
            return e.load(src, {t.b, t.h, is[g], d});
          };
        };
        auto [begin, end] = keyRange(e, lo, hi, t.b, i0, rows);
        // Per row: the forward's lse into m, delta into l.
        team.forEachRow(e, rows, [&](Value r) {
          Value i = e.add(i0, r);
          r = team.slot(e, r);
          Value rowDelta =
              e.loop(e.idx(0), e.idx(D), e.idx(1), {e.fc(0.0)},
                     [&](Value d, ValueRange a) {
                       Value x = e.fmul(e.load(dout, {t.b, t.h, i, d}),
                                        e.load(forward.out, {t.b, t.h, i, d}));
                       return SmallVector<Value>{e.fadd(a[0], x)};
                     })[0];
          e.store(e.load(forward.lse, {t.b, t.h, i}), m, {r});
          e.store(rowDelta, l, {r});
          e.store(rowDelta, delta, {t.b, t.h, i});
        });
        // ds = p (dO v^T - delta) scale; dQ += ds K.
        forKeyTiles(e, p, Bq, begin, end, Bk, [&](Value j0, Value count) {
          loadTransposed(e, team, kt, k, t, j0, count, D);
          loadTransposed(e, team, vt, v, t, j0, count, D);
          team.forEachRowGroup(e, rows, [&](ArrayRef<Value> rs) {
            int64_t n = rs.size();
            SmallVector<Value> is = offsetRows(e, i0, rs);
            groupRowsTimesTile(e, s, xs, Bk, n, rowOf(q, is), kt, count, D,
                               scale);
            groupRowsTimesTile(e, dp, xs, Bk, n, rowOf(dout, is), vt, count, D,
                               Value());
            SmallVector<Value> slots;
            for (int64_t g = 0; g < n; ++g) {
              Value i = is[g], r = team.slot(e, rs[g]);
              slots.push_back(r);
              Value sr = groupRow(e, s, Bk, g), dpr = groupRow(e, dp, Bk, g);
              Value rlo = e.loadIndex(lo, {t.b, i}),
                    rhi = e.loadIndex(hi, {t.b, i});
              Value lse = e.load(m, {r}), delta = e.load(l, {r});
              e.loop(e.idx(0), count, [&](Value c) {
                Value ok = allowed(e, e.add(j0, c), rlo, rhi);
                Value pc = e.select(ok, e.exp(e.fsub(e.load(sr, {c}), lse)),
                                    e.fc(0.0));
                Value ds =
                    e.fmul(e.fmul(pc, e.fsub(e.load(dpr, {c}), delta)), scale);
                e.store(p.bf16Probabilities ? roundToBf16(e, ds) : ds, sr, {c});
              });
            }
            // GPU: K from its shared tile (every thread reads the same
            // element: a broadcast); CPU: K's contiguous rows in place.
            if (team.gpu())
              accumulateTile(e, acc, slots[0], s, count, kt, D);
            else
              accumulateGroupRows(e, acc, slots, s, Bk, count, j0, k, t, D);
          });
          team.barrier(e);
        });
        team.forEachRow(e, rows, [&](Value r) {
          Value i = e.add(i0, r);
          r = team.slot(e, r);
          e.loop(D, [&](Value d) {
            e.store(e.load(acc, {r, d}), dq, {t.b, t.h, i, d});
          });
        });
      });
}

/// The first i in [0, n) where the monotone predicate `holds(i)` (false,
/// then true) is true, or n: a bisection of ceil(log2(n + 1)) steps.
Value firstWhere(KernelEmitter &e, int64_t n,
                 llvm::function_ref<Value(Value)> holds) {
  int64_t steps = 0;
  while ((int64_t(1) << steps) <= n)
    ++steps;
  SmallVector<Value> bounds =
      e.loop(e.idx(0), e.idx(steps), e.idx(1), {e.idx(0), e.idx(n)},
             [&](Value, ValueRange ab) {
               Value a = ab[0], b = ab[1];
               Value open = e.cmp(CmpIPredicate::slt, a, b);
               // mid < b <= n while the range is open; clamped when it is not.
               Value mid = e.min(e.div(e.add(a, b), e.idx(2)), e.idx(n - 1));
               Value h = holds(mid);
               return SmallVector<Value>{
                   e.select(h, a, e.select(open, e.add(mid, e.idx(1)), a)),
                   e.select(h, e.select(open, mid, b), b)};
             });
  return bounds[0];
}

/// Backward, kernel 2: per key tile, dV = P^T dO and dK = dS^T Q over the
/// queries that can attend to some key of the tile.
void emitKeyValueGrad(OpBuilder &b, Location loc, const AttentionProblem &p,
                      Value lo, Value hi, Value q, Value k, Value v, Value dout,
                      Value rowLse, Value rowDelta, Value dk, Value dv) {
  const int64_t Bq = p.tiling.queryCols, Bk = p.tiling.keyRows;
  int64_t D = p.D;
  tileKernel(
      b, loc, p, q, Bk, [&](KernelEmitter &e, TileItem t, const Team &team) {
        Value qt = e.sharedTile({D, Bq}), dot = e.sharedTile({D, Bq});
        Value s = team.groupRows(e, Bq), dp = team.groupRows(e, Bq);
        Value xs = team.groupStage(e, D);
        int64_t slots = team.slots();
        Value dkAcc = e.tile({slots, D}), dvAcc = e.tile({slots, D});
        Value scale = e.fc(p.scale);
        Value j0 = e.mul(t.tile, e.idx(Bk));
        Value cols = e.min(e.idx(Bk), e.sub(e.idx(p.T), j0));
        Value jLast = e.sub(e.add(j0, cols), e.idx(1));
        e.loop(slots, [&](Value c) {
          e.loop(D, [&](Value d) {
            e.store(e.fc(0.0), dkAcc, {c, d});
            e.store(e.fc(0.0), dvAcc, {c, d});
          });
        });
        // The queries that see a key of the tile: hi >= j0 and lo <= jLast.
        // Both bounds are non-decreasing, so this is one range [begin, end),
        // found by bisection (a scan of all T rows by every thread of every
        // key tile would read the bounds T / Bk times over).
        SmallVector<Value> range = {
            firstWhere(e, p.T,
                       [&](Value i) {
                         return e.cmp(CmpIPredicate::sge,
                                      e.loadIndex(hi, {t.b, i}), j0);
                       }),
            firstWhere(e, p.T, [&](Value i) {
              return e.cmp(CmpIPredicate::sgt, e.loadIndex(lo, {t.b, i}),
                           jLast);
            })};
        e.loop(range[0], range[1], e.idx(Bq), {}, [&](Value i0, ValueRange) {
          Value count = e.min(e.idx(Bq), e.sub(range[1], i0));
          loadTransposed(e, team, qt, q, t, i0, count, D);
          loadTransposed(e, team, dot, dout, t, i0, count, D);
          team.forEachRowGroup(e, cols, [&](ArrayRef<Value> cs) {
            int64_t n = cs.size();
            SmallVector<Value> js = offsetRows(e, j0, cs);
            auto rowOf = [&](Value src) {
              return [&, src](int64_t g, Value d) {
                return e.load(src, {t.b, t.h, js[g], d});
              };
            };
            groupRowsTimesTile(e, s, xs, Bq, n, rowOf(k), qt, count, D, scale);
            groupRowsTimesTile(e, dp, xs, Bq, n, rowOf(v), dot, count, D,
                               Value());
            SmallVector<Value> slots;
            for (int64_t g = 0; g < n; ++g) {
              Value j = js[g];
              slots.push_back(team.slot(e, cs[g]));
              Value sc = groupRow(e, s, Bq, g), dpc = groupRow(e, dp, Bq, g);
              e.loop(e.idx(0), count, [&](Value r) {
                Value i = e.add(i0, r);
                Value ok = allowed(e, j, e.loadIndex(lo, {t.b, i}),
                                   e.loadIndex(hi, {t.b, i}));
                Value lse = e.load(rowLse, {t.b, t.h, i});
                Value delta = e.load(rowDelta, {t.b, t.h, i});
                Value pr = e.select(ok, e.exp(e.fsub(e.load(sc, {r}), lse)),
                                    e.fc(0.0));
                Value ds =
                    e.fmul(e.fmul(pr, e.fsub(e.load(dpc, {r}), delta)), scale);
                if (p.bf16Probabilities) {
                  pr = roundToBf16(e, pr);
                  ds = roundToBf16(e, ds);
                }
                e.store(pr, sc, {r});
                e.store(ds, dpc, {r});
              });
            }
            if (team.gpu()) { // as in emitQueryGrad
              accumulateTile(e, dvAcc, slots[0], s, count, dot, D);
              accumulateTile(e, dkAcc, slots[0], dp, count, qt, D);
            } else {
              accumulateGroupRows(e, dvAcc, slots, s, Bq, count, i0, dout, t,
                                  D);
              accumulateGroupRows(e, dkAcc, slots, dp, Bq, count, i0, q, t, D);
            }
          });
          team.barrier(e);
          return SmallVector<Value>{};
        });
        markMaskedSpan(e, p, Bk);
        team.forEachRow(e, cols, [&](Value c) {
          Value j = e.add(j0, c);
          c = team.slot(e, c);
          e.loop(D, [&](Value d) {
            e.store(e.load(dkAcc, {c, d}), dk, {t.b, t.h, j, d});
            e.store(e.load(dvAcc, {c, d}), dv, {t.b, t.h, j, d});
          });
        });
      });
}

} // namespace

void markAttentionSpan(KernelEmitter &e, const AttentionProblem &p,
                       int64_t rows) {
  markMaskedSpan(e, p, rows);
}

Value firstRowWhere(KernelEmitter &e, int64_t n,
                    llvm::function_ref<Value(Value)> holds) {
  return firstWhere(e, n, holds);
}

void emitAttentionKeyValueGrad(OpBuilder &b, Location loc,
                               const AttentionProblem &p, Value lo, Value hi,
                               Value q, Value k, Value v, Value dout, Value lse,
                               Value delta, Value dk, Value dv) {
  emitKeyValueGrad(b, loc, p, lo, hi, q, k, v, dout, lse, delta, dk, dv);
}

void emitAttentionBackward(OpBuilder &b, Location loc,
                           const AttentionProblem &p, Value lo, Value hi,
                           Value q, Value k, Value v, AttentionOutput forward,
                           Value dout, Value dq, Value dk, Value dv) {
  Type f = cast<MemRefType>(q.getType()).getElementType();
  Value delta =
      memref::AllocOp::create(b, loc, MemRefType::get({p.B, p.H, p.T}, f));
  emitQueryGrad(b, loc, p, lo, hi, q, k, v, forward, dout, dq, delta);
  emitKeyValueGrad(b, loc, p, lo, hi, q, k, v, dout, forward.lse, delta, dk,
                   dv);
}

} // namespace gptc::lowering
