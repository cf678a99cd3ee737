//===- AttentionTensorCoreTiles.h - Tensor-core kernel pieces ---*- C++ -*-===//
//
// What the tensor-core attention kernels share (the forward in
// AttentionTensorCores.cpp, dQ and dK/dV in AttentionTensorCoresBackward.cpp):
// the block's shape, a lane's place in its warp, the emitter of shared
// tiles, ldmatrix, bf16 packing and mma.sync, the kernel over 64-query
// tiles, the products of a warp's rows by a staged tile, and the mask
// evaluated on the tiles an edge crosses only. Internal to passes/Lowering.
//
// The fragments follow the PTX ISA's layouts
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

#ifndef GPTC_PASSES_GPU_ATTENTIONTENSORCORETILES_H
#define GPTC_PASSES_GPU_ATTENTIONTENSORCORETILES_H

#include "passes/Lowering/AttentionKernels.h"
#include "passes/Lowering/KernelEmitter.h"

#include <array>
#include <limits>

namespace gptc::lowering::tensor_cores {

using mlir::ArrayRef;
using mlir::Location;
using mlir::MutableArrayRef;
using mlir::OpBuilder;
using mlir::SmallVector;
using mlir::Value;
using mlir::ValueRange;

inline constexpr int64_t kWarps = 4;
inline constexpr int64_t kThreads = 32 * kWarps;
/// Query rows per block (16 per warp) and keys per staged tile.
inline constexpr int64_t kQueryRows = 16 * kWarps;
/// Keys per staged tile: 64, or 32 for head dimensions over 64 (two
/// buffers of K and V then stay within 48 KiB of static shared memory).
inline int64_t keyColsFor(int64_t D) { return D > 64 ? 32 : 64; }
/// Shared rows are padded by 8 bf16 (16 bytes): the eight row addresses of
/// an ldmatrix then fall in different banks.
inline constexpr int64_t kPad = 8;
/// bf16 elements per vectorised global load (16 bytes).
inline constexpr int64_t kChunk = 8;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
/// Scores are kept in base 2 (FlashAttention's exp2 form): s log2(e) with the
/// softmax scale folded in, so that exp(x) = 2^(x log2 e) is one ex2 and the
/// scale one multiply (or the FMA that also subtracts the row's statistic).
inline constexpr double kLog2e = 1.4426950408889634;
inline constexpr double kLn2 = 0.6931471805599453;

/// A 16x8 f32 accumulator: c0..c3 of this lane.
using Acc = std::array<Value, 4>;

/// The lane's coordinates in its warp and block.
struct Lane {
  Value thread, lane, warp, g, t;
};

/// Thread `thread` of a block as a lane of its warp (g = lane / 4,
/// t = lane mod 4: the fragments' row and column pair).
Lane laneOf(KernelEmitter &e, Value thread);

class TensorCoreEmitter {
public:
  TensorCoreEmitter(KernelEmitter &e, const AttentionProblem &p, Lane at,
                    int64_t threads = kThreads)
      : e(e), b(e.builder()), loc(e.location()), p(p), at(at),
        threads(threads) {}

  Value i32(int64_t v);

  /// A shared tile of `rows` x (D + pad) bf16 in workgroup memory.
  Value sharedTile(int64_t rows);
  /// A shared tile of `rows` x (cols + pad) bf16 in workgroup memory.
  Value sharedTile(int64_t rows, int64_t cols);

  /// The 16x8 accumulator `c` rounded to bf16 into tile[row0 + 16 rows]
  /// [col0 + 8 columns]: each lane's pairs as they stand in the C layout
  /// (rows g and g + 8, columns 2t, 2t + 1), one 32-bit store a pair.
  void storeFragment(const Acc &c, Value tile, Value row0, Value col0);

  /// tile[at + r][:] = src[batch, head, min(first + r, T - 1)][:] for
  /// r < rows by cp.async, 16 bytes a copy (aligned: D is a multiple of
  /// 16, the arena's buffers of 64 bytes, the padded shared rows of 16),
  /// consecutive threads along a row. The caller commits the copies and
  /// waits for them (staged(), or forPrefetchedTiles). Rows past the
  /// sequence repeat its last row (finite values, which the mask or the
  /// final store leaves out).
  void stage(Value tile, Value tileRow, Value src, Value batch, Value head,
             Value first, int64_t rows);
  /// cp.async.commit_group: this thread's copies so far are one group.
  void commit();
  /// cp.async.wait_group 0: every committed copy of this thread is done.
  void waitCopies();
  /// Commit, wait, and a barrier: every thread's staged tiles are there.
  void staged();

  void barrier() { mlir::gptgpu::BlockBarrierOp::create(b, loc); }

  /// The 32-bit registers of an ldmatrix result (vector<Nx2xbf16>).
  SmallVector<Value> registers(Value fragment);

  /// ldmatrix of `tiles` 8x8 matrices of `tile` at this lane's row and
  /// column (each lane gives one row address), transposed or not.
  SmallVector<Value> ldmatrix(Value tile, Value row, Value col, int64_t tiles,
                              bool transpose);

  /// Two f32 values rounded to bf16, as a vector<2xbf16> (the first in
  /// element 0).
  Value bf16Pair(Value lo, Value hi);
  /// Two f32 values rounded to bf16 and packed into one register (the
  /// first in the low half).
  Value pack(Value lo, Value hi);

  /// c + a b by one mma.sync.m16n8k16 (bf16 operands, f32 accumulator).
  Acc mma(ArrayRef<Value> a, ArrayRef<Value> bReg, const Acc &c);

  /// x combined with the values of the lanes 1 and 2 apart (the quad).
  Value quad(Value x, bool sum);

  Acc zeros();

  KernelEmitter &e;
  OpBuilder &b;
  Location loc;
  const AttentionProblem &p;
  Lane at;
  int64_t threads; ///< of the block, which stage() shares the work among
};

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
        body);

/// a b^T for this warp's 16 rows of `a` (aOf(ks): the A fragment of
/// columns 16 ks .. 16 ks + 15) and the keyCols rows of `tile` from row
/// `first` (each row of the tile a column of the product: ldmatrix without
/// transpose).
SmallVector<Acc>
timesRowsOf(KernelEmitter &e, TensorCoreEmitter &tc, int64_t cols,
            llvm::function_ref<SmallVector<Value>(int64_t)> aOf, Value tile,
            Value first);

/// The A fragment of rows 16 group .. 16 group + 15 (group: this lane's
/// warp when null) and columns 16 ks .. 16 ks + 15 of a shared tile
/// (ldmatrix.x4).
SmallVector<Value> rowFragment(KernelEmitter &e, TensorCoreEmitter &tc,
                               Value tile, int64_t ks, Value group = Value());

/// The A fragments (16 rows of this lane's warp) of the 64 rows of `src`
/// from the tile's first query, staged through `through` (>= 64 rows).
SmallVector<SmallVector<Value>> rowFragments(KernelEmitter &e,
                                             TensorCoreEmitter &tc,
                                             const QueryTile &qt, Value src,
                                             Value through);

/// acc[dn] += w tile for the keyCols x keyCols weights `w` (accumulator
/// registers, rounded to bf16 as A operands) and the keyCols rows of `tile`
/// from row `first` (B's rows: ldmatrix transposed). `paired`: two column
/// tiles a load (x4), else one (x2: two registers fewer live, for the
/// dK/dV kernel whose two accumulators fill the register file).
void accumulateTimesTile(KernelEmitter &e, TensorCoreEmitter &tc,
                         ArrayRef<Acc> w, Value tile, Value first,
                         MutableArrayRef<Acc> acc, bool paired = true);

/// acc[dn] += A B for `steps` 16-deep steps, A's fragment of step ks
/// aOf(ks), B the rows of `tile` from row `first` and its columns from
/// `firstCol` (ldmatrix transposed): accumulateTimesTile with A already in
/// fragments and a slice of the tile's columns.
void accumulateFragmentsTimesTile(
    KernelEmitter &e, TensorCoreEmitter &tc, int64_t steps,
    llvm::function_ref<SmallVector<Value>(int64_t)> aOf, Value tile,
    Value first, Value firstCol, MutableArrayRef<Acc> acc, bool paired);

/// Whether key j0 + (column of accumulator element i of key tile n) is
/// allowed for this lane's row i / 2.
Value allowedAt(KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt,
                Value j0, int64_t n, int64_t i);

/// The tiles of `tile` positions a mask edge crosses, per loop over the
/// positions that meet a block of `span` partners: a causal or window edge
/// touches at most (span - 1 + tile - 1) / tile + 1 of them at any
/// alignment (documents, known at run time, add more).
int64_t edgeTiles(const AttentionProblem &p, int64_t span, int64_t tile);

/// value(n, i, masked) for every accumulator element of `tiles` 8-column
/// tiles, masked = false when `interior` (uniform over the block, so the
/// warp does not diverge) says no element needs the mask: an scf.if
/// marked for the cost model with the iterations expected to take the
/// masked region (kEdgeTilesAttr).
SmallVector<Acc>
edgeMasked(KernelEmitter &e, Value interior, int64_t tiles, int64_t edges,
           llvm::function_ref<Value(int64_t, int64_t, bool)> value);

/// value(n, i) for every accumulator element of the tile's `tiles` key
/// tiles, `fill` where the key is not allowed, the mask evaluated on the
/// key tiles a mask edge crosses only (edgeMasked).
SmallVector<Acc> maskedTile(KernelEmitter &e, TensorCoreEmitter &tc,
                            const QueryTile &qt, Value j0, Value interior,
                            int64_t tiles, Value fill,
                            llvm::function_ref<Value(int64_t, int64_t)> value);

/// The loop over [begin, end) by `step`, each iteration's tiles in the
/// buffer of its parity (its first row: 0 or `step`): stageInto(first,
/// buffer) issues the cp.async copies of the tiles at `first`. The first
/// iteration's are issued before the loop (with whatever the caller staged
/// and did not commit); each iteration waits for its own, passes one
/// barrier (every thread's copies are there, and every thread is done
/// with the last iteration's products on the other buffer), issues the
/// next iteration's copies into the other buffer, and computes
/// body(first, buffer, carried) while they arrive: FlashAttention-2's
/// prefetch, one barrier a tile. afterLoop() runs with the loop the last
/// op emitted (markAttentionSpan marks it there).
SmallVector<Value> forPrefetchedTiles(
    KernelEmitter &e, TensorCoreEmitter &tc, Value begin, Value end,
    int64_t step, ValueRange init,
    llvm::function_ref<void(Value, Value)> stageInto,
    llvm::function_ref<SmallVector<Value>(Value, Value, ValueRange)> body,
    llvm::function_ref<void()> afterLoop = {});

/// The loop over the tile's key range, keyCols keys at a time, K and V
/// prefetched into the buffer of the iteration (forPrefetchedTiles);
/// body(j0, first row of the buffer, whether every row sees every key of
/// the tile, carried) returns the next carried values.
SmallVector<Value> forKeyTiles(
    KernelEmitter &e, TensorCoreEmitter &tc, const QueryTile &qt, Value k,
    Value v, ValueRange init,
    llvm::function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)>
        body);

/// body() for this lane's rows that are inside the sequence.
void ifRowInside(KernelEmitter &e, const QueryTile &qt, int64_t h,
                 const AttentionProblem &p, llvm::function_ref<void()> body);

/// body() in the first lane of each quad (a row's value, which the four
/// lanes of its quad hold alike, written once).
void ifFirstOfQuad(KernelEmitter &e, TensorCoreEmitter &tc,
                   llvm::function_ref<void()> body);

} // namespace gptc::lowering::tensor_cores

#endif // GPTC_PASSES_GPU_ATTENTIONTENSORCORETILES_H
