//===- CUDAPipeline.h - CUDA code generation --------------------*- C++ -*-===//

#ifndef GPTC_PASSES_GPU_CUDAPIPELINE_H
#define GPTC_PASSES_GPU_CUDAPIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <array>

namespace gptc {

class TargetDescription;

/// The chips the PTX stage targets, in the order of their objects.
inline constexpr std::array<const char *, 2> kPTXChips = {"sm_80", "sm_90"};

/// Stage 7 on CUDA: a module at Stage::Loops to Stage::LLVM: every kernel
/// nest a grid of thread blocks as a gpu.launch, the gptgpu ops lowered,
/// shared tiles in workgroup memory, the host's arithmetic on device values
/// in kernels (but for a build paired with the CPU's), every arena view's
/// offset from the runtime.
void buildCUDACodegenPipeline(mlir::OpPassManager &pm,
                              const TargetDescription &target);

/// Takes a module at Stage::LLVM for Target::CUDA (gpu.launch kernels) to
/// Stage::PTX: kernels outlined, identical ones merged
/// (gptc-dedup-kernels), lowered to NVVM and serialised to PTX for every
/// chip of kPTXChips: one gpu.binary per distinct kernel, one object per
/// chip.
void buildPTXPipeline(mlir::OpPassManager &pm);

/// The first passes of buildPTXPipeline: every gpu.launch outlined into a
/// gpu.module of its own, named after its origin (gptc-name-kernels),
/// identical ones merged (gptc-dedup-kernels). `--stats` outlines with
/// them so that its kernel names are the PTX's.
void addKernelOutlining(mlir::OpPassManager &pm);

} // namespace gptc

#endif // GPTC_PASSES_GPU_CUDAPIPELINE_H
