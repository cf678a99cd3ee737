//===- CPUPipeline.h - CPU code generation ----------------------*- C++ -*-===//

#ifndef GPTC_PASSES_CPU_CPUPIPELINE_H
#define GPTC_PASSES_CPU_CPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace gptc {

class TargetDescription;

/// Stage 7 on the CPU: a module at Stage::Loops (every kernel an
/// scf.parallel nest) to the LLVM dialect: OpenMP across cores over all but
/// the innermost dimension, rows vectorised by LLVM -O3, each distinct
/// kernel nest one outlined function, the host code in parts.
void buildCPUCodegenPipeline(mlir::OpPassManager &pm,
                             const TargetDescription &target);

} // namespace gptc

#endif // GPTC_PASSES_CPU_CPUPIPELINE_H
