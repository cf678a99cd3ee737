//===- AttentionKeyBounds.cpp - The key range of every query --------------===//
//
// emitKeyBounds of AttentionKernels.h: per (batch, query) the first and
// last key the mask allows, from parallel scans of the batch's tokens for
// BOS (documents) and the window read at run time.
//
//===----------------------------------------------------------------------===//

#include "passes/Lowering/AttentionKernels.h"
#include "passes/Lowering/KernelEmitter.h"

using namespace mlir;
using namespace mlir::gpt;

namespace gptc::lowering {
namespace {

using arith::CmpIPredicate;

/// The mask's block (window_unit blocks and record_blocks), in tokens.
constexpr int64_t kMaskBlock = 128;
/// Tokens per chunk of the parallel BOS scans of emitKeyBounds.
constexpr int64_t kScanChunk = 256;

} // namespace

std::pair<Value, Value> emitKeyBounds(OpBuilder &b, Location loc,
                                      const AttentionProblem &p) {
  // Positions as i32 (T < 2^31): half the bytes of index, and a kernel
  // that reads them can do all its index arithmetic in 32 bits
  // (gptc-kernel-index-width).
  auto type = MemRefType::get({p.B, p.T}, b.getI32Type());
  Value lo = memref::AllocOp::create(b, loc, type);
  Value hi = memref::AllocOp::create(b, loc, type);
  MaskAttr mask = p.mask;
  const bool documents = mask.hasDocument();
  const bool documentEnds = documents && !mask.getCausal();
  // The sequence in chunks of kScanChunk tokens, scanned in parallel: the
  // BOS positions a chunk's scan needs from the chunks before (document
  // start) and after it (document end, without causality) come from a
  // short serial pass over the chunks.
  const int64_t chunks = (p.T + kScanChunk - 1) / kScanChunk;
  auto chunkOf = [&](KernelEmitter &e, Value w) {
    Value c = e.rem(w, e.idx(chunks));
    Value first = e.mul(c, e.idx(kScanChunk));
    Value end = e.min(e.add(first, e.idx(kScanChunk)), e.idx(p.T));
    return std::make_tuple(e.div(w, e.idx(chunks)), c, first, end);
  };
  auto isBos = [&](KernelEmitter &e, Value bi, Value t) -> Value {
    Value tok = e.load(p.tokens, {bi, t});
    Value bos = arith::ConstantOp::create(
        e.builder(), loc, tok.getType(),
        e.builder().getIntegerAttr(tok.getType(), mask.getBos()));
    return arith::CmpIOp::create(e.builder(), loc, CmpIPredicate::eq, tok, bos);
  };
  auto chunksType = MemRefType::get({p.B, chunks}, b.getI32Type());
  Value startBefore, endAfter;
  if (documents) {
    // 1. Per chunk: its last BOS (or 0) and its first (or T).
    startBefore = memref::AllocOp::create(b, loc, chunksType);
    endAfter = memref::AllocOp::create(b, loc, chunksType);
    parallelKernel(
        b, loc, b.getF32Type(), p.B * chunks, [&](KernelEmitter &e, Value w) {
          auto [bi, c, first, end] = chunkOf(e, w);
          SmallVector<Value> found =
              e.loop(first, end, e.idx(1), {e.idx(0), e.idx(p.T)},
                     [&](Value t, ValueRange lastFirst) {
                       Value bos = isBos(e, bi, t);
                       return SmallVector<Value>{
                           e.select(bos, t, lastFirst[0]),
                           e.min(lastFirst[1], e.select(bos, t, e.idx(p.T)))};
                     });
          e.storeIndex(found[0], startBefore, {bi, c});
          e.storeIndex(found[1], endAfter, {bi, c});
        });
    // 2. Per sequence: the last BOS before each chunk, the first after it.
    parallelKernel(
        b, loc, b.getF32Type(), p.B, [&](KernelEmitter &e, Value bi) {
          e.loop(e.idx(0), e.idx(chunks), e.idx(1), {e.idx(0)},
                 [&](Value c, ValueRange carried) {
                   Value last = e.loadIndex(startBefore, {bi, c});
                   e.storeIndex(carried[0], startBefore, {bi, c});
                   return SmallVector<Value>{e.max(carried[0], last)};
                 });
          if (!documentEnds)
            return;
          e.loop(e.idx(0), e.idx(chunks), e.idx(1), {e.idx(p.T)},
                 [&](Value u, ValueRange carried) {
                   Value c = e.sub(e.idx(chunks - 1), u);
                   Value first = e.loadIndex(endAfter, {bi, c});
                   e.storeIndex(carried[0], endAfter, {bi, c});
                   return SmallVector<Value>{e.min(carried[0], first)};
                 });
        });
  }
  // 3. Per chunk: the bounds of its queries.
  parallelKernel(
      b, loc, b.getF32Type(), p.B * chunks, [&](KernelEmitter &e, Value w) {
        auto [bi, c, first, end] = chunkOf(e, w);
        // The window's blocks: floor(W / 128) (blocks), ceil(W / 128)
        // (record_blocks).
        Value window, windowBlocks;
        WindowUnit unit = mask.getWindow();
        if (mask.hasWindow()) {
          Value size = e.load(p.window, {});
          window = arith::IndexCastOp::create(e.builder(), loc,
                                              e.builder().getIndexType(), size);
          Value rounding =
              e.idx(unit == WindowUnit::record_blocks ? kMaskBlock - 1 : 0);
          windowBlocks = e.div(e.add(window, rounding), e.idx(kMaskBlock));
        }
        // Forward: document starts, window and causal bounds.
        Value start0 = documents ? e.loadIndex(startBefore, {bi, c}) : e.idx(0);
        e.loop(
            first, end, e.idx(1), {start0}, [&](Value t, ValueRange carried) {
              Value docStart = carried[0];
              if (documents)
                docStart = e.select(isBos(e, bi, t), t, docStart);
              Value from = docStart;
              if (unit == WindowUnit::tokens ||
                  unit == WindowUnit::record_blocks)
                from = e.max(from, e.add(e.sub(t, window), e.idx(1)));
              if (unit == WindowUnit::blocks ||
                  unit == WindowUnit::record_blocks) {
                Value qb = e.div(t, e.idx(kMaskBlock));
                Value kb = e.add(e.sub(qb, windowBlocks), e.idx(1));
                from = e.max(from, e.mul(kb, e.idx(kMaskBlock)));
              }
              e.storeIndex(from, lo, {bi, t});
              e.storeIndex(mask.getCausal() ? t : e.idx(p.T - 1), hi, {bi, t});
              return SmallVector<Value>{docStart};
            });
        if (!documentEnds)
          return;
        // Backward: a query sees no key past the end of its document.
        Value end0 = e.sub(e.loadIndex(endAfter, {bi, c}), e.idx(1));
        Value count = e.sub(end, first);
        e.loop(e.idx(0), count, e.idx(1), {end0},
               [&](Value u, ValueRange carried) {
                 Value t = e.sub(e.sub(end, e.idx(1)), u);
                 e.storeIndex(e.min(e.loadIndex(hi, {bi, t}), carried[0]), hi,
                              {bi, t});
                 Value before = e.sub(t, e.idx(1));
                 return SmallVector<Value>{
                     e.select(isBos(e, bi, t), before, carried[0])};
               });
      });
  return {lo, hi};
}

} // namespace gptc::lowering
