//===- CrossEntropyKernels.cpp - Softmax cross-entropy loop nests ---------===//

#include "passes/Lowering/CrossEntropyKernels.h"
#include "passes/Lowering/KernelEmitter.h"

#include <limits>

using namespace mlir;

namespace gptc::lowering {
namespace {

/// A row-wise kernel over logits [N, V]: `body` gets the row and the
/// row's max (the first pass over the row).
void rowKernel(OpBuilder &b, Location loc, Value logits,
               llvm::function_ref<void(KernelEmitter &, Value row, Value max,
                                       int64_t vocab)>
                   body) {
  auto type = cast<MemRefType>(logits.getType());
  int64_t rows = type.getDimSize(0), vocab = type.getDimSize(1);
  parallelKernel(
      b, loc, type.getElementType(), rows, [&](KernelEmitter &e, Value r) {
        Value ninf = e.fc(-std::numeric_limits<double>::infinity());
        Value max = e.loop(e.idx(0), e.idx(vocab), e.idx(1), {ninf},
                           [&](Value j, ValueRange c) {
                             return SmallVector<Value>{
                                 e.fmax(c[0], e.load(logits, {r, j}))};
                           })[0];
        body(e, r, max, vocab);
      });
}

/// The target of row `r` as an index.
Value targetOf(KernelEmitter &e, Value targets, Value r) {
  Value t = e.load(targets, {r});
  return arith::IndexCastOp::create(e.builder(), e.location(),
                                    e.builder().getIndexType(), t);
}

} // namespace

void emitCrossEntropyForward(OpBuilder &b, Location loc, Value logits,
                             Value targets, Value nll) {
  rowKernel(b, loc, logits,
            [&](KernelEmitter &e, Value r, Value max, int64_t vocab) {
              Value sum =
                  e.loop(e.idx(0), e.idx(vocab), e.idx(1), {e.fc(0.0)},
                         [&](Value j, ValueRange c) {
                           Value x = e.exp(e.fsub(e.load(logits, {r, j}), max));
                           return SmallVector<Value>{e.faddAnyOrder(c[0], x)};
                         })[0];
              Value target = e.load(logits, {r, targetOf(e, targets, r)});
              e.store(e.fsub(e.fadd(max, e.log(sum)), target), nll, {r});
            });
}

void emitCrossEntropyBackward(OpBuilder &b, Location loc, Value logits,
                              Value targets, Value grad, Value dlogits) {
  rowKernel(
      b, loc, logits, [&](KernelEmitter &e, Value r, Value max, int64_t vocab) {
        Value sum = e.loop(e.idx(0), e.idx(vocab), e.idx(1), {e.fc(0.0)},
                           [&](Value j, ValueRange c) {
                             Value x =
                                 e.exp(e.fsub(e.load(logits, {r, j}), max));
                             e.store(x, dlogits, {r, j});
                             return SmallVector<Value>{e.faddAnyOrder(c[0], x)};
                           })[0];
        Value g = e.load(grad, {r});
        Value scale = e.fdiv(g, sum);
        e.loop(e.idx(0), e.idx(vocab), [&](Value j) {
          e.store(e.fmul(e.load(dlogits, {r, j}), scale), dlogits, {r, j});
        });
        Value t = targetOf(e, targets, r);
        e.store(e.fsub(e.load(dlogits, {r, t}), g), dlogits, {r, t});
      });
}

} // namespace gptc::lowering
