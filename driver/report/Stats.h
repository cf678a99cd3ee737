//===- Stats.h - `gptc compile --stats`: kernels and GEMMs of a step ------===//
//
// Compiles a spec for a target and prints what one training step runs: per
// entry point (gptc_grad_step, gptc_update_step, gptc_eval_step) every
// kernel with its launch shape (CPU: the scf.parallel bounds at the Loops
// stage; CUDA: grid and block of each outlined gpu.launch_func, plus ptxas
// registers and spill bytes for sm_80 and sm_90 when ptxas is found), and
// the runtime GEMM calls grouped by shape, with totals. CUDA adds a cost
// report: per kernel shared memory, H100 occupancy, FLOPs, bytes and an
// estimated time, per GEMM group bytes and time, and the training step's
// estimate and MFU (CostModel.h, KernelCost.h).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_STATS_H
#define GPTC_DRIVER_REPORT_STATS_H

#include "driver/Ptxas.h"
#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace gptc {

/// Compiles `spec` for `target` and prints its kernel and GEMM table to
/// `os`. Returns false after errors were emitted on `ctx`, or with `error`
/// set for errors outside the compiler; when ptxas fails on some kernels,
/// the table is printed first (their cells read "fail").
/// `fuse` is PipelineOptions::fuse; a last line gives the CPU kernel count
/// of the step both fused and with --no-fuse. CUDA: the first five lines
/// are the answer (printStepAnswer); with `profilePath` (a
/// GPTC_EMU_STATS_JSON profile, MeasuredProfile.h) the kernels are priced
/// by what the emulated device measured of them.
bool printStepStats(mlir::MLIRContext &ctx, const ModelSpec &spec,
                    Target target, bool fuse, llvm::StringRef profilePath,
                    llvm::raw_ostream &os, std::string &error);

} // namespace gptc

#endif // GPTC_DRIVER_REPORT_STATS_H
