//===- RankShares.h - What --stats says of data-parallel ranks --*- C++ -*-===//
//
// With training.ranks > 1, gptc-distribute-newton-schulz gives each rank
// a share of every same-shape group of hidden matrices; `gptc compile
// --stats` prints how many matrices (and elements) each rank
// orthogonalises, read off the compiled update step. The CUDA cost report
// adds what the collectives of 8 ranks would cost.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_RANKSHARES_H
#define GPTC_DRIVER_REPORT_RANKSHARES_H

#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

namespace gptc {

/// Prints one line "Newton-Schulz over N ranks: rank 0 orthogonalises ...";
/// nothing with one rank. False when the spec does not compile.
bool printNewtonSchulzShares(mlir::MLIRContext &ctx, const ModelSpec &spec,
                             Target target, bool fuse, llvm::raw_ostream &os);

/// One line of the CUDA cost report: the all-reduce of the gradients and
/// the all-gather of the Muon updates on the spec's ranks (8 when it has
/// one) of H100s over NVLink 4. Returns their seconds per step when the
/// spec has more than one rank (they are on the step's critical path),
/// else 0.
double printDataParallelCost(const ModelSpec &spec, llvm::raw_ostream &os);

} // namespace gptc

#endif // GPTC_DRIVER_REPORT_RANKSHARES_H
