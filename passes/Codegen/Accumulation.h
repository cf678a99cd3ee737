//===- Accumulation.h - A loop's read-modify-write of one element -*- C++
//-*-===//
//
// The pattern a reduction lowered to loops leaves (one accumulator element,
// loaded, combined with a term and stored in every iteration), shared by
// gptc-register-accumulators (the element in a register) and
// gptc-warp-reductions (the terms spread over a warp's lanes).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_CODEGEN_ACCUMULATION_H
#define GPTC_PASSES_CODEGEN_ACCUMULATION_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace gptc::codegen {

/// The accumulation of one loop: load, combining op, store.
struct Accumulation {
  mlir::memref::LoadOp load;
  mlir::Operation *combine;
  mlir::memref::StoreOp store;
};

/// Every read-modify-write of a loop-invariant element in `loop`'s body
/// (its stores all such, each to its own memref, which the loop touches
/// nowhere else), or none.
llvm::SmallVector<Accumulation> findAccumulations(mlir::scf::ForOp loop);

} // namespace gptc::codegen

#endif // GPTC_PASSES_CODEGEN_ACCUMULATION_H
