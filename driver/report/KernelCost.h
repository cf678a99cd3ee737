//===- KernelCost.h - Static FLOPs and bytes of a GPU kernel ----*- C++ -*-===//
//
// The per-kernel counts of the cost report of `gptc compile --target=cuda
// --stats`: what one work item (thread) of an outlined gpu.func does, and
// how many threads of a launch do it.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_KERNELCOST_H
#define GPTC_DRIVER_REPORT_KERNELCOST_H

#include "frontend/ModelSpec.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace gptc {

/// A global buffer of static shape that a kernel reads: the bytes one
/// work item's loads of it move and the buffer's own bytes (its
/// footprint: elements x element bytes, at least a 32-byte sector).
struct BufferReads {
  double bytes = 0, footprint = 0;
};

/// FLOPs, memory bytes and instructions of one work item.
struct BodyCost {
  /// bytes: global memory, except the loads of `buffers`.
  double flops = 0, bytes = 0;
  /// The loads of each global buffer of static shape the kernel reads
  /// (a launch's DRAM bytes of them: cost::dramReadBytes; launchDramBytes).
  std::vector<BufferReads> buffers;
  /// FLOPs of warp-level tensor-core products (mma.sync: 2 x 16 x 8 x 16
  /// per warp, a 32nd of it per thread), not in `flops`.
  double tensorFlops = 0;
  /// Shared (workgroup) and local (memref.alloca, private) bytes loaded
  /// and stored.
  double sharedBytes = 0, localBytes = 0;
  /// Bytes of the kernel's memref.alloca arrays (per thread).
  double privateBytes = 0;
  /// PTX instructions the work item executes, estimated op by op
  /// (instructionsOf in KernelCost.cpp); the emulated device counts the
  /// real ones (test/Emu/cost-model-counts.test compares them).
  double instructions = 0;
  /// Some loop had a trip count that is not a constant and no constant
  /// upper bound (counted once), or the body has an scf.while.
  bool approximate = false;
};

/// Counts the body of `func`: every floating-point arith op (add, sub, mul,
/// div, rem, min, max) is 1 FLOP, every math op on floats 1 (math.fma 2),
/// times the elements of a vector result; negation, comparisons, selects
/// and casts are free. memref/vector loads and stores of global memory
/// count their bytes (atomics twice: read and write); workgroup
/// (shared) and private memory, and memref.alloca buffers, are not
/// counted. An op counts once per iteration of the scf.for loops around it
/// inside the kernel: the constant trip count, else n for a chunk loop
/// from x to min(x + n, ...), else the trip count from 0 (or the constant
/// lower bound) to a constant upper bound, else 1 and `approximate`. Both
/// branches of an scf.if count (an upper bound), except an attention tile
/// mask's (kEdgeTilesAttr: its masked region on that many of the loop's
/// iterations, the other on the rest). `arguments` are the constant
/// values of the kernel's arguments at the launch (index i for argument i;
/// nullopt when not constant): outlining passes loop bounds defined outside the
/// launch as arguments.
///
/// A loop marked gptc.segments = [positions, segments] (the embedding
/// gradient's sum over a token's sorted positions) runs positions /
/// segments times: the exact mean over the work items, every position in
/// one segment.
///
/// A loop marked gptc.masked_span = [T, rows, causal] (the key or query
/// tiles of a flash-attention kernel, passes/Lowering/KernelEmitter.h)
/// whose trip count is not constant covers at most the mask's span of T:
/// (T + rows) / 2 on average when causal, else T; with `windowKeys` (the
/// keys a query sees under the spec's sliding window, Stats.cpp: its mean
/// over the schedule), at most windowKeys + rows. Document boundaries,
/// which shorten the span at run time, are not known: an upper bound; the
/// count stays `approximate`.
/// The global bytes a launch of `items` work items moves from DRAM: the
/// body's bytes, and each buffer's loads as cost::dramReadBytes prices
/// them against the launch's other traffic.
double launchDramBytes(const BodyCost &body, double items);

BodyCost kernelBodyCost(mlir::gpu::GPUFuncOp func,
                        llvm::ArrayRef<std::optional<int64_t>> arguments,
                        std::optional<int64_t> windowKeys = std::nullopt);

/// The keys a query sees under the spec's sliding window, for
/// kernelBodyCost; nullopt without a window.
std::optional<int64_t> windowKeys(const ModelSpec &spec);

/// Threads of a launch of `func` with `grid` x `block` that pass its guard:
/// an scf.if at the top of the body whose condition is cmpi slt/ult
/// (or an andi of them) of an index built from the ids of one dimension
/// (block_id, thread_id, global_id) against a constant C (for
/// gptc-thread-blocks' guard, kWorkItemGuardAttr, also an argument with a
/// constant value in `arguments`, as for kernelBodyCost) caps that
/// dimension's extent (grid x block) at C; of thread ids alone, the
/// block's extent (grid x min(block, C)). Unknown when a size is not
/// constant; `guardUnknown` when some guard condition has another form
/// (then every thread counts).
std::optional<int64_t> workItems(
    mlir::gpu::GPUFuncOp func, llvm::ArrayRef<std::optional<int64_t>> arguments,
    const std::array<std::optional<int64_t>, 3> &grid,
    const std::array<std::optional<int64_t>, 3> &block, bool &guardUnknown);

} // namespace gptc

#endif // GPTC_DRIVER_REPORT_KERNELCOST_H
