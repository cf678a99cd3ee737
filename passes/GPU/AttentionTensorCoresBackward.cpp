//===- AttentionTensorCoresBackward.cpp - Tensor-core attention backward --===//
//
// See AttentionTensorCores.h: the backward's kernels on tensor cores, dQ
// (with delta) per 64-query tile and dK/dV per key tile, from the pieces
// of AttentionTensorCoreTiles.h.
//
//===----------------------------------------------------------------------===//

#include "passes/GPU/AttentionTensorCoreTiles.h"
#include "passes/GPU/AttentionTensorCores.h"

#include <map>

using namespace mlir;

namespace gptc::lowering {

using namespace tensor_cores;
using arith::CmpFPredicate;
using arith::CmpIPredicate;

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
        tc.staged();
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
  // Four warps; K and V stay in shared memory (their A fragments loaded
  // per use), Q and dO are staged a tile of queries at a time into two
  // buffers each. Up to head_dim 64 a warp owns 16 keys (64 a block): it
  // computes their scores against the tile's 16 queries and keeps P^T and
  // dS^T in registers as the A operands of dV and dK. Over head_dim 64, the
  // accumulators of 16 keys by the whole head (two of D / 4 registers a
  // lane) would not leave room for three blocks an SM, so the warps split
  // as FlashAttention-2's backward does: 32 keys a block, warp w owns keys
  // 16 (w mod 2) .. +15 and columns D / 2 (w / 2) .. of dK and dV, and
  // computes the scores of its keys against queries 16 (w / 2) .. +15 of a
  // 32-query tile; P^T and dS^T meet in shared memory (two 32 x 32 tiles,
  // one more barrier a tile) as the A operands of every warp's half of dK
  // and dV. The tiles then take 56 KiB: dynamic shared memory
  // (gptc-workgroup-tiles).
  const int64_t warps = 4, threads = 32 * warps;
  const int64_t dimSplit = p.D > 64 ? 2 : 1, keyGroups = warps / dimSplit;
  const int64_t keyRows = 16 * keyGroups, queryCols = 16 * dimSplit;
  const int64_t scoreCols = 16, ownTiles = dTiles / dimSplit;
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
              Value group = e.rem(at.warp, e.idx(keyGroups));
              Value part = e.div(at.warp, e.idx(keyGroups));
              Value kTile = tc.sharedTile(keyRows),
                    vTile = tc.sharedTile(keyRows);
              Value qBuf = tc.sharedTile(2 * queryCols);
              Value dBuf = tc.sharedTile(2 * queryCols);
              Value pShared, dsShared;
              if (dimSplit > 1) {
                pShared = tc.sharedTile(keyRows, queryCols);
                dsShared = tc.sharedTile(keyRows, queryCols);
              }
              Value j0 = e.mul(tile, e.idx(keyRows));
              Value groupKey = e.add(j0, e.mul(group, e.idx(16)));
              Value keys[2] = {e.add(groupKey, at.g),
                               e.add(groupKey, e.add(at.g, e.idx(8)))};
              Value firstCol = e.mul(part, e.idx(p.D / dimSplit));
              Value firstScore = e.mul(part, e.idx(scoreCols));
              Value jLast =
                  e.sub(e.min(e.add(j0, e.idx(keyRows)), e.idx(p.T)), e.idx(1));
              // The queries that see a key of the block: hi >= j0 and lo <=
              // jLast, one range since both bounds are non-decreasing
              // (bisection).
              Value qBegin = firstRowWhere(e, p.T, [&](Value i) {
                return e.cmp(CmpIPredicate::sge, e.loadIndex(hi, {batch, i}),
                             j0);
              });
              Value qEnd = firstRowWhere(e, p.T, [&](Value i) {
                return e.cmp(CmpIPredicate::sgt, e.loadIndex(lo, {batch, i}),
                             jLast);
              });
              // The block's K and V, copied with the first query tile
              // (read after its barrier).
              tc.stage(kTile, e.idx(0), k, batch, head, j0, keyRows);
              tc.stage(vTile, e.idx(0), v, batch, head, j0, keyRows);
              SmallVector<Value> init(2 * ownTiles * 4, e.fc(0.0));
              SmallVector<Value> state = forPrefetchedTiles(
                  e, tc, qBegin, qEnd, queryCols, init,
                  [&](Value i0, Value buffer) {
                    tc.stage(qBuf, buffer, q, batch, head, i0, queryCols);
                    tc.stage(dBuf, buffer, dout, batch, head, i0, queryCols);
                  },
                  [&](Value i0, Value buffer, ValueRange carried) {
                    // S^T = K Q^T and dP^T = V dO^T (the warp's 16 keys by
                    // its scoreCols queries of the tile); P^T = exp(scale
                    // S^T - lse) where allowed; dS^T = P^T (dP^T - delta)
                    // scale.
                    Value scoreRow = e.add(buffer, firstScore);
                    SmallVector<Acc> s = timesRowsOf(
                        e, tc, scoreCols,
                        [&](int64_t ks) {
                          return rowFragment(e, tc, kTile, ks, group);
                        },
                        qBuf, scoreRow);
                    SmallVector<Acc> dp = timesRowsOf(
                        e, tc, scoreCols,
                        [&](int64_t ks) {
                          return rowFragment(e, tc, vTile, ks, group);
                        },
                        dBuf, scoreRow);
                    // Per query column of this lane (8 n + 2 t + c): lse
                    // (base 2, negated) and delta, read once for both of
                    // the lane's keys; on the query tiles a mask edge
                    // crosses, its bounds too.
                    SmallVector<std::array<Value, 2>> colLse(s.size()),
                        colDelta(s.size());
                    Value firstQuery = e.add(i0, firstScore);
                    auto queryOf = [&](int64_t n, int64_t c) {
                      return e.add(firstQuery, e.add(e.idx(8 * n + c),
                                                     e.mul(at.t, e.idx(2))));
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
                                     e.loadIndex(
                                         lo, {batch, e.min(lastQuery,
                                                           e.idx(p.T - 1))}),
                                     j0),
                               e.cmp(CmpIPredicate::sge,
                                     e.loadIndex(hi, {batch, i0}), jLast)));
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
                                e.loadIndex(lo, {batch, row}),
                                e.loadIndex(hi, {batch, row})};
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
                    // dK += dS^T Q and dV += P^T dO over the warp's columns
                    // (bf16 weights; Q's and dO's rows as B's rows): the
                    // weights from this warp's registers, or from the
                    // shared tiles that every warp's scores meet in.
                    SmallVector<Acc> dkAcc(ownTiles), dvAcc(ownTiles);
                    for (int64_t dn = 0; dn < ownTiles; ++dn)
                      for (int64_t i = 0; i < 4; ++i) {
                        dkAcc[dn][i] = carried[4 * dn + i];
                        dvAcc[dn][i] = carried[4 * (ownTiles + dn) + i];
                      }
                    if (dimSplit == 1) {
                      accumulateTimesTile(e, tc, dp, qBuf, buffer, dkAcc,
                                          /*paired=*/false);
                      accumulateTimesTile(e, tc, s, dBuf, buffer, dvAcc,
                                          /*paired=*/false);
                    } else {
                      Value groupRow = e.mul(group, e.idx(16));
                      for (int64_t n = 0; n < int64_t(s.size()); ++n) {
                        Value col = e.add(firstScore, e.idx(8 * n));
                        tc.storeFragment(dp[n], dsShared, groupRow, col);
                        tc.storeFragment(s[n], pShared, groupRow, col);
                      }
                      tc.barrier();
                      accumulateFragmentsTimesTile(
                          e, tc, queryCols / 16,
                          [&](int64_t ks) {
                            return rowFragment(e, tc, dsShared, ks, group);
                          },
                          qBuf, buffer, firstCol, dkAcc, /*paired=*/false);
                      accumulateFragmentsTimesTile(
                          e, tc, queryCols / 16,
                          [&](int64_t ks) {
                            return rowFragment(e, tc, pShared, ks, group);
                          },
                          dBuf, buffer, firstCol, dvAcc, /*paired=*/false);
                    }
                    SmallVector<Value> next;
                    for (const Acc &a : dkAcc)
                      next.append(a.begin(), a.end());
                    for (const Acc &a : dvAcc)
                      next.append(a.begin(), a.end());
                    return next;
                  },
                  [&] { markAttentionSpan(e, p, keyRows); });
              for (int64_t h = 0; h < 2; ++h) {
                OpBuilder &ob = e.builder();
                auto inside = scf::IfOp::create(
                    ob, loc, e.cmp(CmpIPredicate::slt, keys[h], e.idx(p.T)),
                    false);
                OpBuilder::InsertionGuard guard(ob);
                ob.setInsertionPointToStart(inside.thenBlock());
                for (int64_t dn = 0; dn < ownTiles; ++dn)
                  for (int64_t c = 0; c < 2; ++c) {
                    Value d = e.add(firstCol, e.add(e.idx(8 * dn + c),
                                                    e.mul(at.t, e.idx(2))));
                    e.store(state[4 * dn + 2 * h + c], dk,
                            {batch, head, keys[h], d});
                    e.store(state[4 * (ownTiles + dn) + 2 * h + c], dv,
                            {batch, head, keys[h], d});
                  }
              }
            });
      });
}

} // namespace gptc::lowering
