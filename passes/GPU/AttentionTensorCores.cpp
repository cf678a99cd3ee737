//===- AttentionTensorCores.cpp - Tensor-core flash attention -------------===//
//
// See AttentionTensorCores.h; the pieces the kernels share, and the
// fragment layouts, in AttentionTensorCoreTiles.h. The forward here; dQ and
// dK/dV in AttentionTensorCoresBackward.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/GPU/AttentionTensorCores.h"
#include "passes/GPU/AttentionTensorCoreTiles.h"

using namespace mlir;

namespace gptc::lowering {

using namespace tensor_cores;
using arith::CmpFPredicate;
using arith::CmpIPredicate;

bool tensorCoreAttentionFits(const AttentionProblem &p) {
  return p.D % 16 == 0 && p.D <= 128 && p.D > 0;
}

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

} // namespace gptc::lowering
