//===- AttentionRegisterTiles.h - CPU attention micro-kernels ---*- C++ -*-===//
//
// The CPU's flash-attention micro-kernels. The two products of a tile
// step, for a group of a work item's rows at once, as register tiles:
// kGroupRows rows by kTileLanes columns of accumulators live in vector
// registers across the whole reduction, so each element loaded from a tile
// or a row of K, V, Q or dO feeds kGroupRows multiply-adds, not one. Each
// output element is still one chain of fmas in the order of the one-row
// loops (AttentionKernels.cpp), so results are bit for bit theirs. And the
// staging of the tiles those products read, transposed in registers (data
// movement only: the same values).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_CPU_ATTENTIONREGISTERTILES_H
#define GPTC_PASSES_CPU_ATTENTIONREGISTERTILES_H

#include "passes/Lowering/KernelEmitter.h"

namespace gptc::lowering {

/// Rows of a tile taken together.
constexpr int64_t kGroupRows = 4;
/// Lanes of one vector register of accumulators, and vectors per row.
constexpr int64_t kVectorLanes = 8;
constexpr int64_t kVectorsPerRow = 2;
constexpr int64_t kTileLanes = kVectorLanes * kVectorsPerRow;

/// Whether rows of D elements (the head dimension) fit the register tiles
/// of accumulateRowGroup.
inline bool registerTilesFit(int64_t D) { return D % kTileLanes == 0; }

/// s[k * width + c] = sum over d < D of xs[k][d] * tile[d][c], for the
/// k < rows of a group and c < count (0 for count <= c < width): xs is a
/// [kGroupRows, D] tile of the group's (scaled) rows, tile a transposed
/// [D, width] tile.
void groupTimesTile(KernelEmitter &e, mlir::Value s, int64_t width,
                    mlir::Value xs, int64_t rows, mlir::Value tile,
                    mlir::Value count, int64_t D);

/// acc[slots[k]][d] += sum over c < count of w[k * width + c] * src[b, h,
/// first + c, d] for every row k of the group and d < D
/// (registerTilesFit(D)).
void accumulateRowGroup(KernelEmitter &e, mlir::Value acc,
                        llvm::ArrayRef<mlir::Value> slots, mlir::Value w,
                        int64_t width, mlir::Value count, mlir::Value src,
                        mlir::Value b, mlir::Value h, mlir::Value first,
                        int64_t D);

/// dst[d][c] = src[b, h, first + c, d] for c < count and d < D, on the
/// CPU: for f32 rows with D a multiple of kVectorLanes, kVectorLanes x
/// kVectorLanes blocks loaded a row at a time and transposed in registers;
/// other columns (past the last whole block) and tiles element by element.
void loadTransposedOnCpu(KernelEmitter &e, mlir::Value dst, mlir::Value src,
                         mlir::Value b, mlir::Value h, mlir::Value first,
                         mlir::Value count, int64_t D);

} // namespace gptc::lowering

#endif // GPTC_PASSES_CPU_ATTENTIONREGISTERTILES_H
