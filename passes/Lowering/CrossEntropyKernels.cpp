//===- CrossEntropyKernels.cpp - Softmax cross-entropy loop nests ---------===//

#include "passes/Lowering/CrossEntropyKernels.h"
#include "passes/Lowering/KernelEmitter.h"

#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPTGPU/GPTGPUDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>
#include <tuple>

using namespace mlir;

namespace gptc::lowering {
namespace {

/// Who works on a row (see the header): the work item itself (CPU), or
/// the `threads` threads of a block, `thread` being this one (GPU).
struct RowTeam {
  Value thread;
  int64_t threads = 1;

  /// Folds body over this thread's elements j of [0, vocab): all of them on
  /// the CPU, j = thread, thread + threads, ... on the GPU.
  SmallVector<Value> fold(KernelEmitter &e, int64_t vocab, ValueRange init,
                          KernelEmitter::LoopBody body) const {
    Value first = thread ? thread : e.idx(0);
    return e.loop(first, e.idx(vocab), e.idx(threads), init, body);
  }
  void forEach(KernelEmitter &e, int64_t vocab,
               llvm::function_ref<void(Value)> body) const {
    fold(e, vocab, {}, [&](Value j, ValueRange) {
      body(j);
      return SmallVector<Value>{};
    });
  }

  /// The combination of every thread's `partial` by `combine`, in the same
  /// order every run (a tree over a shared tile); every thread gets it.
  Value combine(KernelEmitter &e, Value partial,
                llvm::function_ref<Value(Value, Value)> op) const {
    if (!thread)
      return partial;
    OpBuilder &b = e.builder();
    Value shared = e.sharedTile({threads});
    e.store(partial, shared, {thread});
    barrier(e);
    for (int64_t half = threads / 2; half >= 1; half /= 2) {
      auto lower = scf::IfOp::create(
          b, e.location(),
          e.cmp(arith::CmpIPredicate::slt, thread, e.idx(half)), false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(lower.thenBlock());
        Value mine = e.load(shared, {thread});
        Value other = e.load(shared, {e.add(thread, e.idx(half))});
        e.store(op(mine, other), shared, {thread});
      }
      barrier(e);
    }
    Value all = e.load(shared, {e.idx(0)});
    // Nobody overwrites the tile for the next combination before every
    // thread has read it.
    barrier(e);
    return all;
  }

  /// body() by one thread of the team.
  void once(KernelEmitter &e, llvm::function_ref<void()> body) const {
    if (!thread)
      return body();
    OpBuilder &b = e.builder();
    auto first = scf::IfOp::create(
        b, e.location(), e.cmp(arith::CmpIPredicate::eq, thread, e.idx(0)),
        false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(first.thenBlock());
    body();
  }

  void barrier(KernelEmitter &e) const {
    mlir::gptgpu::BlockBarrierOp::create(e.builder(), e.location());
  }
};

/// Where a work item's row is: row r of an [N, V] buffer (CPU), or from
/// `base` = r * V on in the buffer collapsed to [N * V] (GPU: the base is
/// computed once per block, before its threads start, which also keeps the
/// row and thread loops two nests, a grid of blocks, rather than one merged
/// nest).
struct RowIndex {
  Value row, base;
  SmallVector<Value> at(KernelEmitter &e, Value j) const {
    if (base)
      return {e.add(base, j)};
    return {row, j};
  }
};

/// The rows of one op, with the element math of its softcap.
class RowMath {
public:
  RowMath(KernelEmitter &e, const CrossEntropyRows &rows, Value logits)
      : e(e), rows(rows), logits(logits),
        vocab(cast<MemRefType>(rows.logits.getType()).getDimSize(1)) {}

  int64_t vocabulary() const { return vocab; }

  /// The logit (r, j) in the compute type.
  Value logit(const RowIndex &r, Value j) {
    Value x = e.load(logits, r.at(e, j));
    if (x.getType() == e.floatType())
      return x;
    return arith::ExtFOp::create(e.builder(), e.location(), e.floatType(), x);
  }

  /// The squashed value f(x * scale) of the softcap, as gpt.tanh and
  /// gpt.sigmoid compute it.
  Value squash(Value x) {
    OpBuilder &b = e.builder();
    Location loc = e.location();
    Value y = e.fmul(x, e.fc(rows.softcap.scaleValue()));
    if (rows.softcap.getKind() == mlir::gpt::SoftcapKind::tanh)
      return math::TanhOp::create(b, loc, y);
    Value one = e.fc(1.0);
    Value ex = e.exp(arith::NegFOp::create(b, loc, y));
    return e.fdiv(one, e.fadd(one, ex));
  }

  /// z = softcap(x), or x.
  Value capped(Value x) {
    if (!rows.softcap)
      return x;
    return e.fmul(squash(x), e.fc(rows.softcap.capValue()));
  }

  /// d * dz/dx at x, in the order of the VJPs of the separate ops: the
  /// outer scaling, the squashing function, the inner scaling.
  Value chain(Value d, Value x) {
    if (!rows.softcap)
      return d;
    OpBuilder &b = e.builder();
    Location loc = e.location();
    Value y = squash(x);
    Value g = e.fmul(d, e.fc(rows.softcap.capValue()));
    Value slope;
    if (rows.softcap.getKind() == mlir::gpt::SoftcapKind::tanh)
      slope = e.fadd(arith::NegFOp::create(b, loc, e.fmul(y, y)), e.fc(1.0));
    else
      slope = e.fmul(y, e.fadd(arith::NegFOp::create(b, loc, y), e.fc(1.0)));
    return e.fmul(e.fmul(g, slope), e.fc(rows.softcap.scaleValue()));
  }

  /// The row's max of z and sum_j exp(z[r, j] - max): the statistics both
  /// kernels start from.
  std::pair<Value, Value> rowStats(const RowTeam &team, const RowIndex &r) {
    Value max = rowMax(team, r);
    return {max, rowSum(team, r, max)};
  }

  /// The row's max of z: the softcap of the max of the logits.
  Value rowMax(const RowTeam &team, const RowIndex &r) {
    Value ninf = e.fc(-std::numeric_limits<double>::infinity());
    Value mine = team.fold(e, vocab, {ninf}, [&](Value j, ValueRange c) {
      return SmallVector<Value>{e.fmax(c[0], logit(r, j))};
    })[0];
    return capped(
        team.combine(e, mine, [&](Value x, Value y) { return e.fmax(x, y); }));
  }

  /// sum_j exp(z[r, j] - max).
  Value rowSum(const RowTeam &team, const RowIndex &r, Value max) {
    Value mine = team.fold(e, vocab, {e.fc(0.0)}, [&](Value j, ValueRange c) {
      Value p = e.exp(e.fsub(capped(logit(r, j)), max));
      return SmallVector<Value>{e.faddAnyOrder(c[0], p)};
    })[0];
    return team.combine(e, mine,
                        [&](Value x, Value y) { return e.fadd(x, y); });
  }

private:
  KernelEmitter &e;
  const CrossEntropyRows &rows;
  Value logits; ///< rows.logits, collapsed on the GPU
  int64_t vocab;
};

/// `m` [N, V] as [N * V] on the GPU (see RowIndex), else itself.
Value rowStorage(OpBuilder &b, Location loc, const CrossEntropyRows &rows,
                 Value m) {
  if (rows.threads <= 0)
    return m;
  return memref::CollapseShapeOp::create(
      b, loc, m, SmallVector<ReassociationIndices>{{0, 1}});
}

/// One kernel over the rows: body(e, team, row, target) in every thread
/// of the row's team.
void rowKernel(OpBuilder &b, Location loc, const CrossEntropyRows &rows,
               Type compute,
               llvm::function_ref<void(KernelEmitter &, const RowTeam &,
                                       const RowIndex &, Value target)>
                   body) {
  auto type = cast<MemRefType>(rows.logits.getType());
  int64_t n = type.getDimSize(0), vocab = type.getDimSize(1);
  auto targetOf = [&](KernelEmitter &e, Value r) {
    Value t = e.load(rows.targets, {r});
    return arith::IndexCastOp::create(e.builder(), e.location(),
                                      e.builder().getIndexType(), t)
        .getResult();
  };
  parallelKernel(b, loc, compute, n, [&](KernelEmitter &e, Value r) {
    if (rows.threads <= 0)
      return body(e, RowTeam{}, RowIndex{r, Value()}, targetOf(e, r));
    Value base = e.mul(r, e.idx(vocab));
    parallelKernel(e.builder(), loc, compute, rows.threads,
                   [&](KernelEmitter &te, Value thread) {
                     body(te, RowTeam{thread, rows.threads}, RowIndex{r, base},
                          targetOf(te, r));
                   });
  });
}

Type elementType(Value m) {
  return cast<MemRefType>(m.getType()).getElementType();
}

} // namespace

void emitCrossEntropyForward(OpBuilder &b, Location loc,
                             const CrossEntropyRows &rows, Value nll,
                             Value stats) {
  Value logits = rowStorage(b, loc, rows, rows.logits);
  rowKernel(b, loc, rows, elementType(nll),
            [&](KernelEmitter &e, const RowTeam &team, const RowIndex &r,
                Value target) {
              RowMath row(e, rows, logits);
              auto [max, sum] = row.rowStats(team, r);
              team.once(e, [&] {
                Value z = row.capped(row.logit(r, target));
                e.store(e.fsub(e.fadd(max, e.log(sum)), z), nll, {r.row});
                if (stats) {
                  e.store(max, stats, {r.row, e.idx(0)});
                  e.store(sum, stats, {r.row, e.idx(1)});
                }
              });
            });
}

void emitCrossEntropyBackward(OpBuilder &b, Location loc,
                              const CrossEntropyRows &rows, Value grad,
                              Value dlogits, Value stats) {
  Type store = elementType(dlogits);
  Value logits = rowStorage(b, loc, rows, rows.logits);
  Value out = rowStorage(b, loc, rows, dlogits);
  rowKernel(b, loc, rows, elementType(grad),
            [&](KernelEmitter &e, const RowTeam &team, const RowIndex &r,
                Value target) {
              RowMath row(e, rows, logits);
              Value max, sum;
              if (stats) {
                max = e.load(stats, {r.row, e.idx(0)});
                sum = e.load(stats, {r.row, e.idx(1)});
              } else {
                std::tie(max, sum) = row.rowStats(team, r);
              }
              Value g = e.load(grad, {r.row});
              Value scale = e.fdiv(g, sum);
              team.forEach(e, row.vocabulary(), [&](Value j) {
                Value x = row.logit(r, j);
                Value d = e.fmul(e.exp(e.fsub(row.capped(x), max)), scale);
                Value hit = e.cmp(arith::CmpIPredicate::eq, j, target);
                d = e.select(hit, e.fsub(d, g), d);
                d = row.chain(d, x);
                if (d.getType() != store)
                  d = arith::TruncFOp::create(e.builder(), e.location(), store,
                                              d);
                e.store(d, out, r.at(e, j));
              });
            });
}

} // namespace gptc::lowering
