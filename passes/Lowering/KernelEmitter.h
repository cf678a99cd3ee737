//===- KernelEmitter.h - Hand-written loop-nest kernels ---------*- C++ -*-===//
//
// A thin layer over OpBuilder for kernels that are not linalg ops (the
// attention kernels): index and float arithmetic, loads and stores, and
// scf.for loops whose bodies are C++ lambdas. Everything is built at one
// insertion point, which loop() moves into the body and back.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_LOWERING_KERNELEMITTER_H
#define GPTC_PASSES_LOWERING_KERNELEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace gptc::lowering {

/// The unit attribute on a memref.alloca that marks a shared tile.
constexpr llvm::StringLiteral kWorkgroupTileAttr = "gptc.workgroup_tile";
/// On an scf.for over the key (or query) tiles that an attention mask
/// selects at run time: [T, rows, causal], the sequence length, the rows of
/// the work item's tile and whether the mask is causal. Its trip count is
/// not known statically; the cost model of --stats bounds it with these and
/// the spec's largest window (driver/report/KernelCost.h).
constexpr llvm::StringLiteral kMaskedSpanAttr = "gptc.masked_span";
/// On the scf.if in such a loop whose else region masks a tile element by
/// element and whose then region, for the tiles the mask leaves whole,
/// does not: the i64 number of the loop's iterations expected to take the
/// else region (the tiles a causal or window edge crosses). The cost model
/// weighs the regions by it.
constexpr llvm::StringLiteral kEdgeTilesAttr = "gptc.edge_tiles";
/// On the scf.if of gptc-thread-blocks that leaves out the threads past a
/// nest's work items (a grid of whole blocks): the cost model of --stats
/// counts the work items it lets through, its bound a constant or a
/// kernel argument with a constant value at the launch.
constexpr llvm::StringLiteral kWorkItemGuardAttr = "gptc.work_item_guard";
/// On the scf.if by which one lane of a warp (lane 0) stores a warp's
/// combined reduction (gptc-warp-reductions): not a guard of the work
/// items; its body runs for one work item in 32.
constexpr llvm::StringLiteral kWarpLeaderAttr = "gptc.warp_leader";
/// On an scf.for over a segment of sorted positions (the embedding
/// gradient's segmented sum, EmbeddingGradSorted.cpp): [positions,
/// segments]. Each position is in one segment, so the loop runs
/// positions / segments times on average over the work items.
constexpr llvm::StringLiteral kSegmentsAttr = "gptc.segments";

class KernelEmitter {
public:
  KernelEmitter(mlir::OpBuilder &b, mlir::Location loc, mlir::Type floatType)
      : b(b), loc(loc), f(floatType) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }
  mlir::Type floatType() const { return f; }

  // Index arithmetic.
  mlir::Value idx(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y); ///< floor for x >= 0
  mlir::Value rem(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value max(mlir::Value x, mlir::Value y);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y);
  mlir::Value both(mlir::Value x, mlir::Value y); ///< i1 and
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);

  // Float arithmetic in floatType().
  mlir::Value fc(double v);
  mlir::Value fadd(mlir::Value x, mlir::Value y);
  mlir::Value fsub(mlir::Value x, mlir::Value y);
  mlir::Value fmul(mlir::Value x, mlir::Value y);
  mlir::Value fdiv(mlir::Value x, mlir::Value y);
  mlir::Value fmax(mlir::Value x, mlir::Value y);
  /// x + y for a loop-carried sum that may be formed in any order
  /// (fastmath<reassoc>: the loop vectorises, partial sums in lanes).
  mlir::Value faddAnyOrder(mlir::Value x, mlir::Value y);
  /// x * y + z in one rounding (math.fma: an FMA instruction on both
  /// targets).
  mlir::Value fma(mlir::Value x, mlir::Value y, mlir::Value z);
  mlir::Value fcmp(mlir::arith::CmpFPredicate p, mlir::Value x, mlir::Value y);
  mlir::Value exp(mlir::Value x);
  mlir::Value log(mlir::Value x);
  /// 2^x and log2(x) (math.exp2 / math.log2: on NVPTX libdevice's
  /// ex2.approx / lg2.approx, one instruction each).
  mlir::Value exp2(mlir::Value x);
  mlir::Value log2(mlir::Value x);

  // Memory.
  mlir::Value load(mlir::Value m, mlir::ValueRange at);
  void store(mlir::Value v, mlir::Value m, mlir::ValueRange at);
  /// An index kept in memory as an integer narrower than index (the key
  /// bounds' i32 positions): the load sign-extends it, the store truncates.
  mlir::Value loadIndex(mlir::Value m, mlir::ValueRange at);
  void storeIndex(mlir::Value v, mlir::Value m, mlir::ValueRange at);
  /// A memref.alloca of a static shape of floatType() (or `elt`): a tile
  /// private to the work item.
  mlir::Value tile(llvm::ArrayRef<int64_t> shape, mlir::Type elt = {});
  /// A tile every thread of a GPU block reads: marked kWorkgroupTileAttr,
  /// which gptc-workgroup-tiles turns into GPU shared memory (CPU: an
  /// ordinary tile).
  mlir::Value sharedTile(llvm::ArrayRef<int64_t> shape);

  // Vectors of floatType() (CPU register tiles): `lanes` consecutive
  // elements along the last dimension of `m`, and a scalar in every lane.
  // math.fma (fma above) takes vectors too, lane by lane.
  // `alignBytes` (when not 0): what the access is aligned to (a GPU's
  // 16-byte ld.global.v4 needs it known, else it loads lane by lane).
  mlir::Value vload(mlir::Value m, mlir::ValueRange at, int64_t lanes,
                    int64_t alignBytes = 0);
  void vstore(mlir::Value v, mlir::Value m, mlir::ValueRange at,
              int64_t alignBytes = 0);
  mlir::Value splat(mlir::Value scalar, int64_t lanes);
  /// Lane i of the result is lane mask[i] of x ++ y (vector.shuffle).
  mlir::Value shuffle(mlir::Value x, mlir::Value y,
                      llvm::ArrayRef<int64_t> mask);

  /// for (iv = lb; iv < ub; iv += step) with loop-carried `init`; `body`
  /// returns the values carried to the next iteration (empty without
  /// `init`). Returns the final values.
  using LoopBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
      mlir::Value iv, mlir::ValueRange carried)>;
  llvm::SmallVector<mlir::Value> loop(mlir::Value lb, mlir::Value ub,
                                      mlir::Value step, mlir::ValueRange init,
                                      LoopBody body);
  /// A loop without carried values, step 1.
  void loop(mlir::Value lb, mlir::Value ub,
            llvm::function_ref<void(mlir::Value iv)> body);
  /// for (iv = 0; iv < n; ++iv) over a constant trip count.
  void loop(int64_t n, llvm::function_ref<void(mlir::Value iv)> body);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type f;
};

/// One kernel: a 1-d scf.parallel over [0, n); `body` emits the work of
/// item `iv` with an emitter whose float type is `f`.
void parallelKernel(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Type f, int64_t n,
    llvm::function_ref<void(KernelEmitter &, mlir::Value iv)> body);

} // namespace gptc::lowering

#endif // GPTC_PASSES_LOWERING_KERNELEMITTER_H
