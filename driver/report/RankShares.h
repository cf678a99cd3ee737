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

namespace report {
struct EntryStats;
} // namespace report

/// One line of the CUDA cost report: the all-reduce of the gradients and
/// the all-gather of the Muon updates on the spec's ranks (8 when it has
/// one) of H100s over NVLink 4. Returns the seconds a step waits for them
/// when the spec has more than one rank, else 0: the all-gather whole (on
/// the step's stream), the all-reduce as much of it as `grad` (the
/// gradient entry point's costed call, null when unknown) does not hide
/// beside the backward (cost::exposedReduceSeconds), whole without it.
double printDataParallelCost(const ModelSpec &spec, llvm::raw_ostream &os,
                             const report::EntryStats *grad = nullptr);

} // namespace gptc

#endif // GPTC_DRIVER_REPORT_RANKSHARES_H
